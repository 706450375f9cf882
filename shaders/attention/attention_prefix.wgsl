// attention_prefix: the training attention (causal, PAD key mask, model
// semantics of src/kernels/attention/reference.ts) on the prefix layout of a
// shared-prefix step (src/model/prefix-layout.ts; prefix_row_seq in
// shaders/prelude.wgsl): B = nG·G sequences in nG groups of G whose first S
// positions are the same in every sequence of a group (image and prompt),
// T = S + Rs positions per sequence. Their rows:
//   rows [0, nG·S)          prefix row g·S + t: position t < S of group g
//                           (computed once; it stands for every sequence of g)
//   rows [nG·S, +B·Rs)      suffix row nG·S + b·Rs + (t − S): position t ≥ S of
//                           sequence b
// S = 0 is the plain layout [B, T]. qkv [rows, 3C] holds q | k | v along the
// last axis as vec4 elements (Ce = C/4 per row); head h uses elements
// h·HD4 … h·HD4 + HD4 − 1 of each (HD4 = HD/4, HD = C/NH the head size, a
// constant of the spec, a multiple of 4 up to 32). Query (b, i) attends key
// (b, j) iff j ≤ i and key j is not a PAD text token (j ≥ P and
// tokens[b, j − P] = padId); a prefix query attends its group's prefix keys, a
// suffix query its group's prefix keys and its own suffix keys.
// att and dpre are [rows, NH, T]: entry (r·NH + h)·T + j is query row r's
// probability (gradient) at key position j (0 for masked keys; j > i unwritten).
//
// Two ways of running each pass, the same sums in the same order, so the
// same bits (test/gpu/attention/attention-prefix.test.ts compares them word
// for word):
//   ROW   one invocation per (row, head); dispatch ceil(rows·NH / 64)
//         workgroups (x). Quick to build.
//   QUAD  one invocation per (quad, head), a quad being up to 4 consecutive
//         rows of one segment (a group's prefix rows, or a sequence's suffix
//         rows; a segment's last quad may hold fewer). The forward and the q
//         pass walk the keys once for the quad's 4 queries, the kv pass walks
//         the queries once for its 4 keys: each key (query) vector is loaded
//         once for 4 rows instead of 4 times. On SwiftShader the passes ran
//         about 1.4×, 1.3× and 1.1–1.25× as fast, but took 3–4× as long to
//         build (docs/benchmarks.md, 2026-12-05), so a call starts on ROW and
//         moves to QUAD once it is built (CallOptions.upgrade).
//         Dispatch ceil(quads·NH / 64) workgroups (x), quads = nG·⌈S/4⌉ + B·⌈Rs/4⌉.
// Every sum runs in the order of the plain kernels (attention_forward /
// _backward_q / _backward_kv: over e, then over keys or queries ascending).
// The head's vectors (q, dout, the accumulators) live in up to 8 named vec4
// registers (V8; the ones past HD4 compile away): on SwiftShader a private
// array indexed in a loop lives in memory.
// Passes, blocks inside ROW and QUAD, and their helpers before them (src/kernels/attention/spec.ts):
//   FWD   out [rows, C] and att
//   BQ    pass 1 of the backward: dpre and the q part of dqkv,
//         datt_ij = dout_i·v_j, dpre_ij = att_ij·(datt_ij − Σ_k att_ik·datt_ik),
//         dq_i = scale·Σ_j dpre_ij·k_j
//   BKV   pass 2: the k and v parts of dqkv, summing over the queries that
//         saw each key: dk_j = scale·Σ_i dpre_ij·q_i, dv_j = Σ_i att_ij·dout_i.
//         A prefix key sums over its group's prefix queries once and over the
//         suffix queries of the first sumG sequences of its group (sumG = G:
//         every sequence; a smaller sumG only to show that the tests catch a
//         broken sum). Deterministic, no atomics.
//   BACK  (with BQ and BKV) the backward passes' helpers, shared by both ways.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

const HD4: u32 = HD / 4u;

// Element offset of the qkv row of key position j of sequence b, less j·C3e: the prefix base
// below S, the suffix base from S on (phys(b, j) = base·C3e + j·C3e; divisions kept out of the loops).
fn key_base(b: u32, j: u32, C3e: u32) -> u32 {
  let pre = (b / p.G) * p.S;
  let suf = p.nG * p.S + b * p.Rs - p.S;
  return select(suf, pre, j < p.S) * C3e;
}

