// matmul_backward_dx: dx [M, K] (=, or += with flags bit 0) dy [M, N] · wᵀ,
// the input gradient of y = x·w (w row-major [K, N]).
//
// Register-blocked, no workgroup memory: each invocation owns a ROWS × 4
// block of dx (rows m0 … m0 + ROWS − 1, columns k0 … k0 + 3); it walks n in
// steps of 4 floats, loading one vec4 of each of its four w rows and of each
// of its ROWS dy rows (all contiguous along n), and accumulates 4·ROWS dot
// products. Rows and columns past M, K are clamped for loads and not stored.
// Variants, from the spec's blocks and constants (src/kernels/matmul/spec.ts):
//   SCAL  any N: dy and w bound as f32 (VW = 1), 4×4 blocks; the n tail
//         (N % 4 ≠ 0) takes masked loads.
//   VEC   N % 4 = 0: dy and w bound as vec4f (VW = 4), 8×4 blocks.
//   VEC + WIDE  N % 4 = 0: 16 × 8 blocks, eight columns k0 … k0 + 7 per
//         invocation (accumulators mat2x4f: columns k0 … k0 + 3 and
//         k0 + 4 … k0 + 7); each element is the same dot-product sum over n as
//         in the 8×4 block (the same bits). Per step of n eight vec4
//         of w and sixteen of dy for 128 dot products, the load-to-FMA ratio
//         of the forward's 16×8 tile.
// Indices of dy and w count their elements (VW floats).
// Dispatch: ceil(ceil(M/ROWS)·ceil(K/4) / WG) workgroups, ceil(K/8) column
// blocks for WIDE.
// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

//>>SCAL
// dy[base + n … base + n + 3] as a vec4, 0 past column N (base: a row's offset).
fn loadDy(base: u32, n: u32) -> vec4f {
  let i = base + n;
  if (n + 3u < p.N) { return vec4f(dy[i], dy[i + 1u], dy[i + 2u], dy[i + 3u]); }
  var v = vec4f(0.0);
  for (var j = 0u; j < 4u; j++) { if (n + j < p.N) { v[j] = dy[i + j]; } }
  return v;
}

fn loadW(base: u32, n: u32) -> vec4f {
  let i = base + n;
  if (n + 3u < p.N) { return vec4f(w[i], w[i + 1u], w[i + 2u], w[i + 3u]); }
  var v = vec4f(0.0);
  for (var j = 0u; j < 4u; j++) { if (n + j < p.N) { v[j] = w[i + j]; } }
  return v;
}
//<<SCAL
//>>VEC
fn loadDy(base: u32, n: u32) -> vec4f { return dy[base + n]; }

fn loadW(base: u32, n: u32) -> vec4f { return w[base + n]; }
//<<VEC

fn store(m: u32, k0: u32, acc: vec4f) {
  if (m >= p.M) { return; }
  for (var j = 0u; j < 4u; j++) {
    let k = k0 + j;
    if (k < p.K) {
      let i = m * p.K + k;
      if ((p.flags & 1u) != 0u) { dx[i] += acc[j]; } else { dx[i] = acc[j]; }
    }
  }
}

//>>NARROW
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let colBlocks = (p.K + 3u) / 4u;
  let idx = linear_id(gid, nwg);
  if (idx >= colBlocks * ((p.M + ROWS - 1u) / ROWS)) { return; }
  let k0 = (idx % colBlocks) * 4u;
  let m0 = (idx / colBlocks) * ROWS;
  let Ne = p.N / VW;
  let c0 = min(k0, p.K - 1u) * Ne;
  let c1 = min(k0 + 1u, p.K - 1u) * Ne;
  let c2 = min(k0 + 2u, p.K - 1u) * Ne;
  let c3 = min(k0 + 3u, p.K - 1u) * Ne;
  let r0 = min(m0, p.M - 1u) * Ne; let r1 = min(m0 + 1u, p.M - 1u) * Ne;
  let r2 = min(m0 + 2u, p.M - 1u) * Ne; let r3 = min(m0 + 3u, p.M - 1u) * Ne;
//>>VEC
  let r4 = min(m0 + 4u, p.M - 1u) * Ne; let r5 = min(m0 + 5u, p.M - 1u) * Ne;
  let r6 = min(m0 + 6u, p.M - 1u) * Ne; let r7 = min(m0 + 7u, p.M - 1u) * Ne;
//<<VEC
  var a0 = vec4f(0.0); var a1 = vec4f(0.0); var a2 = vec4f(0.0); var a3 = vec4f(0.0);
//>>VEC
  var a4 = vec4f(0.0); var a5 = vec4f(0.0); var a6 = vec4f(0.0); var a7 = vec4f(0.0);
//<<VEC
  for (var n = 0u; n < Ne; n += 4u / VW) {
    let w0 = loadW(c0, n); let w1 = loadW(c1, n); let w2 = loadW(c2, n); let w3 = loadW(c3, n);
    var d = loadDy(r0, n); a0 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = loadDy(r1, n); a1 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = loadDy(r2, n); a2 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = loadDy(r3, n); a3 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
//>>VEC
    d = loadDy(r4, n); a4 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = loadDy(r5, n); a5 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = loadDy(r6, n); a6 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = loadDy(r7, n); a7 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
//<<VEC
  }
  store(m0, k0, a0); store(m0 + 1u, k0, a1); store(m0 + 2u, k0, a2); store(m0 + 3u, k0, a3);
