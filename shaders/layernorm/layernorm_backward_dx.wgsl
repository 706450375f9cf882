// layernorm_backward_dx: the input gradient of LayerNorm (llm.c
// doc/layernorm): with x̂ = (x − mean)·rstd and dnorm = dout·g,
//   dinp = rstd·(dnorm − mean_c(dnorm) − x̂·mean_c(dnorm·x̂)).
// flags bit 0: accumulate (dinp +=; the residual-stream gradient), else write.
// One invocation per row, vec4 along C (C % 4 = 0).
// Dispatch: ceil(N / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/layernorm/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = linear_id(gid, nwg);
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
