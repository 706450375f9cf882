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
// The head's vectors (q, dout, the accumulators) live in up to 8 named vec4
// registers (V8; the ones past HD4 compile away): on SwiftShader a private
// array indexed in a loop lives in memory. Every sum runs in the order of the
// plain kernels (attention_forward / _backward_q / _backward_kv: over e, then
// over keys or queries ascending).
// Blocks (src/kernels/attention/spec.ts):
//   FWD  out [rows, C] and att; one invocation per (row, head)
//   BQ   pass 1 of the backward: dpre and the q part of dqkv, one invocation
//        per (query row, head): datt_ij = dout_i·v_j,
//        dpre_ij = att_ij·(datt_ij − Σ_k att_ik·datt_ik), dq_i = scale·Σ_j dpre_ij·k_j
//   BKV  pass 2: the k and v parts of dqkv, one invocation per (key row,
//        head) summing over the queries that saw it: dk_j = scale·Σ_i dpre_ij·q_i,
//        dv_j = Σ_i att_ij·dout_i. A prefix key sums over its group's prefix
//        queries once and over the suffix queries of the first sumG sequences
//        of its group (sumG = G: every sequence; a smaller sumG only to show
//        that the tests catch a broken sum). Deterministic, no atomics.
// Dispatch: ceil(rows·NH / 64) workgroups (x).
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

const HD4: u32 = HD / 4u;

fn row_seq(r: u32) -> vec2u { return prefix_row_seq(r, p.nG, p.G, p.S, p.Rs); }

// Element offset of the qkv row of key position j of sequence b, less j·C3e: the prefix base
// below S, the suffix base from S on (phys(b, j) = base·C3e + j·C3e; divisions kept out of the loops).
fn key_base(b: u32, j: u32, C3e: u32) -> u32 {
  let pre = (b / p.G) * p.S;
  let suf = p.nG * p.S + b * p.Rs - p.S;
  return select(suf, pre, j < p.S) * C3e;
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
fn keyOk(b: u32, j: u32) -> bool {
  return j < p.P || tokens[b * p.L + j - p.P] != p.padId;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let rows = p.nG * p.S + p.nG * p.G * p.Rs;
  if (gid.x >= rows * p.NH) { return; }
  let r = gid.x / p.NH;
  let h = gid.x % p.NH;
  let Ce = p.C / 4u;
  let C3e = 3u * Ce;
  let bt = row_seq(r);
  let b = bt.x;
  let i = bt.y;
  let a = (r * p.NH + h) * p.T;
  let q = qkv_load(r * C3e + h * HD4);
  let pre = key_base(b, 0u, C3e) + Ce + h * HD4; // key j < S at pre + j·C3e (its v: + Ce)
  let suf = key_base(b, p.S, C3e) + Ce + h * HD4; // key j ≥ S at suf + j·C3e
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
  let ob = r * Ce + h * HD4;
  out[ob] = o.v0;
  if (HD4 > 1u) { out[ob + 1u] = o.v1; }
  if (HD4 > 2u) { out[ob + 2u] = o.v2; }
  if (HD4 > 3u) { out[ob + 3u] = o.v3; }
  if (HD4 > 4u) { out[ob + 4u] = o.v4; }
  if (HD4 > 5u) { out[ob + 5u] = o.v5; }
  if (HD4 > 6u) { out[ob + 6u] = o.v6; }
  if (HD4 > 7u) { out[ob + 7u] = o.v7; }
}
//<<FWD
//>>BQ
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let rows = p.nG * p.S + p.nG * p.G * p.Rs;
  if (gid.x >= rows * p.NH) { return; }
  let r = gid.x / p.NH;
  let h = gid.x % p.NH;
  let Ce = p.C / 4u;
  let C3e = 3u * Ce;
  let bt = row_seq(r);
  let b = bt.x;
  let i = bt.y;
  let a = (r * p.NH + h) * p.T;
  let ob = r * Ce + h * HD4;
  var d = v8_zero();
  d.v0 = dout[ob];
  if (HD4 > 1u) { d.v1 = dout[ob + 1u]; }
  if (HD4 > 2u) { d.v2 = dout[ob + 2u]; }
  if (HD4 > 3u) { d.v3 = dout[ob + 3u]; }
  if (HD4 > 4u) { d.v4 = dout[ob + 4u]; }
  if (HD4 > 5u) { d.v5 = dout[ob + 5u]; }
  if (HD4 > 6u) { d.v6 = dout[ob + 6u]; }
  if (HD4 > 7u) { d.v7 = dout[ob + 7u]; }
  let pre = key_base(b, 0u, C3e) + Ce + h * HD4; // key j < S at pre + j·C3e (its v: + Ce)
  let suf = key_base(b, p.S, C3e) + Ce + h * HD4; // key j ≥ S at suf + j·C3e
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
  let q = r * C3e + h * HD4;
  dqkv[q] = dq.v0 * p.scale;
  if (HD4 > 1u) { dqkv[q + 1u] = dq.v1 * p.scale; }
  if (HD4 > 2u) { dqkv[q + 2u] = dq.v2 * p.scale; }
  if (HD4 > 3u) { dqkv[q + 3u] = dq.v3 * p.scale; }
  if (HD4 > 4u) { dqkv[q + 4u] = dq.v4 * p.scale; }
  if (HD4 > 5u) { dqkv[q + 5u] = dq.v5 * p.scale; }
  if (HD4 > 6u) { dqkv[q + 6u] = dq.v6 * p.scale; }
  if (HD4 > 7u) { dqkv[q + 7u] = dq.v7 * p.scale; }
}
//<<BQ
//>>BKV
// Both sums of one query row qr: sk += dpre_ij·q_qr, sv += att_ij·dout_qr (e ascending within each).
struct KV { k: V8, v: V8 }

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
  let rows = pre + p.nG * p.G * p.Rs;
  if (gid.x >= rows * p.NH) { return; }
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
  let k = r * C3e + Ce + h * HD4;
  let v = k + Ce;
  dqkv[k] = acc.k.v0 * p.scale;
  dqkv[v] = acc.v.v0;
  if (HD4 > 1u) { dqkv[k + 1u] = acc.k.v1 * p.scale; dqkv[v + 1u] = acc.v.v1; }
  if (HD4 > 2u) { dqkv[k + 2u] = acc.k.v2 * p.scale; dqkv[v + 2u] = acc.v.v2; }
  if (HD4 > 3u) { dqkv[k + 3u] = acc.k.v3 * p.scale; dqkv[v + 3u] = acc.v.v3; }
  if (HD4 > 4u) { dqkv[k + 4u] = acc.k.v4 * p.scale; dqkv[v + 4u] = acc.v.v4; }
  if (HD4 > 5u) { dqkv[k + 5u] = acc.k.v5 * p.scale; dqkv[v + 5u] = acc.v.v5; }
  if (HD4 > 6u) { dqkv[k + 6u] = acc.k.v6 * p.scale; dqkv[v + 6u] = acc.v.v6; }
  if (HD4 > 7u) { dqkv[k + 7u] = acc.k.v7 * p.scale; dqkv[v + 7u] = acc.v.v7; }
}
//<<BKV