//>>VEC
  store(m0 + 4u, k0, a4); store(m0 + 5u, k0, a5); store(m0 + 6u, k0, a6); store(m0 + 7u, k0, a7);
//<<VEC
}
//<<NARROW
//>>WIDE
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let colBlocks = (p.K + 7u) / 8u;
  let idx = linear_id(gid, nwg);
  if (idx >= colBlocks * ((p.M + ROWS - 1u) / ROWS)) { return; }
  let k0 = (idx % colBlocks) * 8u;
  let m0 = (idx / colBlocks) * ROWS;
  let N4 = p.N / 4u;
  // Rows and columns past M, K read the last one (valid memory) and are not stored.
  let c0 = min(k0 + 0u, p.K - 1u) * N4;
  let c1 = min(k0 + 1u, p.K - 1u) * N4;
  let c2 = min(k0 + 2u, p.K - 1u) * N4;
  let c3 = min(k0 + 3u, p.K - 1u) * N4;
  let c4 = min(k0 + 4u, p.K - 1u) * N4;
  let c5 = min(k0 + 5u, p.K - 1u) * N4;
  let c6 = min(k0 + 6u, p.K - 1u) * N4;
  let c7 = min(k0 + 7u, p.K - 1u) * N4;
  let r0 = min(m0 + 0u, p.M - 1u) * N4;
  let r1 = min(m0 + 1u, p.M - 1u) * N4;
  let r2 = min(m0 + 2u, p.M - 1u) * N4;
  let r3 = min(m0 + 3u, p.M - 1u) * N4;
  let r4 = min(m0 + 4u, p.M - 1u) * N4;
  let r5 = min(m0 + 5u, p.M - 1u) * N4;
  let r6 = min(m0 + 6u, p.M - 1u) * N4;
  let r7 = min(m0 + 7u, p.M - 1u) * N4;
  let r8 = min(m0 + 8u, p.M - 1u) * N4;
  let r9 = min(m0 + 9u, p.M - 1u) * N4;
  let r10 = min(m0 + 10u, p.M - 1u) * N4;
  let r11 = min(m0 + 11u, p.M - 1u) * N4;
  let r12 = min(m0 + 12u, p.M - 1u) * N4;
  let r13 = min(m0 + 13u, p.M - 1u) * N4;
  let r14 = min(m0 + 14u, p.M - 1u) * N4;
  let r15 = min(m0 + 15u, p.M - 1u) * N4;
  let z = mat2x4f(vec4f(0.0), vec4f(0.0));
  var a0 = z; var a1 = z; var a2 = z; var a3 = z; var a4 = z; var a5 = z; var a6 = z; var a7 = z;
  var a8 = z; var a9 = z; var a10 = z; var a11 = z; var a12 = z; var a13 = z; var a14 = z; var a15 = z;
  for (var n = 0u; n < N4; n++) {
    let w0 = w[c0 + n]; let w1 = w[c1 + n]; let w2 = w[c2 + n]; let w3 = w[c3 + n];
    let w4 = w[c4 + n]; let w5 = w[c5 + n]; let w6 = w[c6 + n]; let w7 = w[c7 + n];
    var d: vec4f;
    d = dy[r0 + n]; a0 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r1 + n]; a1 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r2 + n]; a2 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r3 + n]; a3 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r4 + n]; a4 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r5 + n]; a5 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r6 + n]; a6 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r7 + n]; a7 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r8 + n]; a8 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r9 + n]; a9 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r10 + n]; a10 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r11 + n]; a11 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r12 + n]; a12 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r13 + n]; a13 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r14 + n]; a14 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
    d = dy[r15 + n]; a15 += mat2x4f(vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3)), vec4f(dot(d, w4), dot(d, w5), dot(d, w6), dot(d, w7)));
  }
  store(m0 + 0u, k0, a0[0]); store(m0 + 0u, k0 + 4u, a0[1]);
  store(m0 + 1u, k0, a1[0]); store(m0 + 1u, k0 + 4u, a1[1]);
  store(m0 + 2u, k0, a2[0]); store(m0 + 2u, k0 + 4u, a2[1]);
  store(m0 + 3u, k0, a3[0]); store(m0 + 3u, k0 + 4u, a3[1]);
  store(m0 + 4u, k0, a4[0]); store(m0 + 4u, k0 + 4u, a4[1]);
  store(m0 + 5u, k0, a5[0]); store(m0 + 5u, k0 + 4u, a5[1]);
  store(m0 + 6u, k0, a6[0]); store(m0 + 6u, k0 + 4u, a6[1]);
  store(m0 + 7u, k0, a7[0]); store(m0 + 7u, k0 + 4u, a7[1]);
  store(m0 + 8u, k0, a8[0]); store(m0 + 8u, k0 + 4u, a8[1]);
  store(m0 + 9u, k0, a9[0]); store(m0 + 9u, k0 + 4u, a9[1]);
  store(m0 + 10u, k0, a10[0]); store(m0 + 10u, k0 + 4u, a10[1]);
  store(m0 + 11u, k0, a11[0]); store(m0 + 11u, k0 + 4u, a11[1]);
  store(m0 + 12u, k0, a12[0]); store(m0 + 12u, k0 + 4u, a12[1]);
  store(m0 + 13u, k0, a13[0]); store(m0 + 13u, k0 + 4u, a13[1]);
  store(m0 + 14u, k0, a14[0]); store(m0 + 14u, k0 + 4u, a14[1]);
  store(m0 + 15u, k0, a15[0]); store(m0 + 15u, k0 + 4u, a15[1]);
}
//<<WIDE