// Head h's keys of sequence b: key j < S at .x + j·C3e, key j ≥ S at .y + j·C3e (its v: + Ce).
fn head_keys(b: u32, h: u32, Ce: u32, C3e: u32) -> vec2u {
  return vec2u(key_base(b, 0u, C3e), key_base(b, p.S, C3e)) + Ce + h * HD4;
}

// One head's vector of HD4 vec4 elements in registers (fields past HD4 stay 0).
struct V8 { v0: vec4f, v1: vec4f, v2: vec4f, v3: vec4f, v4: vec4f, v5: vec4f, v6: vec4f, v7: vec4f }

fn v8_zero() -> V8 {
  let z = vec4f(0.0);
  return V8(z, z, z, z, z, z, z, z);
}

// qkv[o … o + HD4).
fn qkv_load(o: u32) -> V8 {
  var x = v8_zero();
  x.v0 = qkv[o];
  if (HD4 > 1u) { x.v1 = qkv[o + 1u]; }
  if (HD4 > 2u) { x.v2 = qkv[o + 2u]; }
  if (HD4 > 3u) { x.v3 = qkv[o + 3u]; }
  if (HD4 > 4u) { x.v4 = qkv[o + 4u]; }
  if (HD4 > 5u) { x.v5 = qkv[o + 5u]; }
  if (HD4 > 6u) { x.v6 = qkv[o + 6u]; }
  if (HD4 > 7u) { x.v7 = qkv[o + 7u]; }
  return x;
}

// Σ_e dot(x_e, y_e), e ascending.
fn dot8(x: V8, y: V8) -> f32 {
  var s = dot(x.v0, y.v0);
  if (HD4 > 1u) { s += dot(x.v1, y.v1); }
  if (HD4 > 2u) { s += dot(x.v2, y.v2); }
  if (HD4 > 3u) { s += dot(x.v3, y.v3); }
  if (HD4 > 4u) { s += dot(x.v4, y.v4); }
  if (HD4 > 5u) { s += dot(x.v5, y.v5); }
  if (HD4 > 6u) { s += dot(x.v6, y.v6); }
  if (HD4 > 7u) { s += dot(x.v7, y.v7); }
  return s;
}

// acc + w·y.
fn axpy8(acc: V8, w: f32, y: V8) -> V8 {
  var x = acc;
  x.v0 += w * y.v0;
  if (HD4 > 1u) { x.v1 += w * y.v1; }
  if (HD4 > 2u) { x.v2 += w * y.v2; }
  if (HD4 > 3u) { x.v3 += w * y.v3; }
  if (HD4 > 4u) { x.v4 += w * y.v4; }
  if (HD4 > 5u) { x.v5 += w * y.v5; }
  if (HD4 > 6u) { x.v6 += w * y.v6; }
  if (HD4 > 7u) { x.v7 += w * y.v7; }
  return x;
}

//>>FWD
fn keyOk(b: u32, j: u32) -> bool {
  return j < p.P || tokens[b * p.L + j - p.P] != p.padId;
}

// out[o … o + HD4) = x.
fn out_store(o: u32, x: V8) {
  out[o] = x.v0;
  if (HD4 > 1u) { out[o + 1u] = x.v1; }
  if (HD4 > 2u) { out[o + 2u] = x.v2; }
  if (HD4 > 3u) { out[o + 3u] = x.v3; }
  if (HD4 > 4u) { out[o + 4u] = x.v4; }
  if (HD4 > 5u) { out[o + 5u] = x.v5; }
  if (HD4 > 6u) { out[o + 6u] = x.v6; }
  if (HD4 > 7u) { out[o + 7u] = x.v7; }
}
//<<FWD
//>>BACK
// dout[o … o + HD4).
fn dout_load(o: u32) -> V8 {
  var x = v8_zero();
  x.v0 = dout[o];
  if (HD4 > 1u) { x.v1 = dout[o + 1u]; }
  if (HD4 > 2u) { x.v2 = dout[o + 2u]; }
  if (HD4 > 3u) { x.v3 = dout[o + 3u]; }
  if (HD4 > 4u) { x.v4 = dout[o + 4u]; }
  if (HD4 > 5u) { x.v5 = dout[o + 5u]; }
  if (HD4 > 6u) { x.v6 = dout[o + 6u]; }
  if (HD4 > 7u) { x.v7 = dout[o + 7u]; }
  return x;
}

