// attention_forward: causal multi-head attention with the PAD key mask.
// qkv [B, T, 3C] holds q | k | v along the last axis; head h uses channels
// h·hs … h·hs + hs − 1 of each (hs = C/NH). Query i attends key j iff j ≤ i
// and key j is not a PAD text token (j ≥ P and tokens[b, j − P] = padId);
// patch keys are never masked, so every row has at least one key when P ≥ 1.
// One invocation per (b, h, i) query row: scores go straight into att, are
// turned into softmax probabilities in place (max-subtracted), and the row of
// out is Σ_j att_ij·v_j. att [B, NH, T, T] is kept for the backward pass;
// entries of masked or future keys are 0.
//
// Template (src/kernels/attention/spec.ts): the element type E of qkv and out
// is f32 (VW = 1 float per element) or, for head sizes hs % 4 = 0, vec4f
// (VW = 4), which SwiftShader runs several times faster than scalar loads;
// indices below count elements. Blocks:
//   SCAL / VEC  the q·k product of one element (a product, or a vec4 dot);
//   FULL        every query row, one invocation per (b, h, i) of [B, NH, T];
//               dispatch ceil(B·NH·T / 64) workgroups;
//   ROWS        the packed query rows of a compacted last layer: packed row r
//               is the query at absolute row idx[r] = b·T + i of [B, T]
//               (idx < 0: a padding row, written 0); its output goes to out[r]
//               (packed [R, C]) and its probabilities to its own row of att.
//               Rows of att that no packed row names are not written. Same
//               arithmetic, in the same order, as FULL, so every written
//               value is FULL's. Dispatch ceil(R·NH / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

fn keyOk(b: u32, j: u32) -> bool {
  return j < p.P || tokens[b * p.L + j - p.P] != p.padId;
}

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
  let o = r * Ce + h * hse;
  let src = idx[r];
  if (src < 0) {
    for (var e = 0u; e < hse; e++) { out[o + e] = E(0.0); }
    return;
  }
  let b = u32(src) / p.T;
  let i = u32(src) % p.T;
  let a = ((b * p.NH + h) * p.T + i) * p.T;
//<<ROWS
  let q = (b * p.T + i) * C3e + h * hse;
  var maxv = -3.0e38;
  for (var j = 0u; j <= i; j++) {
    if (!keyOk(b, j)) { continue; }
    let k = (b * p.T + j) * C3e + Ce + h * hse;
    var s = 0.0;
//>>SCAL
    for (var e = 0u; e < hse; e++) { s += qkv[q + e] * qkv[k + e]; }
//<<SCAL
//>>VEC
    for (var e = 0u; e < hse; e++) { s += dot(qkv[q + e], qkv[k + e]); }
//<<VEC
    s *= p.scale;
    att[a + j] = s;
    maxv = max(maxv, s);
  }
  var sum = 0.0;
  for (var j = 0u; j <= i; j++) {
    var ev = 0.0;
    if (keyOk(b, j)) { ev = exp(att[a + j] - maxv); }
    att[a + j] = ev;
    sum += ev;
  }
  let inv = 1.0 / sum;
  for (var j = 0u; j <= i; j++) { att[a + j] *= inv; }
  for (var j = i + 1u; j < p.T; j++) { att[a + j] = 0.0; }
  let v0 = b * p.T * C3e + 2u * Ce + h * hse;
  for (var e = 0u; e < hse; e++) {
    var s = E(0.0);
    for (var j = 0u; j <= i; j++) { s += att[a + j] * qkv[v0 + j * C3e + e]; }
    out[o + e] = s;
  }
}
