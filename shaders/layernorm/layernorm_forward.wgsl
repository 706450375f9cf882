// layernorm_forward: out [N, C] = (inp − mean)·rstd·g + b per row, eps 1e-5,
// biased variance computed in two passes (never E[x²] − E[x]²). Also writes
// mean [N] and rstd [N] for the backward pass. One invocation per row; rows
// are read as vec4 (C % 4 = 0, which validateConfig guarantees for dModel).
// Dispatch: ceil(N / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/layernorm/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = linear_id(gid, nwg);
  if (n >= p.N) { return; }
  let C4 = p.C / 4u;
  let base = n * C4;
  var s = vec4f(0.0);
  for (var c = 0u; c < C4; c++) { s += inp[base + c]; }
  let m = (s.x + s.y + s.z + s.w) / f32(p.C);
  var v = 0.0;
  for (var c = 0u; c < C4; c++) {
    let d = inp[base + c] - m;
    v += dot(d, d);
  }
  let r = inverseSqrt(v / f32(p.C) + 1e-5);
  for (var c = 0u; c < C4; c++) { out[base + c] = (inp[base + c] - m) * r * g[c] + b[c]; }
  mean[n] = m;
  rstd[n] = r;
}
