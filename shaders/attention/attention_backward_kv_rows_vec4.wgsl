// attention_backward_kv_rows_vec4: attention_backward_kv_vec4.wgsl when only
// the packed query rows of a compacted last layer have a gradient: dout is
// packed [R, C]; idx lists the packed rows' absolute rows b·T + i in
// ascending order and start [B + 1] gives sequence b's packed rows
// [start[b], start[b + 1]). Each key row sums over those query rows only, in
// ascending i as the full kernel does; the rows it skips add exactly 0 there
// (zero dout, zero dpre). Dispatch: ceil(B·NH·T / 64) workgroups.
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
  let r0 = u32(start[b]);
  let r1 = u32(start[b + 1u]);
  for (var e = 0u; e < hs4; e++) {
    var sk = vec4f(0.0);
    var sv = vec4f(0.0);
    for (var r = r0; r < r1; r++) {
      let i = u32(idx[r]) - b * p.T;
      if (i < j) { continue; }
      let ij = base + i * p.T + j;
      sk += dpre[ij] * qkv[q0 + i * C34 + e];
      sv += att[ij] * dout[r * C4 + h * hs4 + e];
    }
    dqkv[k + e] = sk * p.scale;
    dqkv[k + C4 + e] = sv;
  }
}
