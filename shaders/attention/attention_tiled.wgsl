// attention_tiled: the training attention (same contracts as
// attention_forward.wgsl, attention_backward_q.wgsl and
// attention_backward_kv.wgsl: causal, PAD text keys masked, probabilities att
// and dpre [B, NH, T, T] stored) for real GPUs: a workgroup of 64 invocations
// owns 64 rows of one (sequence, head) and stages the rows it reads from
// every invocation (k and v for a query block; q and dout for a key block)
// in workgroup memory, KT = 32 rows × HD channels at a time, so each is read
// from global memory once per block instead of once per row. HD (the head
// size, ≤ 32) is a constant of the spec. One source, three blocks:
//   FWD  scores into att, softmax, out = att·v      (invocation = query row i)
//   BQ   dpre = att·(dout·v − Σ att·dout·v), dq     (invocation = query row i)
//   BKV  dk = scale·Σ_i dpre_ij q_i, dv = Σ_i att_ij dout_i   (invocation = key row j)
// Rows past T and keys past a row's causal limit are masked inside the
// loops; every barrier sits in control flow uniform over the workgroup.
// CPU adapters get the one-invocation-per-row kernels instead: workgroup
// memory only adds barriers there (docs/design.md).
// Dispatch: B·NH·ceil(T/64) workgroups, x only.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

const KT: u32 = 32u;
const RB: u32 = 64u;

var<workgroup> S1: array<f32, KT * HD>; // FWD: k then v rows; BQ: v then k rows; BKV: q rows
var<workgroup> S2: array<f32, KT * HD>; // BKV: dout rows
var<workgroup> okS: array<u32, KT>;

// Index of channel e of column block `col` in row r of sequence b of a [B, T, W] tensor.
fn rowOf(b: u32, r: u32, W: u32, col: u32, e: u32) -> u32 {
  return (b * p.T + r) * W + col + e;
}

// Workgroup w → (64-row block, sequence, head): blocks of one (b, h) are consecutive.
struct Tile { blk: u32, b: u32, h: u32 }

fn tileOf(w: u32) -> Tile {
  let nBlk = (p.T + RB - 1u) / RB;
  let bh = w / nBlk;
  return Tile(w % nBlk, bh / p.NH, bh % p.NH);
}

// Stages rows r0 .. r0+KT−1 (zeros past T) of the qkv columns col .. col+HD−1
// of sequence b into S1; the 64 invocations of the workgroup share the loads.
fn stageQkv(b: u32, r0: u32, col: u32, lid: u32) {
  for (var x = lid; x < KT * HD; x += RB) {
    let r = r0 + x / HD;
    S1[x] = select(0.0, qkv[rowOf(b, min(r, p.T - 1u), 3u * p.C, col, x % HD)], r < p.T);
  }
}

//>>FWD
fn keyOk(b: u32, j: u32) -> bool {
  return j < p.P || tokens[b * p.L + j - p.P] != p.padId;
}

// Stages whether keys j0 .. j0+KT−1 may be attended (in range, not a PAD text token).
fn stageKeyOk(b: u32, j0: u32, lid: u32) {
  if (lid < KT) { okS[lid] = select(0u, 1u, j0 + lid < p.T && keyOk(b, min(j0 + lid, p.T - 1u))); }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let t = tileOf(wid.x);
  let blk = t.blk; let b = t.b; let h = t.h;
  let i = blk * RB + lid;
  let valid = i < p.T;
  let C3 = 3u * p.C;
  let a = ((b * p.NH + h) * p.T + min(i, p.T - 1u)) * p.T;
  var q: array<f32, HD>;
  var acc: array<f32, HD>;
  for (var e = 0u; e < HD; e++) {
    q[e] = select(0.0, qkv[rowOf(b, min(i, p.T - 1u), C3, h * HD, e)] * p.scale, valid);
    acc[e] = 0.0;
  }
  let lastKey = min(p.T, blk * RB + RB); // keys 0 .. lastKey−1 serve this block
  var maxv = -3.0e38;
  for (var j0 = 0u; j0 < lastKey; j0 += KT) {
    stageQkv(b, j0, p.C + h * HD, lid);
    stageKeyOk(b, j0, lid);
    workgroupBarrier();
    if (valid) {
      for (var jj = 0u; jj < KT; jj++) {
        let j = j0 + jj;
        if (j <= i && okS[jj] == 1u) {
          var s = 0.0;
          for (var e = 0u; e < HD; e++) { s += q[e] * S1[jj * HD + e]; }
          att[a + j] = s;
          maxv = max(maxv, s);
        }
      }
    }
    workgroupBarrier();
  }
  var sum = 0.0;
  for (var j0 = 0u; j0 < lastKey; j0 += KT) {
    stageQkv(b, j0, 2u * p.C + h * HD, lid);
    stageKeyOk(b, j0, lid);
    workgroupBarrier();
    if (valid) {
      for (var jj = 0u; jj < KT; jj++) {
        let j = j0 + jj;
        if (j <= i) {
          var ev = 0.0;
          if (okS[jj] == 1u) { ev = exp(att[a + j] - maxv); }
          att[a + j] = ev;
          sum += ev;
          for (var e = 0u; e < HD; e++) { acc[e] += ev * S1[jj * HD + e]; }
        }
      }
    }
    workgroupBarrier();
  }
  if (!valid) { return; }
  let inv = 1.0 / sum;
  for (var j = 0u; j <= i; j++) { att[a + j] *= inv; }
  for (var j = i + 1u; j < p.T; j++) { att[a + j] = 0.0; }
  for (var e = 0u; e < HD; e++) { out[rowOf(b, i, p.C, h * HD, e)] = acc[e] * inv; }
}
//<<FWD

