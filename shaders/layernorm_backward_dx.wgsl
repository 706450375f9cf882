// layernorm_backward_dx: the input gradient of LayerNorm (llm.c
// doc/layernorm): with x̂ = (x − mean)·rstd and dnorm = dout·g,
//   dinp = rstd·(dnorm − mean_c(dnorm) − x̂·mean_c(dnorm·x̂)).
// flags bit 0: accumulate (dinp +=; the residual-stream gradient), else write.
// One invocation per row, vec4 along C (C % 4 = 0).
// Dispatch: ceil(N / 64) workgroups (x, spilling into y).
struct Params { N: u32, C: u32, flags: u32, _p0: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dout: array<vec4f>;          // [N, C/4]
@group(0) @binding(2) var<storage, read> inp: array<vec4f>;           // [N, C/4]
@group(0) @binding(3) var<storage, read> g: array<vec4f>;             // [C/4]
@group(0) @binding(4) var<storage, read> mean: array<f32>;            // [N]
@group(0) @binding(5) var<storage, read> rstd: array<f32>;            // [N]
@group(0) @binding(6) var<storage, read_write> dinp: array<vec4f>;    // [N, C/4]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = gid.x + gid.y * nwg.x * 64u;
  if (n >= p.N) { return; }
  let C4 = p.C / 4u;
  let base = n * C4;
  let m = mean[n];
  let r = rstd[n];
  var dm = vec4f(0.0);
  var dmx = vec4f(0.0);
  for (var c = 0u; c < C4; c++) {
    let xh = (inp[base + c] - m) * r;
    let dn = g[c] * dout[base + c];
    dm += dn;
    dmx += dn * xh;
  }
  let dmean = (dm.x + dm.y + dm.z + dm.w) / f32(p.C);
  let dmxmean = (dmx.x + dmx.y + dmx.z + dmx.w) / f32(p.C);
  for (var c = 0u; c < C4; c++) {
    let xh = (inp[base + c] - m) * r;
    let d = (g[c] * dout[base + c] - dmean - xh * dmxmean) * r;
    if ((p.flags & 1u) != 0u) { dinp[base + c] += d; } else { dinp[base + c] = d; }
  }
}
