// attention_backward_kv: pass 2 of the attention backward. One invocation
// per (b, h, j) key row sums over the queries i ≥ j that saw it:
//   dk_j = scale·Σ_i dpre_ij·q_i,   dv_j = Σ_i att_ij·dout_i
// and writes the k and v parts of dqkv (pass 1 wrote the q part). Masked
// keys have att = dpre = 0 and get zero gradients. Deterministic, no atomics.
// Dispatch: ceil(B·NH·T / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let at = split_bht(row, p.NH, p.T);
  let b = at.b; let h = at.h; let j = at.t;
  let hs = p.C / p.NH;
  let C3 = 3u * p.C;
  let base = (b * p.NH + h) * p.T * p.T; // att[b, h, 0, 0]
  let k = (b * p.T + j) * C3 + p.C + h * hs;
  for (var e = 0u; e < hs; e++) {
    var sk = 0.0;
    var sv = 0.0;
    for (var i = j; i < p.T; i++) {
      let ij = base + i * p.T + j;
      sk += dpre[ij] * qkv[(b * p.T + i) * C3 + h * hs + e];
      sv += att[ij] * dout[(b * p.T + i) * p.C + h * hs + e];
    }
    dqkv[k + e] = sk * p.scale;
    dqkv[k + p.C + e] = sv;
  }
}
