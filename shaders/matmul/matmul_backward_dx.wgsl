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
// Indices of dy and w count their elements (VW floats).
// Dispatch: ceil(ceil(M/ROWS)·ceil(K/4) / 64) workgroups.
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