// dqkv[o … o + HD4) = scale·x (the q and k parts).
fn dqkv_store_scaled(o: u32, x: V8) {
  dqkv[o] = x.v0 * p.scale;
  if (HD4 > 1u) { dqkv[o + 1u] = x.v1 * p.scale; }
  if (HD4 > 2u) { dqkv[o + 2u] = x.v2 * p.scale; }
  if (HD4 > 3u) { dqkv[o + 3u] = x.v3 * p.scale; }
  if (HD4 > 4u) { dqkv[o + 4u] = x.v4 * p.scale; }
  if (HD4 > 5u) { dqkv[o + 5u] = x.v5 * p.scale; }
  if (HD4 > 6u) { dqkv[o + 6u] = x.v6 * p.scale; }
  if (HD4 > 7u) { dqkv[o + 7u] = x.v7 * p.scale; }
}

// The k and v sums of one key: sk += dpre_ij·q_i, sv += att_ij·dout_i (e ascending within each).
struct KV { k: V8, v: V8 }

// The k part scaled, the v part as summed (as the ROW kernel stores them).
fn kv_store(r: u32, h: u32, Ce: u32, C3e: u32, acc: KV) {
  let k = r * C3e + Ce + h * HD4;
  dqkv_store_scaled(k, acc.k);
  let v = k + Ce;
  dqkv[v] = acc.v.v0;
  if (HD4 > 1u) { dqkv[v + 1u] = acc.v.v1; }
  if (HD4 > 2u) { dqkv[v + 2u] = acc.v.v2; }
  if (HD4 > 3u) { dqkv[v + 3u] = acc.v.v3; }
  if (HD4 > 4u) { dqkv[v + 4u] = acc.v.v4; }
  if (HD4 > 5u) { dqkv[v + 5u] = acc.v.v5; }
  if (HD4 > 6u) { dqkv[v + 6u] = acc.v.v6; }
  if (HD4 > 7u) { dqkv[v + 7u] = acc.v.v7; }
}
//<<BACK
//>>ROW
fn row_seq(r: u32) -> vec2u { return prefix_row_seq(r, p.nG, p.G, p.S, p.Rs); }

// Rows of the layout: every group's S prefix rows, then every rollout's Rs own rows.
fn row_count() -> u32 { return p.nG * p.S + p.nG * p.G * p.Rs; }

// Σ_e dot(x_e, qkv[o + e]), e ascending.
fn qkv_dot(x: V8, o: u32) -> f32 {
  var s = dot(x.v0, qkv[o]);
  if (HD4 > 1u) { s += dot(x.v1, qkv[o + 1u]); }
  if (HD4 > 2u) { s += dot(x.v2, qkv[o + 2u]); }
  if (HD4 > 3u) { s += dot(x.v3, qkv[o + 3u]); }
  if (HD4 > 4u) { s += dot(x.v4, qkv[o + 4u]); }
  if (HD4 > 5u) { s += dot(x.v5, qkv[o + 5u]); }
  if (HD4 > 6u) { s += dot(x.v6, qkv[o + 6u]); }
  if (HD4 > 7u) { s += dot(x.v7, qkv[o + 7u]); }
  return s;
}

// acc + w·qkv[o … o + HD4).
fn qkv_axpy(acc: V8, w: f32, o: u32) -> V8 {
  var x = acc;
  x.v0 += w * qkv[o];
  if (HD4 > 1u) { x.v1 += w * qkv[o + 1u]; }
  if (HD4 > 2u) { x.v2 += w * qkv[o + 2u]; }
  if (HD4 > 3u) { x.v3 += w * qkv[o + 3u]; }
  if (HD4 > 4u) { x.v4 += w * qkv[o + 4u]; }
  if (HD4 > 5u) { x.v5 += w * qkv[o + 5u]; }
  if (HD4 > 6u) { x.v6 += w * qkv[o + 6u]; }
  if (HD4 > 7u) { x.v7 += w * qkv[o + 7u]; }
  return x;
}

