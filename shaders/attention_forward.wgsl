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
struct Params { B: u32, T: u32, C: u32, NH: u32, P: u32, L: u32, padId: i32, scale: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> qkv: array<f32>;          // [B, T, 3C]
@group(0) @binding(2) var<storage, read> tokens: array<i32>;       // [B, L]
@group(0) @binding(3) var<storage, read_write> att: array<f32>;    // [B, NH, T, T]
@group(0) @binding(4) var<storage, read_write> out: array<f32>;    // [B, T, C]

fn keyOk(b: u32, j: u32) -> bool {
  return j < p.P || tokens[b * p.L + j - p.P] != p.padId;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let i = row % p.T;
  let h = (row / p.T) % p.NH;
  let b = row / (p.T * p.NH);
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