//>>BQ
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let t = tileOf(wid.x);
  let blk = t.blk; let b = t.b; let h = t.h;
  let i = blk * RB + lid;
  let valid = i < p.T;
  let C3 = 3u * p.C;
  let a = ((b * p.NH + h) * p.T + min(i, p.T - 1u)) * p.T;
  var d: array<f32, HD>;
  var dq: array<f32, HD>;
  for (var e = 0u; e < HD; e++) {
    d[e] = select(0.0, dout[rowOf(b, min(i, p.T - 1u), p.C, h * HD, e)], valid);
    dq[e] = 0.0;
  }
  let lastKey = min(p.T, blk * RB + RB);
  var dot_ = 0.0;
  for (var j0 = 0u; j0 < lastKey; j0 += KT) {
    stageQkv(b, j0, 2u * p.C + h * HD, lid);
    workgroupBarrier();
    if (valid) {
      for (var jj = 0u; jj < KT; jj++) {
        let j = j0 + jj;
        if (j <= i) {
          var s = 0.0;
          for (var e = 0u; e < HD; e++) { s += d[e] * S1[jj * HD + e]; }
          dpre[a + j] = s;
          dot_ += att[a + j] * s;
        }
      }
    }
    workgroupBarrier();
  }
  for (var j0 = 0u; j0 < lastKey; j0 += KT) {
    stageQkv(b, j0, p.C + h * HD, lid);
    workgroupBarrier();
    if (valid) {
      for (var jj = 0u; jj < KT; jj++) {
        let j = j0 + jj;
        if (j <= i) {
          let g = att[a + j] * (dpre[a + j] - dot_);
          dpre[a + j] = g;
          for (var e = 0u; e < HD; e++) { dq[e] += g * S1[jj * HD + e]; }
        }
      }
    }
    workgroupBarrier();
  }
  if (!valid) { return; }
  for (var j = i + 1u; j < p.T; j++) { dpre[a + j] = 0.0; }
  for (var e = 0u; e < HD; e++) { dqkv[rowOf(b, i, C3, h * HD, e)] = dq[e] * p.scale; }
}
//<<BQ

//>>BKV
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let t = tileOf(wid.x);
  let blk = t.blk; let b = t.b; let h = t.h;
  let j = blk * RB + lid;
  let valid = j < p.T;
  let C3 = 3u * p.C;
  let base = (b * p.NH + h) * p.T * p.T;
  var sk: array<f32, HD>;
  var sv: array<f32, HD>;
  for (var e = 0u; e < HD; e++) { sk[e] = 0.0; sv[e] = 0.0; }
  // Queries i ≥ j: from the block's first key row to the end.
  for (var i0 = blk * RB; i0 < p.T; i0 += KT) {
    stageQkv(b, i0, h * HD, lid);
    for (var x = lid; x < KT * HD; x += RB) {
      let i = i0 + x / HD;
      S2[x] = select(0.0, dout[rowOf(b, min(i, p.T - 1u), p.C, h * HD, x % HD)], i < p.T);
    }
    workgroupBarrier();
    if (valid) {
      for (var ii = 0u; ii < KT; ii++) {
        let i = i0 + ii;
        if (i >= j && i < p.T) {
          let ij = base + i * p.T + j;
          let g = dpre[ij];
          let w = att[ij];
          for (var e = 0u; e < HD; e++) {
            sk[e] += g * S1[ii * HD + e];
            sv[e] += w * S2[ii * HD + e];
          }
        }
      }
    }
    workgroupBarrier();
  }
  if (!valid) { return; }
  for (var e = 0u; e < HD; e++) {
    dqkv[rowOf(b, j, C3, p.C + h * HD, e)] = sk[e] * p.scale;
    dqkv[rowOf(b, j, C3, 2u * p.C + h * HD, e)] = sv[e];
  }
}
//<<BKV
