// layernorm_backward_dx: the input gradient of LayerNorm (llm.c
// doc/layernorm): with x̂ = (x − mean)·rstd and dnorm = dout·g,
//   dinp = rstd·(dnorm − mean_c(dnorm) − x̂·mean_c(dnorm·x̂)).
// flags bit 0: accumulate (dinp +=; the residual-stream gradient), else write.
// One invocation per row. Dispatch: ceil(N / 64) workgroups.
struct Params { N: u32, C: u32, flags: u32, _p0: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;          // [N, C]
@group(0) @binding(2) var<storage, read> inp: array<f32>;           // [N, C]
@group(0) @binding(3) var<storage, read> g: array<f32>;             // [C]
@group(0) @binding(4) var<storage, read> mean: array<f32>;          // [N]
@group(0) @binding(5) var<storage, read> rstd: array<f32>;          // [N]
@group(0) @binding(6) var<storage, read_write> dinp: array<f32>;    // [N, C]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = gid.x + gid.y * nwg.x * 64u;
  if (n >= p.N) { return; }
  let base = n * p.C;
  let m = mean[n];
  let r = rstd[n];
  var dm = 0.0;
  var dmx = 0.0;
  for (var c = 0u; c < p.C; c++) {
    let xh = (inp[base + c] - m) * r;
    let dn = g[c] * dout[base + c];
    dm += dn;
    dmx += dn * xh;
  }
  dm /= f32(p.C);
  dmx /= f32(p.C);
  for (var c = 0u; c < p.C; c++) {
    let xh = (inp[base + c] - m) * r;
    let d = (g[c] * dout[base + c] - dm - xh * dmx) * r;
    if ((p.flags & 1u) != 0u) { dinp[base + c] += d; } else { dinp[base + c] = d; }
  }
}
