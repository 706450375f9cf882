// matmul_forward: y [M, N] = x [M, K] · w [K, N] (+ bias [N]) (+ res [M, N]).
//
// Register-blocked, no workgroup memory, no barriers (docs/design.md "Running
// without a GPU": SwiftShader favours this): each invocation owns a block of
// ROWS rows of y (m0 … m0 + ROWS − 1) × COLS elements of VW floats (from
// element column c), one accumulator of type ACC per row. Blocks are
// numbered with columns fastest so neighbouring invocations read
// neighbouring columns of w. Rows past M are clamped for loads and not
// stored. The residual add of the pre-norm blocks is fused here (flags bit 1).
//
// Variants, from the spec's blocks and constants (src/kernels/matmul/spec.ts):
//   SCAL   any M, K, N; f32 bindings, 4×4 blocks (ACC vec4f): per k one
//          vec4 of w (a masked load at a column tail, N % 4 ≠ 0) and four
//          scalars of x, four vec4 FMAs.
//   VEC    K % 4 = 0 and N % 4 = 0; vec4 bindings (TF.js WebGPU matmul
//          style): per step of 4 along k, 4 vec4 rows of w and one vec4 of
//          each x row, a multiply-add per x lane. Measured on SwiftShader
//          (Node): ~1.8× SCAL with a 4×4 block, and the 8×4 block another ~1.2×.
//     V8X4   8 rows × one vec4 column (ACC vec4f): 32 vec4 multiply-adds for
//            12 loads.
//     V16X8  N % 8 = 0: 16 rows × two vec4 columns c, c + 1 (ACC mat2x4f, one
//            matrix column per vec4 column; scalar · matrix and matrix +
//            matrix are per component, so each column is summed exactly as
//            in V8X4): 128 vec4 multiply-adds for 24 loads.
// flags: bit 0 = add bias, bit 1 = add res. Unused bindings may be any buffer.
// Dispatch: ceil(ceil(M/ROWS)·ceil(N/(COLS·VW)) / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

//>>SCAL
fn loadW(k: u32, n0: u32) -> vec4f {
  let i = k * p.N + n0;
  if (n0 + 3u < p.N) { return vec4f(w[i], w[i + 1u], w[i + 2u], w[i + 3u]); }
  var v = vec4f(0.0);
  for (var j = 0u; j < 4u; j++) { if (n0 + j < p.N) { v[j] = w[i + j]; } }
  return v;
}

fn store(m: u32, n0: u32, acc: ACC) {
  if (m >= p.M) { return; }
  var v = acc;
  for (var j = 0u; j < 4u; j++) {
    let n = n0 + j;
    if (n < p.N) {
      var o = v[j];
      if ((p.flags & 1u) != 0u) { o += bias[n]; }
      if ((p.flags & 2u) != 0u) { o += res[m * p.N + n]; }
      y[m * p.N + n] = o;
    }
  }
}
//<<SCAL
//>>VEC
fn storeVec4(m: u32, c: u32, acc: vec4f) {
  if (m >= p.M) { return; }
  let N4 = p.N / 4u;
  var o = acc;
  if ((p.flags & 1u) != 0u) { o += bias[c]; }
  if ((p.flags & 2u) != 0u) { o += res[m * N4 + c]; }
  y[m * N4 + c] = o;
}
//<<VEC
//>>V8X4
fn store(m: u32, c: u32, acc: ACC) { storeVec4(m, c, acc); }
//<<V8X4
//>>V16X8
fn store(m: u32, c: u32, acc: ACC) {
  storeVec4(m, c, acc[0]);
  storeVec4(m, c + 1u, acc[1]);
}
//<<V16X8

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let colBlocks = (p.N / VW + COLS - 1u) / COLS;
  let idx = linear_id(gid, nwg);
  if (idx >= colBlocks * ((p.M + ROWS - 1u) / ROWS)) { return; }
  let c = (idx % colBlocks) * COLS;
  let m0 = (idx / colBlocks) * ROWS;
  let Ke = p.K / VW;
  let x0 = min(m0, p.M - 1u) * Ke;
  let x1 = min(m0 + 1u, p.M - 1u) * Ke;
  let x2 = min(m0 + 2u, p.M - 1u) * Ke;
  let x3 = min(m0 + 3u, p.M - 1u) * Ke;
