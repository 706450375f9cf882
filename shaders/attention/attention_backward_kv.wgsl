// attention_backward_kv: pass 2 of the attention backward. One invocation
// per (b, h, j) key row sums over the queries i ≥ j that saw it:
//   dk_j = scale·Σ_i dpre_ij·q_i,   dv_j = Σ_i att_ij·dout_i
// and writes the k and v parts of dqkv (pass 1 wrote the q part). Masked
// keys have att = dpre = 0 and get zero gradients. Deterministic, no atomics.
// Template (src/kernels/attention/spec.ts): the element type E of dout, qkv
// and dqkv is f32 (VW = 1) or, for head sizes that are multiples of 4, vec4f
// (VW = 4, vec4 loads and stores along the head channels); indices count
// elements, and each lane is summed over i in the same order either way.
// Dispatch: ceil(B·NH·T / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let at = split_bht(row, p.NH, p.T);
  let b = at.b; let h = at.h; let j = at.t;
  let Ce = p.C / VW;
  let hse = Ce / p.NH;
  let C3e = 3u * Ce;
  let base = (b * p.NH + h) * p.T * p.T; // att[b, h, 0, 0]
  let k = (b * p.T + j) * C3e + Ce + h * hse;
  let q0 = b * p.T * C3e + h * hse;
  let o0 = b * p.T * Ce + h * hse;
  for (var e = 0u; e < hse; e++) {
    var sk = E(0.0);
    var sv = E(0.0);
    for (var i = j; i < p.T; i++) {
      let ij = base + i * p.T + j;
      sk += dpre[ij] * qkv[q0 + i * C3e + e];
      sv += att[ij] * dout[o0 + i * Ce + e];
    }
    dqkv[k + e] = sk * p.scale;
    dqkv[k + Ce + e] = sv;
  }
}
