// attention_backward_kv_vec4: attention_backward_kv.wgsl (same contract) for
// head sizes that are multiples of 4, with vec4 loads and stores along the
// head channels. Dispatch: ceil(B·NH·T / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let at = split_bht(row, p.NH, p.T);
  let b = at.b; let h = at.h; let j = at.t;
  let C4 = p.C / 4u;
  let hs4 = C4 / p.NH;
  let C34 = 3u * C4;
  let base = (b * p.NH + h) * p.T * p.T;
  let k = (b * p.T + j) * C34 + C4 + h * hs4;
  let q0 = b * p.T * C34 + h * hs4;
  let o0 = b * p.T * C4 + h * hs4;
  for (var e = 0u; e < hs4; e++) {
    var sk = vec4f(0.0);
    var sv = vec4f(0.0);
    for (var i = j; i < p.T; i++) {
      let ij = base + i * p.T + j;
      sk += dpre[ij] * qkv[q0 + i * C34 + e];
      sv += att[ij] * dout[o0 + i * C4 + e];
    }
    dqkv[k + e] = sk * p.scale;
    dqkv[k + C4 + e] = sv;
  }
}
