// attention_backward_q_rows_vec4: attention_backward_q_vec4.wgsl when only the
// packed query rows of a compacted last layer have a gradient: dout is packed
// [R, C] and inv [B·T] gives each row's packed index (−1: no gradient). A row
// with inv = −1 gets dq = 0 (what the full kernel computes from a zero dout)
// and its dpre row is not written (attention_backward_kv_rows_vec4 reads only
// packed rows). Other rows: the full kernel's arithmetic in the same order.
// Dispatch: ceil(B·NH·T / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let at = split_bht(row, p.NH, p.T);
  let b = at.b; let h = at.h; let i = at.t;
  let C4 = p.C / 4u;
  let hs4 = C4 / p.NH;
  let C34 = 3u * C4;
  let q = (b * p.T + i) * C34 + h * hs4;
  let r = inv[b * p.T + i];
  if (r < 0) {
    for (var e = 0u; e < hs4; e++) { dqkv[q + e] = vec4f(0.0); }
    return;
  }
  let a = row * p.T;
  let o = u32(r) * C4 + h * hs4;
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
  let k0 = b * p.T * C34 + C4 + h * hs4;
  for (var e = 0u; e < hs4; e++) {
    var s = vec4f(0.0);
    for (var j = 0u; j <= i; j++) { s += dpre[a + j] * qkv[k0 + j * C34 + e]; }
    dqkv[q + e] = s * p.scale;
  }
}
