// Attention of one query per row over its sequence's KV cache, with the PAD
// key mask (model semantics, src/kernels/attention/reference.ts attentionForward):
//   key j is allowed iff j <= pos and (j < P or text[n, j - P] != pad)
//   out[r, h·hd:(h+1)·hd] = Σ_j softmax_j(q·k_j / sqrt(hd)) · v_j
// Single pass with an online softmax (running max m, normaliser l; Milakov &
// Gimelshein 2018), so no score buffer is needed. Patch keys are never
// masked, so every query has at least one allowed key.
// One invocation per (row, head); q from qkv [R, 3D], k/v from the cache
// [L, N, H, S, hd] (filled by kv_append.wgsl up to and including pos).
// Row r reads sequence (r / rowsPerSeq) · seqMul (seqMul = G in a shared
// prefill segment, whose rows count groups; 1 otherwise); its position is as
// in decode_embed.wgsl (a decode step adds the sequence's prefilled tokens
// state[4 + n]). A query past the cache (pos ≥ S) is written 0.
// Template: HD (head size) is a constant of the spec
// (src/kernels/attention/spec.ts). Variants:
//   REG   HD % 4 == 0 and HD ≤ 32: q and the accumulator in up to 8 named vec4
//         registers (the ones past HD/4 compile away: HD4 is a constant), the
//         cache read as vec4, and the running sum rescaled only when the
//         maximum moves (one exp per key otherwise; the same values, as a
//         rescale by exp(0) = 1 changes nothing). On SwiftShader 2–3× VEC:
//         a private array indexed in a loop lives in memory there.
//   VEC   HD % 4 == 0, any HD: q and the accumulator in private vec4 arrays.
//   SCAL  any HD: scalar loads (about half VEC on SwiftShader).

const HD4: u32 = HD / 4u;

// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

