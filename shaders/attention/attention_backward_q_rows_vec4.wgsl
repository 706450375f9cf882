// attention_backward_q_rows_vec4: attention_backward_q_vec4.wgsl for the
// packed query rows of a compacted last layer only, the only rows with a
// gradient: packed row r is the query at absolute row idx[r] = b·T + i
// (idx < 0: a padding row, nothing written); its gradient is dout[r] (packed
// [R, C]). Writes that query's dpre row and the q part of its dqkv row with
// the full kernel's arithmetic in the same order; every other row's dpre and
// dq are left as they are (the caller clears them to the 0 the full kernel
// computes from a zero dout). Dispatch: ceil(R·NH / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let t = gid.x;
  if (t >= p.R * p.NH) { return; }
  let r = t / p.NH;
  let h = t % p.NH;
  let src = idx[r];
  if (src < 0) { return; }
  let b = u32(src) / p.T;
  let i = u32(src) % p.T;
  let C4 = p.C / 4u;
  let hs4 = C4 / p.NH;
  let C34 = 3u * C4;
  let a = ((b * p.NH + h) * p.T + i) * p.T;
  let o = r * C4 + h * hs4;
  var dot_ = 0.0;
  for (var j = 0u; j <= i; j++) {
    let v = (b * p.T + j) * C34 + 2u * C4 + h * hs4;
    var s = 0.0;
    for (var e = 0u; e < hs4; e++) { s += dot(dout[o + e], qkv[v + e]); }
    dpre[a + j] = s;
    dot_ += att[a + j] * s;
  }
  for (var j = 0u; j <= i; j++) { dpre[a + j] = att[a + j] * (dpre[a + j] - dot_); }
  for (var j = i + 1u; j < p.T; j++) { dpre[a + j] = 0.0; }
  let q = (b * p.T + i) * C34 + h * hs4;
  let k0 = b * p.T * C34 + C4 + h * hs4;
  for (var e = 0u; e < hs4; e++) {
    var s = vec4f(0.0);
    for (var j = 0u; j <= i; j++) { s += dpre[a + j] * qkv[k0 + j * C34 + e]; }
    dqkv[q + e] = s * p.scale;
  }
}