//>>FWD
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= row_count() * p.NH) { return; }
  let r = gid.x / p.NH;
  let h = gid.x % p.NH;
  let Ce = p.C / 4u;
  let C3e = 3u * Ce;
  let bt = row_seq(r);
  let b = bt.x;
  let i = bt.y;
  let a = (r * p.NH + h) * p.T;
  let q = qkv_load(r * C3e + h * HD4);
  let keys = head_keys(b, h, Ce, C3e);
  let pre = keys.x;
  let suf = keys.y;
  var maxv = -3.0e38;
  for (var j = 0u; j <= i; j++) {
    if (!keyOk(b, j)) { continue; }
    let s = qkv_dot(q, select(suf, pre, j < p.S) + j * C3e) * p.scale;
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
  var o = v8_zero();
  for (var j = 0u; j <= i; j++) {
    let w = att[a + j] * inv;
    att[a + j] = w;
    o = qkv_axpy(o, w, select(suf, pre, j < p.S) + j * C3e + Ce);
  }
  out_store(r * Ce + h * HD4, o);
}
//<<FWD
//>>BQ
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= row_count() * p.NH) { return; }
  let r = gid.x / p.NH;
  let h = gid.x % p.NH;
  let Ce = p.C / 4u;
  let C3e = 3u * Ce;
  let bt = row_seq(r);
  let b = bt.x;
  let i = bt.y;
  let a = (r * p.NH + h) * p.T;
  let ob = r * Ce + h * HD4;
  let d = dout_load(ob);
  let keys = head_keys(b, h, Ce, C3e);
  let pre = keys.x;
  let suf = keys.y;
  var rowDot = 0.0;
  for (var j = 0u; j <= i; j++) {
    let s = qkv_dot(d, select(suf, pre, j < p.S) + j * C3e + Ce);
    dpre[a + j] = s;
    rowDot += att[a + j] * s;
  }
  var dq = v8_zero();
  for (var j = 0u; j <= i; j++) {
    let g = att[a + j] * (dpre[a + j] - rowDot);
    dpre[a + j] = g;
    dq = qkv_axpy(dq, g, select(suf, pre, j < p.S) + j * C3e);
  }
  dqkv_store_scaled(r * C3e + h * HD4, dq);
}
//<<BQ
//>>BKV
// Both sums of one query row qr: sk += dpre_ij·q_qr, sv += att_ij·dout_qr (e ascending within each).

fn kv_add(acc: KV, qr: u32, ij: u32, h: u32, Ce: u32, C3e: u32) -> KV {
  var x = acc;
  x.k = qkv_axpy(x.k, dpre[ij], qr * C3e + h * HD4);
  let w = att[ij];
  let o = qr * Ce + h * HD4;
  x.v.v0 += w * dout[o];
  if (HD4 > 1u) { x.v.v1 += w * dout[o + 1u]; }
  if (HD4 > 2u) { x.v.v2 += w * dout[o + 2u]; }
  if (HD4 > 3u) { x.v.v3 += w * dout[o + 3u]; }
  if (HD4 > 4u) { x.v.v4 += w * dout[o + 4u]; }
  if (HD4 > 5u) { x.v.v5 += w * dout[o + 5u]; }
  if (HD4 > 6u) { x.v.v6 += w * dout[o + 6u]; }
  if (HD4 > 7u) { x.v.v7 += w * dout[o + 7u]; }
  return x;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let pre = p.nG * p.S;
  if (gid.x >= row_count() * p.NH) { return; }
  let r = gid.x / p.NH;
  let h = gid.x % p.NH;
  let Ce = p.C / 4u;
  let C3e = 3u * Ce;
  let j = row_seq(r).y;
  var acc = KV(v8_zero(), v8_zero());
  if (j < p.S) {
    // A prefix key of group g: its prefix queries i ≥ j once, then every suffix query of the group.
    let g = r / p.S;
    for (var i = j; i < p.S; i++) {
      let qr = g * p.S + i;
      acc = kv_add(acc, qr, (qr * p.NH + h) * p.T + j, h, Ce, C3e);
    }
    for (var c = 0u; c < p.sumG; c++) {
      let base = pre + (g * p.G + c) * p.Rs;
      for (var i = 0u; i < p.Rs; i++) {
        let qr = base + i;
        acc = kv_add(acc, qr, (qr * p.NH + h) * p.T + j, h, Ce, C3e);
      }
    }
  } else {
    // A suffix key of sequence b: its own queries i ≥ j.
    for (var i = j; i < p.T; i++) {
      let qr = r + (i - j);
      acc = kv_add(acc, qr, (qr * p.NH + h) * p.T + j, h, Ce, C3e);
    }
  }
  kv_store(r, h, Ce, C3e, acc);
}
//<<BKV
//<<ROW
//>>QUAD
// A quad: sequence b (a prefix quad: its group's first), position i0 and row r0 of its first
// row, n rows (1–4).
struct Quad { b: u32, i0: u32, r0: u32, n: u32 }

