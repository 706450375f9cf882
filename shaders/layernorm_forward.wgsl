// layernorm_forward: out [N, C] = (inp − mean)·rstd·g + b per row, eps 1e-5,
// biased variance computed in two passes (never E[x²] − E[x]²). Also writes
// mean [N] and rstd [N] for the backward pass. One invocation per row.
// Dispatch: ceil(N / 64) workgroups.
struct Params { N: u32, C: u32, _p0: u32, _p1: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;           // [N, C]
@group(0) @binding(2) var<storage, read> g: array<f32>;             // [C]
@group(0) @binding(3) var<storage, read> b: array<f32>;             // [C]
@group(0) @binding(4) var<storage, read_write> out: array<f32>;     // [N, C]
@group(0) @binding(5) var<storage, read_write> mean: array<f32>;    // [N]
@group(0) @binding(6) var<storage, read_write> rstd: array<f32>;    // [N]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = gid.x + gid.y * nwg.x * 64u;
  if (n >= p.N) { return; }
  let base = n * p.C;
  var m = 0.0;
  for (var c = 0u; c < p.C; c++) { m += inp[base + c]; }
  m /= f32(p.C);
  var v = 0.0;
  for (var c = 0u; c < p.C; c++) {
    let d = inp[base + c] - m;
    v += d * d;
  }
  let r = inverseSqrt(v / f32(p.C) + 1e-5);
  for (var c = 0u; c < p.C; c++) { out[base + c] = (inp[base + c] - m) * r * g[c] + b[c]; }
  mean[n] = m;
  rstd[n] = r;
}
