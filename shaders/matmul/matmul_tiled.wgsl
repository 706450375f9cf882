// matmul_tiled: the three training matmuls (same contracts as
// matmul_forward.wgsl, matmul_backward_dx.wgsl, matmul_backward_dw.wgsl, any
// sizes) as one workgroup-memory tiled product for discrete GPUs:
//   C[R, S] = Σ_t A(r, t) · Bm(t, s)
//   FWD: R = M, S = N, t over K: A = x [M, K],   Bm = w [K, N];  y = C (+ bias) (+ res)
//   DX:  R = M, S = K, t over N: A = dy [M, N],  Bm = wᵀ;        dx = C (or += with flags bit 0)
//   DW:  R = K, S = N, t over M: A = xᵀ,         Bm = dy [M, N]; dw += C; tile row R/64
//        (only with flags bit 0) sums dy's columns into dbias instead.
// A workgroup of 256 invocations owns a 64×64 tile of C; per step of 16 along
// t it stages a 64×16 slab of A and a 16×64 slab of Bm in workgroup memory
// (each invocation loads 4 of each), then every invocation accumulates its
// 4×4 block from them (llm.c's / CUTLASS's classic shared-memory tiling).
// CPU adapters get the register-blocked kernels instead (no workgroup memory:
// there it only adds barriers; docs/design.md). Deterministic: every output
// sums over t in order.
// Dispatch: ceil(R/64)·ceil(S/64) workgroups (+ ceil(S/64) for DW's dbias), x only.
// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

const TILE: u32 = 64u;
const TK: u32 = 16u;

var<workgroup> As: array<f32, 1024>; // [TK, TILE]: As[t·64 + r]
var<workgroup> Bs: array<f32, 1024>; // [TK, TILE]: Bs[t·64 + s]

//>>FWD
fn dimR() -> u32 { return p.M; }
fn dimS() -> u32 { return p.N; }
fn dimT() -> u32 { return p.K; }
fn loadA(r: u32, t: u32) -> f32 { return x[r * p.K + t]; }
fn loadB(t: u32, s: u32) -> f32 { return w[t * p.N + s]; }
fn store(r: u32, s: u32, v: f32) {
  var o = v;
  if ((p.flags & 1u) != 0u) { o += bias[s]; }
  if ((p.flags & 2u) != 0u) { o += res[r * p.N + s]; }
  y[r * p.N + s] = o;
}
fn biasTile(tile: u32, lid: u32) {}
const A_T_FAST: bool = true; // x [M, K]: t contiguous
const B_T_FAST: bool = false; // w [K, N]: s contiguous
//<<FWD
//>>DX
fn dimR() -> u32 { return p.M; }
fn dimS() -> u32 { return p.K; }
fn dimT() -> u32 { return p.N; }
fn loadA(r: u32, t: u32) -> f32 { return dy[r * p.N + t]; }
fn loadB(t: u32, s: u32) -> f32 { return w[s * p.N + t]; }
fn store(r: u32, s: u32, v: f32) {
  if ((p.flags & 1u) != 0u) { dx[r * p.K + s] += v; } else { dx[r * p.K + s] = v; }
}
fn biasTile(tile: u32, lid: u32) {}
const A_T_FAST: bool = true; // dy [M, N]: t contiguous
const B_T_FAST: bool = true; // w [K, N] read as wᵀ: t contiguous
//<<DX
//>>DW
fn dimR() -> u32 { return p.K; }
fn dimS() -> u32 { return p.N; }
fn dimT() -> u32 { return p.M; }
fn loadA(r: u32, t: u32) -> f32 { return x[t * p.K + r]; }
fn loadB(t: u32, s: u32) -> f32 { return dy[t * p.N + s]; }
fn store(r: u32, s: u32, v: f32) { dw[r * p.N + s] += v; }
// Column sums of dy for the 64 columns of this tile, one invocation per column.
fn biasTile(tile: u32, lid: u32) {
  let s = tile * TILE + lid;
  if (lid >= TILE || s >= p.N) { return; }
  var acc = 0.0;
  for (var m = 0u; m < p.M; m++) { acc += dy[m * p.N + s]; }
  dbias[s] += acc;
}
const A_T_FAST: bool = false; // x [M, K] read as xᵀ: r contiguous
const B_T_FAST: bool = false; // dy [M, N]: s contiguous
//<<DW

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let R = dimR();
  let S = dimS();
  let Tn = dimT();
  let tilesS = (S + TILE - 1u) / TILE;
  let tileR = wid.x / tilesS;
  let tileS = wid.x % tilesS;
  if (tileR * TILE >= R) {
    // Past the last tile row: only DW with a bias dispatches these (one per column tile).
    biasTile(tileS, lid);
    return;
  }
  let r0 = tileR * TILE;
  let s0 = tileS * TILE;
  let tr = (lid / 16u) * 4u; // this invocation's 4×4 block inside the tile
  let ts = (lid % 16u) * 4u;
  var acc: array<f32, 16>;
  for (var i = 0u; i < 16u; i++) { acc[i] = 0.0; }
  for (var t0 = 0u; t0 < Tn; t0 += TK) {
    // Stage: element e = lid + 256·q of each 64×16 slab (zero outside the
    // matrices), neighbouring invocations on neighbouring addresses.
    for (var q = 0u; q < 4u; q++) {
      let e = lid + 256u * q;
      let ra = select(e % TILE, e / TK, A_T_FAST);
      let ta = select(e / TILE, e % TK, A_T_FAST);
      var a = 0.0;
      if (r0 + ra < R && t0 + ta < Tn) { a = loadA(r0 + ra, t0 + ta); }
      As[ta * TILE + ra] = a;
      let sb = select(e % TILE, e / TK, B_T_FAST);
      let tb = select(e / TILE, e % TK, B_T_FAST);
      var bv = 0.0;
      if (s0 + sb < S && t0 + tb < Tn) { bv = loadB(t0 + tb, s0 + sb); }
      Bs[tb * TILE + sb] = bv;
    }
    workgroupBarrier();
    for (var tt = 0u; tt < TK; tt++) {
      let a = vec4f(As[tt * TILE + tr], As[tt * TILE + tr + 1u], As[tt * TILE + tr + 2u], As[tt * TILE + tr + 3u]);
      let bv = vec4f(Bs[tt * TILE + ts], Bs[tt * TILE + ts + 1u], Bs[tt * TILE + ts + 2u], Bs[tt * TILE + ts + 3u]);
      for (var i = 0u; i < 4u; i++) {
        for (var j = 0u; j < 4u; j++) { acc[i * 4u + j] += a[i] * bv[j]; }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    for (var j = 0u; j < 4u; j++) {
      let r = r0 + tr + i;
      let s = s0 + ts + j;
      if (r < R && s < S) { store(r, s, acc[i * 4u + j]); }
    }
  }
}
