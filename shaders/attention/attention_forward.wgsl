// attention_forward: causal multi-head attention with the PAD key mask.
// qkv [B, T, 3C] holds q | k | v along the last axis; head h uses channels
// h·hs … h·hs + hs − 1 of each (hs = C/NH). Query i attends key j iff j ≤ i
// and key j is not a PAD text token (j ≥ P and tokens[b, j − P] = padId);
// patch keys are never masked, so every row has at least one key when P ≥ 1.
// One invocation per (b, h, i) query row: scores go straight into att, are
// turned into softmax probabilities in place (max-subtracted), and the row of
// out is Σ_j att_ij·v_j. att [B, NH, T, T] is kept for the backward pass;
// entries of masked or future keys are 0.
// Dispatch: ceil(B·NH·T / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

fn keyOk(b: u32, j: u32) -> bool {
  return j < p.P || tokens[b * p.L + j - p.P] != p.padId;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let at = split_bht(row, p.NH, p.T);
  let b = at.b; let h = at.h; let i = at.t;
  let hs = p.C / p.NH;
  let C3 = 3u * p.C;
  let q = (b * p.T + i) * C3 + h * hs;
  let a = row * p.T;
  var maxv = -3.0e38;
  for (var j = 0u; j <= i; j++) {
    if (!keyOk(b, j)) { continue; }
    let k = (b * p.T + j) * C3 + p.C + h * hs;
    var s = 0.0;
    for (var e = 0u; e < hs; e++) { s += qkv[q + e] * qkv[k + e]; }
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
  let o = (b * p.T + i) * p.C + h * hs;
  for (var e = 0u; e < hs; e++) {
    var s = 0.0;
    for (var j = 0u; j <= i; j++) { s += att[a + j] * qkv[(b * p.T + j) * C3 + 2u * p.C + h * hs + e]; }
    out[o + e] = s;
  }
}
