// attention_prefix: the training attention (causal, PAD key mask, model
// semantics of src/kernels/attention/reference.ts) on the prefix layout of a
// shared-prefix step (src/model/prefix-layout.ts; prefix_row_seq in
// shaders/prelude.wgsl): B = nG·G sequences in nG
// groups of G whose first S positions are the same in every sequence of a
// group (image and prompt), T = S + Rs positions per sequence. Their rows:
//   rows [0, nG·S)          prefix row g·S + t: position t < S of group g
//                           (computed once; it stands for every sequence of g)
//   rows [nG·S, +B·Rs)      suffix row nG·S + b·Rs + (t − S): position t ≥ S of
//                           sequence b
// S = 0 is the plain layout [B, T]. qkv [rows, 3C] holds q | k | v along the
// last axis (vec4 elements: head size C/NH % 4 = 0, Ce = C/4 elements per row);
// head h uses elements h·hse … of each (hse = Ce/NH). Query (b, i) attends key
// (b, j) iff j ≤ i and key j is not a PAD text token (j ≥ P and
// tokens[b, j − P] = padId); a prefix query attends its group's prefix keys, a
// suffix query its group's prefix keys and its own suffix keys.
// att and dpre are [rows, NH, T]: entry (r·NH + h)·T + j is query row r's
// probability (gradient) at key position j (0 for masked keys; j > i unwritten).
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

fn row_seq(r: u32) -> vec2u { return prefix_row_seq(r, p.nG, p.G, p.S, p.Rs); }

// Element offset of the qkv row of key position j of sequence b, less j·C3e: the prefix base
// below S, the suffix base from S on (phys(b, j) = base·C3e + j·C3e; divisions kept out of the loops).
fn key_base(b: u32, j: u32, C3e: u32) -> u32 {
  let pre = (b / p.G) * p.S;
  let suf = p.nG * p.S + b * p.Rs - p.S;
  return select(suf, pre, j < p.S) * C3e;
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
  let hse = Ce / p.NH;
  let C3e = 3u * Ce;
  let bt = row_seq(r);
  let b = bt.x;
  let i = bt.y;
  let a = (r * p.NH + h) * p.T;
  let q = r * C3e + h * hse;
  let pre = key_base(b, 0u, C3e) + Ce + h * hse; // key j < S at pre + j·C3e
  let suf = key_base(b, p.S, C3e) + Ce + h * hse; // key j ≥ S at suf + j·C3e
  var maxv = -3.0e38;
  for (var j = 0u; j <= i; j++) {
    if (!keyOk(b, j)) { continue; }
    let k = select(suf, pre, j < p.S) + j * C3e;
    var s = 0.0;
    for (var e = 0u; e < hse; e++) { s += dot(qkv[q + e], qkv[k + e]); }
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
  let o = r * Ce + h * hse;
  for (var e = 0u; e < hse; e++) {
    var s = vec4f(0.0);
    for (var j = 0u; j <= i; j++) { s += att[a + j] * qkv[select(suf, pre, j < p.S) + j * C3e + Ce + e]; }
    out[o + e] = s;
  }
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
  let hse = Ce / p.NH;
  let C3e = 3u * Ce;
  let bt = row_seq(r);
  let b = bt.x;
  let i = bt.y;
  let a = (r * p.NH + h) * p.T;
  let o = r * Ce + h * hse;
  let pre = key_base(b, 0u, C3e) + Ce + h * hse; // key j < S at pre + j·C3e (its v: + Ce)
  let suf = key_base(b, p.S, C3e) + Ce + h * hse; // key j ≥ S at suf + j·C3e
  var rowDot = 0.0;
  for (var j = 0u; j <= i; j++) {
    let v = select(suf, pre, j < p.S) + j * C3e + Ce;
    var s = 0.0;
    for (var e = 0u; e < hse; e++) { s += dot(dout[o + e], qkv[v + e]); }
    dpre[a + j] = s;
    rowDot += att[a + j] * s;
  }
  for (var j = 0u; j <= i; j++) { dpre[a + j] = att[a + j] * (dpre[a + j] - rowDot); }
  let q = r * C3e + h * hse;
  for (var e = 0u; e < hse; e++) {
    var s = vec4f(0.0);
    for (var j = 0u; j <= i; j++) { s += dpre[a + j] * qkv[select(suf, pre, j < p.S) + j * C3e + e]; }
    dqkv[q + e] = s * p.scale;
  }
}
//<<BQ
//>>BKV
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let pre = p.nG * p.S;
  let rows = pre + p.nG * p.G * p.Rs;
  if (gid.x >= rows * p.NH) { return; }
  let r = gid.x / p.NH;
  let h = gid.x % p.NH;
  let Ce = p.C / 4u;
  let hse = Ce / p.NH;
  let C3e = 3u * Ce;
  let bt = row_seq(r);
  let j = bt.y;
  let k = r * C3e + Ce + h * hse;
  for (var e = 0u; e < hse; e++) {
    var sk = vec4f(0.0);
    var sv = vec4f(0.0);
    if (j < p.S) {
      // A prefix key of group g: its prefix queries i ≥ j once, then every suffix query of the group.
      let g = r / p.S;
      for (var i = j; i < p.S; i++) {
        let qr = g * p.S + i;
        let ij = (qr * p.NH + h) * p.T + j;
        sk += dpre[ij] * qkv[qr * C3e + h * hse + e];
        sv += att[ij] * dout[qr * Ce + h * hse + e];
      }
      for (var c = 0u; c < p.sumG; c++) {
        let base = pre + (g * p.G + c) * p.Rs;
        for (var i = 0u; i < p.Rs; i++) {
          let qr = base + i;
          let ij = (qr * p.NH + h) * p.T + j;
          sk += dpre[ij] * qkv[qr * C3e + h * hse + e];
          sv += att[ij] * dout[qr * Ce + h * hse + e];
        }
      }
    } else {
      // A suffix key of sequence b: its own queries i ≥ j.
      for (var i = j; i < p.T; i++) {
        let qr = r + (i - j);
        let ij = (qr * p.NH + h) * p.T + j;
        sk += dpre[ij] * qkv[qr * C3e + h * hse + e];
        sv += att[ij] * dout[qr * Ce + h * hse + e];
      }
    }
    dqkv[k + e] = sk * p.scale;
    dqkv[k + Ce + e] = sv;
  }
}
//<<BKV
