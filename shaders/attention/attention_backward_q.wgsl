// attention_backward_q: pass 1 of the attention backward (llm.c
// attention_backward, split so that no two invocations write one value).
// One invocation per (b, h, i) query row, using the stored probabilities att:
//   datt_ij = dout_i·v_j,  dpre_ij = att_ij·(datt_ij − Σ_k att_ik·datt_ik),
//   dq_i = scale·Σ_j dpre_ij·k_j   (written into the q part of dqkv).
// dpre [B, NH, T, T] is stored for pass 2 (attention_backward_kv).
//
// Template (src/kernels/attention/spec.ts): the element type E of dout, qkv
// and dqkv is f32 (VW = 1) or, for head sizes that are multiples of 4, vec4f
// (VW = 4, vec4 loads and stores along the head channels); indices below
// count elements. Blocks:
//   SCAL / VEC  the dout·v product of one element (a product, or a vec4 dot);
//   FULL        every query row, one invocation per (b, h, i) of [B, NH, T];
//               dispatch ceil(B·NH·T / 64) workgroups;
//   ROWS        only the packed query rows of a compacted last layer, the only
//               rows with a gradient: packed row r is the query at absolute
//               row idx[r] = b·T + i (idx < 0: a padding row, nothing
//               written); its gradient is dout[r] (packed [R, C]). Writes that
//               query's dpre row and the q part of its dqkv row with FULL's
//               arithmetic in the same order; every other row's dpre and dq
//               are left as they are (the caller clears them to the 0 that
//               FULL computes from a zero dout). Dispatch ceil(R·NH / 64)
//               workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let Ce = p.C / VW;
  let hse = Ce / p.NH;
  let C3e = 3u * Ce;
//>>FULL
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let at = split_bht(row, p.NH, p.T);
  let b = at.b; let h = at.h; let i = at.t;
  let a = row * p.T;
  let o = (b * p.T + i) * Ce + h * hse;
//<<FULL
//>>ROWS
  let t = gid.x;
  if (t >= p.R * p.NH) { return; }
  let r = t / p.NH;
  let h = t % p.NH;
  let src = idx[r];
  if (src < 0) { return; }
  let b = u32(src) / p.T;
  let i = u32(src) % p.T;
  let a = ((b * p.NH + h) * p.T + i) * p.T;
  let o = r * Ce + h * hse;
//<<ROWS
  var rowDot = 0.0;
  for (var j = 0u; j <= i; j++) {
    let v = (b * p.T + j) * C3e + 2u * Ce + h * hse;
    var s = 0.0;
//>>SCAL
    for (var e = 0u; e < hse; e++) { s += dout[o + e] * qkv[v + e]; }
//<<SCAL
//>>VEC
    for (var e = 0u; e < hse; e++) { s += dot(dout[o + e], qkv[v + e]); }
//<<VEC
    dpre[a + j] = s;
    rowDot += att[a + j] * s;
  }
  for (var j = 0u; j <= i; j++) { dpre[a + j] = att[a + j] * (dpre[a + j] - rowDot); }
  for (var j = i + 1u; j < p.T; j++) { dpre[a + j] = 0.0; }
  let q = (b * p.T + i) * C3e + h * hse;
  let k0 = b * p.T * C3e + Ce + h * hse;
  for (var e = 0u; e < hse; e++) {
    var s = E(0.0);
    for (var j = 0u; j <= i; j++) { s += dpre[a + j] * qkv[k0 + j * C3e + e]; }
    dqkv[q + e] = s * p.scale;
  }
}