//>>VEC
  let x4 = min(m0 + 4u, p.M - 1u) * Ke;
  let x5 = min(m0 + 5u, p.M - 1u) * Ke;
  let x6 = min(m0 + 6u, p.M - 1u) * Ke;
  let x7 = min(m0 + 7u, p.M - 1u) * Ke;
//<<VEC
//>>V16X8
  let x8 = min(m0 + 8u, p.M - 1u) * Ke;
  let x9 = min(m0 + 9u, p.M - 1u) * Ke;
  let x10 = min(m0 + 10u, p.M - 1u) * Ke;
  let x11 = min(m0 + 11u, p.M - 1u) * Ke;
  let x12 = min(m0 + 12u, p.M - 1u) * Ke;
  let x13 = min(m0 + 13u, p.M - 1u) * Ke;
  let x14 = min(m0 + 14u, p.M - 1u) * Ke;
  let x15 = min(m0 + 15u, p.M - 1u) * Ke;
//<<V16X8
  var a0 = ACC(); var a1 = ACC(); var a2 = ACC(); var a3 = ACC();
//>>VEC
  var a4 = ACC(); var a5 = ACC(); var a6 = ACC(); var a7 = ACC();
//<<VEC
//>>V16X8
  var a8 = ACC(); var a9 = ACC(); var a10 = ACC(); var a11 = ACC();
  var a12 = ACC(); var a13 = ACC(); var a14 = ACC(); var a15 = ACC();
//<<V16X8
//>>SCAL
  for (var k = 0u; k < p.K; k++) {
    let wv = loadW(k, c);
    a0 += x[x0 + k] * wv;
    a1 += x[x1 + k] * wv;
    a2 += x[x2 + k] * wv;
    a3 += x[x3 + k] * wv;
  }
//<<SCAL
//>>VEC
  let N4 = p.N / 4u;
  for (var k = 0u; k < Ke; k++) {
    let r = 4u * k * N4 + c;
//>>V8X4
    let w0 = w[r]; let w1 = w[r + N4]; let w2 = w[r + 2u * N4]; let w3 = w[r + 3u * N4];
//<<V8X4
//>>V16X8
    let w0 = ACC(w[r], w[r + 1u]);
    let w1 = ACC(w[r + N4], w[r + N4 + 1u]);
    let w2 = ACC(w[r + 2u * N4], w[r + 2u * N4 + 1u]);
    let w3 = ACC(w[r + 3u * N4], w[r + 3u * N4 + 1u]);
//<<V16X8
    var v = x[x0 + k]; a0 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x1 + k]; a1 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x2 + k]; a2 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x3 + k]; a3 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x4 + k]; a4 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x5 + k]; a5 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x6 + k]; a6 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x7 + k]; a7 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
//>>V16X8
    v = x[x8 + k]; a8 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x9 + k]; a9 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x10 + k]; a10 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x11 + k]; a11 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x12 + k]; a12 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x13 + k]; a13 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x14 + k]; a14 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x15 + k]; a15 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
//<<V16X8
  }
//<<VEC
  store(m0, c, a0); store(m0 + 1u, c, a1); store(m0 + 2u, c, a2); store(m0 + 3u, c, a3);
//>>VEC
  store(m0 + 4u, c, a4); store(m0 + 5u, c, a5); store(m0 + 6u, c, a6); store(m0 + 7u, c, a7);
//<<VEC
//>>V16X8
  store(m0 + 8u, c, a8); store(m0 + 9u, c, a9); store(m0 + 10u, c, a10); store(m0 + 11u, c, a11);
  store(m0 + 12u, c, a12); store(m0 + 13u, c, a13); store(m0 + 14u, c, a14); store(m0 + 15u, c, a15);
//<<V16X8
}
