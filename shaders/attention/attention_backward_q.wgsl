// attention_backward_q: pass 1 of the attention backward (llm.c
// attention_backward, split so that no two invocations write one value).
// One invocation per (b, h, i) query row, using the stored probabilities att:
//   datt_ij = dout_i·v_j,  dpre_ij = att_ij·(datt_ij − Σ_k att_ik·datt_ik),
//   dq_i = scale·Σ_j dpre_ij·k_j   (written into the q part of dqkv).
// dpre [B, NH, T, T] is stored for pass 2 (attention_backward_kv).
// Dispatch: ceil(B·NH·T / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let at = split_bht(row, p.NH, p.T);
  let b = at.b; let h = at.h; let i = at.t;
  let hs = p.C / p.NH;
  let C3 = 3u * p.C;
  let a = row * p.T;
  let o = (b * p.T + i) * p.C + h * hs;
  var dot = 0.0;
  for (var j = 0u; j <= i; j++) {
    let v = (b * p.T + j) * C3 + 2u * p.C + h * hs;
    var s = 0.0;
    for (var e = 0u; e < hs; e++) { s += dout[o + e] * qkv[v + e]; }
    dpre[a + j] = s;
    dot += att[a + j] * s;
  }
  for (var j = 0u; j <= i; j++) { dpre[a + j] = att[a + j] * (dpre[a + j] - dot); }
  for (var j = i + 1u; j < p.T; j++) { dpre[a + j] = 0.0; }
  let q = (b * p.T + i) * C3 + h * hs;
  for (var e = 0u; e < hs; e++) {
    var s = 0.0;
    for (var j = 0u; j <= i; j++) { s += dpre[a + j] * qkv[(b * p.T + j) * C3 + p.C + h * hs + e]; }
    dqkv[q + e] = s * p.scale;
  }
}