// Quad q: the nG·⌈S/4⌉ prefix quads (group by group), then the B·⌈Rs/4⌉ suffix quads.
fn quad_of(q: u32) -> Quad {
  let QS = (p.S + 3u) / 4u;
  let QR = (p.Rs + 3u) / 4u;
  if (q < p.nG * QS) {
    let g = q / QS;
    let i0 = (q % QS) * 4u;
    return Quad(g * p.G, i0, g * p.S + i0, min(4u, p.S - i0));
  }
  let s = q - p.nG * QS;
  let b = s / QR;
  let k = (s % QR) * 4u;
  return Quad(b, p.S + k, p.nG * p.S + b * p.Rs + k, min(4u, p.Rs - k));
}

fn quad_count() -> u32 {
  return p.nG * ((p.S + 3u) / 4u) + p.nG * p.G * ((p.Rs + 3u) / 4u);
}

//>>FWD
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= quad_count() * p.NH) { return; }
  let qd = quad_of(gid.x / p.NH);
  let h = gid.x % p.NH;
  let Ce = p.C / 4u;
  let C3e = 3u * Ce;
  let b = qd.b;
  let i0 = qd.i0;
  let n = qd.n;
  let last = i0 + n - 1u;
  let a = (qd.r0 * p.NH + h) * p.T; // row 0's scores; row k's at a + k·aS
  let aS = p.NH * p.T;
  let keys = head_keys(b, h, Ce, C3e);
  let pre = keys.x;
  let suf = keys.y;
  let qo = qd.r0 * C3e + h * HD4;
  let q0 = qkv_load(qo);
  var q1 = v8_zero();
  var q2 = v8_zero();
  var q3 = v8_zero();
  if (n > 1u) { q1 = qkv_load(qo + C3e); }
  if (n > 2u) { q2 = qkv_load(qo + 2u * C3e); }
  if (n > 3u) { q3 = qkv_load(qo + 3u * C3e); }
  // Scores and their maxima (row k sees keys j ≤ i0 + k).
  var m0 = -3.0e38; var m1 = -3.0e38; var m2 = -3.0e38; var m3 = -3.0e38;
  for (var j = 0u; j <= last; j++) {
    if (!keyOk(b, j)) { continue; }
    let k = qkv_load(select(suf, pre, j < p.S) + j * C3e);
    if (j <= i0) { let s = dot8(q0, k) * p.scale; att[a + j] = s; m0 = max(m0, s); }
    if (n > 1u && j <= i0 + 1u) { let s = dot8(q1, k) * p.scale; att[a + aS + j] = s; m1 = max(m1, s); }
    if (n > 2u && j <= i0 + 2u) { let s = dot8(q2, k) * p.scale; att[a + 2u * aS + j] = s; m2 = max(m2, s); }
    if (n > 3u && j <= i0 + 3u) { let s = dot8(q3, k) * p.scale; att[a + 3u * aS + j] = s; m3 = max(m3, s); }
  }
  // exp(s − max) (0 for masked keys) and their sums.
  var l0 = 0.0; var l1 = 0.0; var l2 = 0.0; var l3 = 0.0;
  for (var j = 0u; j <= last; j++) {
    let ok = keyOk(b, j);
    if (j <= i0) { let e = a + j; var ev = 0.0; if (ok) { ev = exp(att[e] - m0); } att[e] = ev; l0 += ev; }
    if (n > 1u && j <= i0 + 1u) { let e = a + aS + j; var ev = 0.0; if (ok) { ev = exp(att[e] - m1); } att[e] = ev; l1 += ev; }
    if (n > 2u && j <= i0 + 2u) { let e = a + 2u * aS + j; var ev = 0.0; if (ok) { ev = exp(att[e] - m2); } att[e] = ev; l2 += ev; }
    if (n > 3u && j <= i0 + 3u) { let e = a + 3u * aS + j; var ev = 0.0; if (ok) { ev = exp(att[e] - m3); } att[e] = ev; l3 += ev; }
  }
  let inv0 = 1.0 / l0; // rows past n: unused
  let inv1 = 1.0 / l1;
  let inv2 = 1.0 / l2;
  let inv3 = 1.0 / l3;
  // Probabilities, and the outputs Σ_j p_ij·v_j.
  var o0 = v8_zero(); var o1 = v8_zero(); var o2 = v8_zero(); var o3 = v8_zero();
  for (var j = 0u; j <= last; j++) {
    let v = qkv_load(select(suf, pre, j < p.S) + j * C3e + Ce);
    if (j <= i0) { let e = a + j; let w = att[e] * inv0; att[e] = w; o0 = axpy8(o0, w, v); }
    if (n > 1u && j <= i0 + 1u) { let e = a + aS + j; let w = att[e] * inv1; att[e] = w; o1 = axpy8(o1, w, v); }
    if (n > 2u && j <= i0 + 2u) { let e = a + 2u * aS + j; let w = att[e] * inv2; att[e] = w; o2 = axpy8(o2, w, v); }
    if (n > 3u && j <= i0 + 3u) { let e = a + 3u * aS + j; let w = att[e] * inv3; att[e] = w; o3 = axpy8(o3, w, v); }
  }
  let ob = qd.r0 * Ce + h * HD4;
  out_store(ob, o0);
  if (n > 1u) { out_store(ob + Ce, o1); }
  if (n > 2u) { out_store(ob + 2u * Ce, o2); }
  if (n > 3u) { out_store(ob + 3u * Ce, o3); }
}
//<<FWD
//>>BQ
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= quad_count() * p.NH) { return; }
  let qd = quad_of(gid.x / p.NH);
  let h = gid.x % p.NH;
  let Ce = p.C / 4u;
  let C3e = 3u * Ce;
  let i0 = qd.i0;
  let n = qd.n;
  let last = i0 + n - 1u;
  let a = (qd.r0 * p.NH + h) * p.T;
  let aS = p.NH * p.T;
  let ob = qd.r0 * Ce + h * HD4;
  let d0 = dout_load(ob);
  var d1 = v8_zero();
  var d2 = v8_zero();
  var d3 = v8_zero();
  if (n > 1u) { d1 = dout_load(ob + Ce); }
  if (n > 2u) { d2 = dout_load(ob + 2u * Ce); }
  if (n > 3u) { d3 = dout_load(ob + 3u * Ce); }
  let keys = head_keys(qd.b, h, Ce, C3e);
  let pre = keys.x;
  let suf = keys.y;
  // datt_ij = dout_i·v_j into dpre, and each row's Σ_j att_ij·datt_ij.
  var t0 = 0.0; var t1 = 0.0; var t2 = 0.0; var t3 = 0.0;
  for (var j = 0u; j <= last; j++) {
    let v = qkv_load(select(suf, pre, j < p.S) + j * C3e + Ce);
    if (j <= i0) { let e = a + j; let s = dot8(d0, v); dpre[e] = s; t0 += att[e] * s; }
    if (n > 1u && j <= i0 + 1u) { let e = a + aS + j; let s = dot8(d1, v); dpre[e] = s; t1 += att[e] * s; }
    if (n > 2u && j <= i0 + 2u) { let e = a + 2u * aS + j; let s = dot8(d2, v); dpre[e] = s; t2 += att[e] * s; }
    if (n > 3u && j <= i0 + 3u) { let e = a + 3u * aS + j; let s = dot8(d3, v); dpre[e] = s; t3 += att[e] * s; }
  }
  // dpre_ij = att_ij·(datt_ij − Σ), and dq_i = Σ_j dpre_ij·k_j.
  var g0 = v8_zero(); var g1 = v8_zero(); var g2 = v8_zero(); var g3 = v8_zero();
  for (var j = 0u; j <= last; j++) {
    let k = qkv_load(select(suf, pre, j < p.S) + j * C3e);
    if (j <= i0) { let e = a + j; let g = att[e] * (dpre[e] - t0); dpre[e] = g; g0 = axpy8(g0, g, k); }
    if (n > 1u && j <= i0 + 1u) { let e = a + aS + j; let g = att[e] * (dpre[e] - t1); dpre[e] = g; g1 = axpy8(g1, g, k); }
    if (n > 2u && j <= i0 + 2u) { let e = a + 2u * aS + j; let g = att[e] * (dpre[e] - t2); dpre[e] = g; g2 = axpy8(g2, g, k); }
    if (n > 3u && j <= i0 + 3u) { let e = a + 3u * aS + j; let g = att[e] * (dpre[e] - t3); dpre[e] = g; g3 = axpy8(g3, g, k); }
  }
  let q = qd.r0 * C3e + h * HD4;
  dqkv_store_scaled(q, g0);
  if (n > 1u) { dqkv_store_scaled(q + C3e, g1); }
  if (n > 2u) { dqkv_store_scaled(q + 2u * C3e, g2); }
  if (n > 3u) { dqkv_store_scaled(q + 3u * C3e, g3); }
}
//<<BQ
//>>BKV
// One query's terms (its q and dout loaded once for the quad's keys).
fn kv_add(acc: KV, q: V8, d: V8, ij: u32) -> KV {
  return KV(axpy8(acc.k, dpre[ij], q), axpy8(acc.v, att[ij], d));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= quad_count() * p.NH) { return; }
  let qd = quad_of(gid.x / p.NH);
  let h = gid.x % p.NH;
  let Ce = p.C / 4u;
  let C3e = 3u * Ce;
  let j0 = qd.i0; // the quad's keys are positions j0 … j0 + n − 1
  let n = qd.n;
  let z = KV(v8_zero(), v8_zero());
  var s0 = z; var s1 = z; var s2 = z; var s3 = z;
  if (j0 < p.S) {
    // Prefix keys of group g: its prefix queries i ≥ j once, then every suffix query of the group.
    let g = qd.b / p.G;
    for (var i = j0; i < p.S; i++) {
      let qr = g * p.S + i;
      let q = qkv_load(qr * C3e + h * HD4);
      let d = dout_load(qr * Ce + h * HD4);
      let e = (qr * p.NH + h) * p.T + j0;
      s0 = kv_add(s0, q, d, e);
      if (n > 1u && i >= j0 + 1u) { s1 = kv_add(s1, q, d, e + 1u); }
      if (n > 2u && i >= j0 + 2u) { s2 = kv_add(s2, q, d, e + 2u); }
      if (n > 3u && i >= j0 + 3u) { s3 = kv_add(s3, q, d, e + 3u); }
    }
    for (var c = 0u; c < p.sumG; c++) {
      let base = p.nG * p.S + (g * p.G + c) * p.Rs;
      for (var i = 0u; i < p.Rs; i++) {
        let qr = base + i;
        let q = qkv_load(qr * C3e + h * HD4);
        let d = dout_load(qr * Ce + h * HD4);
        let e = (qr * p.NH + h) * p.T + j0;
        s0 = kv_add(s0, q, d, e);
        if (n > 1u) { s1 = kv_add(s1, q, d, e + 1u); }
        if (n > 2u) { s2 = kv_add(s2, q, d, e + 2u); }
        if (n > 3u) { s3 = kv_add(s3, q, d, e + 3u); }
      }
    }
  } else {
    // Suffix keys of sequence b: its own queries i ≥ j.
    for (var i = j0; i < p.T; i++) {
      let qr = qd.r0 + (i - j0);
      let q = qkv_load(qr * C3e + h * HD4);
      let d = dout_load(qr * Ce + h * HD4);
      let e = (qr * p.NH + h) * p.T + j0;
      s0 = kv_add(s0, q, d, e);
      if (n > 1u && i >= j0 + 1u) { s1 = kv_add(s1, q, d, e + 1u); }
      if (n > 2u && i >= j0 + 2u) { s2 = kv_add(s2, q, d, e + 2u); }
      if (n > 3u && i >= j0 + 3u) { s3 = kv_add(s3, q, d, e + 3u); }
    }
  }
  kv_store(qd.r0, h, Ce, C3e, s0);
  if (n > 1u) { kv_store(qd.r0 + 1u, h, Ce, C3e, s1); }
  if (n > 2u) { kv_store(qd.r0 + 2u, h, Ce, C3e, s2); }
  if (n > 3u) { kv_store(qd.r0 + 3u, h, Ce, C3e, s3); }
}
//<<BKV
//<<QUAD
