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
// Template: HD (head size, a private array size) is a constant of the spec
// (src/kernels/attention/spec.ts); variant VEC (HD % 4 == 0) holds q and the
// accumulator in vec4 registers and reads the cache as vec4 (about 2× the
// scalar variant SCAL on SwiftShader).

const HD4: u32 = HD / 4u;

// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

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
