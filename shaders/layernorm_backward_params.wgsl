// layernorm_backward_params: dg [C] += Σ_n dout·x̂, db [C] += Σ_n dout with
// x̂ = (inp − mean)·rstd. Deterministic: one invocation per 4 columns (vec4,
// C % 4 = 0) sums the rows in order (no atomics). Accumulates: the caller
// zeroes the gradients. Dispatch: ceil(C/4 / 64) workgroups.
struct Params { N: u32, C: u32, _p0: u32, _p1: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dout: array<vec4f>;        // [N, C/4]
@group(0) @binding(2) var<storage, read> inp: array<vec4f>;         // [N, C/4]
@group(0) @binding(3) var<storage, read> mean: array<f32>;          // [N]
@group(0) @binding(4) var<storage, read> rstd: array<f32>;          // [N]
@group(0) @binding(5) var<storage, read_write> dg: array<vec4f>;    // [C/4]
@group(0) @binding(6) var<storage, read_write> db: array<vec4f>;    // [C/4]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let C4 = p.C / 4u;
  let c = gid.x;
  if (c >= C4) { return; }
  var sg = vec4f(0.0);
  var sb = vec4f(0.0);
  for (var n = 0u; n < p.N; n++) {
    let d = dout[n * C4 + c];
    sg += d * (inp[n * C4 + c] - mean[n]) * rstd[n];
    sb += d;
  }
  dg[c] += sg;
  db[c] += sb;
}