//>>REG
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let h = t % p.H;
  let r = t / p.H;
  if (r >= p.R) { return; }
  let n = (r / p.rowsPerSeq) * p.seqMul;
  let pos = decode_pos(r, p.rowsPerSeq, p.posBase, p.useState, state[0] + state[4u + n]);
  let pad = i32(state[1]);
  if (pos >= p.S) {
    for (var e = 0u; e < HD; e++) { out[r * p.D + h * HD + e] = 0.0; }
    return;
  }
  let qb = (r * 3u * p.D + h * HD) / 4u;
  let z = vec4<f32>(0.0);
  var q0 = qkv[qb] * p.scale;
  var q1 = z; var q2 = z; var q3 = z; var q4 = z; var q5 = z; var q6 = z; var q7 = z;
  if (HD4 > 1u) { q1 = qkv[qb + 1u] * p.scale; }
  if (HD4 > 2u) { q2 = qkv[qb + 2u] * p.scale; }
  if (HD4 > 3u) { q3 = qkv[qb + 3u] * p.scale; }
  if (HD4 > 4u) { q4 = qkv[qb + 4u] * p.scale; }
  if (HD4 > 5u) { q5 = qkv[qb + 5u] * p.scale; }
  if (HD4 > 6u) { q6 = qkv[qb + 6u] * p.scale; }
  if (HD4 > 7u) { q7 = qkv[qb + 7u] * p.scale; }
  var a0 = z; var a1 = z; var a2 = z; var a3 = z; var a4 = z; var a5 = z; var a6 = z; var a7 = z;
  var m = -1e30;
  var l = 0.0;
  var kb = (p.layerOff + (n * p.H + h) * p.S * HD) / 4u;
  let textRow = n * p.textCap;
  for (var j = 0u; j <= pos; j++) {
    if (j < p.P || text[textRow + j - p.P] != pad) {
      var sv = q0 * kc[kb];
      if (HD4 > 1u) { sv += q1 * kc[kb + 1u]; }
      if (HD4 > 2u) { sv += q2 * kc[kb + 2u]; }
      if (HD4 > 3u) { sv += q3 * kc[kb + 3u]; }
      if (HD4 > 4u) { sv += q4 * kc[kb + 4u]; }
      if (HD4 > 5u) { sv += q5 * kc[kb + 5u]; }
      if (HD4 > 6u) { sv += q6 * kc[kb + 6u]; }
      if (HD4 > 7u) { sv += q7 * kc[kb + 7u]; }
      let s = sv.x + sv.y + sv.z + sv.w;
      if (s > m) {
        let corr = exp(m - s);
        l = l * corr;
        a0 *= corr; a1 *= corr; a2 *= corr; a3 *= corr; a4 *= corr; a5 *= corr; a6 *= corr; a7 *= corr;
        m = s;
      }
      let pj = exp(s - m);
      l = l + pj;
      a0 += pj * vc[kb];
      if (HD4 > 1u) { a1 += pj * vc[kb + 1u]; }
      if (HD4 > 2u) { a2 += pj * vc[kb + 2u]; }
      if (HD4 > 3u) { a3 += pj * vc[kb + 3u]; }
      if (HD4 > 4u) { a4 += pj * vc[kb + 4u]; }
      if (HD4 > 5u) { a5 += pj * vc[kb + 5u]; }
      if (HD4 > 6u) { a6 += pj * vc[kb + 6u]; }
      if (HD4 > 7u) { a7 += pj * vc[kb + 7u]; }
    }
    kb += HD4;
  }
  let inv = 1.0 / l;
  let ob = r * p.D + h * HD;
  let acc = array<vec4<f32>, 8>(a0 * inv, a1 * inv, a2 * inv, a3 * inv, a4 * inv, a5 * inv, a6 * inv, a7 * inv);
  for (var e = 0u; e < HD4; e++) {
    let a = acc[e];
    out[ob + 4u * e] = a.x;
    out[ob + 4u * e + 1u] = a.y;
    out[ob + 4u * e + 2u] = a.z;
    out[ob + 4u * e + 3u] = a.w;
  }
}
//<<REG
//>>VEC
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let h = t % p.H;
  let r = t / p.H;
  if (r >= p.R) { return; }
  let n = (r / p.rowsPerSeq) * p.seqMul;
  let pos = decode_pos(r, p.rowsPerSeq, p.posBase, p.useState, state[0] + state[4u + n]);
  let pad = i32(state[1]);
  if (pos >= p.S) {
    for (var e = 0u; e < HD; e++) { out[r * p.D + h * HD + e] = 0.0; }
    return;
  }

  var q: array<vec4<f32>, HD4>;
  var acc: array<vec4<f32>, HD4>;
  let qb = (r * 3u * p.D + h * HD) / 4u;
  for (var e = 0u; e < HD4; e++) {
    q[e] = qkv[qb + e] * p.scale;
    acc[e] = vec4<f32>(0.0);
  }
  var m = -1e30;
  var l = 0.0;
  var kb = (p.layerOff + (n * p.H + h) * p.S * HD) / 4u;
  let textRow = n * p.textCap;
  for (var j = 0u; j <= pos; j++) {
    if (j < p.P || text[textRow + j - p.P] != pad) {
      var sv = vec4<f32>(0.0);
      for (var e = 0u; e < HD4; e++) { sv += q[e] * kc[kb + e]; }
      let s = sv.x + sv.y + sv.z + sv.w;
      let mNew = max(m, s);
      let corr = exp(m - mNew);
      let pj = exp(s - mNew);
      l = l * corr + pj;
      for (var e = 0u; e < HD4; e++) { acc[e] = acc[e] * corr + pj * vc[kb + e]; }
      m = mNew;
    }
    kb += HD4;
  }
  let inv = 1.0 / l;
  let ob = r * p.D + h * HD;
  for (var e = 0u; e < HD4; e++) {
    let a = acc[e] * inv;
    out[ob + 4u * e] = a.x;
    out[ob + 4u * e + 1u] = a.y;
    out[ob + 4u * e + 2u] = a.z;
    out[ob + 4u * e + 3u] = a.w;
  }
}
//<<VEC
//>>SCAL
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let h = t % p.H;
  let r = t / p.H;
  if (r >= p.R) { return; }
  let n = (r / p.rowsPerSeq) * p.seqMul;
  let pos = decode_pos(r, p.rowsPerSeq, p.posBase, p.useState, state[0] + state[4u + n]);
  let pad = i32(state[1]);
  if (pos >= p.S) {
    for (var e = 0u; e < HD; e++) { out[r * p.D + h * HD + e] = 0.0; }
    return;
  }

  var q: array<f32, HD>;
  var acc: array<f32, HD>;
  let qb = r * 3u * p.D + h * HD;
  for (var e = 0u; e < HD; e++) {
    q[e] = qkv[qb + e] * p.scale;
    acc[e] = 0.0;
  }
  var m = -1e30;
  var l = 0.0;
  let base = p.layerOff + (n * p.H + h) * p.S * HD;
  for (var j = 0u; j <= pos; j++) {
    if (j >= p.P && text[n * p.textCap + (j - p.P)] == pad) { continue; }
    let kb = base + j * HD;
    var s = 0.0;
    for (var e = 0u; e < HD; e++) { s += q[e] * kc[kb + e]; }
    let mNew = max(m, s);
    let corr = exp(m - mNew);
    let pj = exp(s - mNew);
    l = l * corr + pj;
    for (var e = 0u; e < HD; e++) { acc[e] = acc[e] * corr + pj * vc[kb + e]; }
    m = mNew;
  }
  let inv = 1.0 / l;
  let ob = r * p.D + h * HD;
  for (var e = 0u; e < HD; e++) { out[ob + e] = acc[e] * inv; }
}
//<<SCAL
