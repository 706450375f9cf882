// matmul_backward_dx: dx [M, K] (=, or += with flags bit 0) dy [M, N] · wᵀ,
// the input gradient of y = x·w (w row-major [K, N]).
//
// Register-blocked: each invocation owns a 4×4 block of dx (rows m0.., columns
// k0..); it walks n in steps of 4 with vec4 loads of four dy rows and four w
// rows (both contiguous along n) and accumulates 16 dot products. The n tail
// (N % 4 ≠ 0) takes masked loads; rows and columns are clamped for loads and
// guarded for stores. No workgroup memory.
// Dispatch: ceil(ceil(M/4)·ceil(K/4) / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

fn loadDy(row: u32, n: u32) -> vec4f {
  let i = row * p.N + n;
  if (n + 3u < p.N) { return vec4f(dy[i], dy[i + 1u], dy[i + 2u], dy[i + 3u]); }
  var v = vec4f(0.0);
  for (var j = 0u; j < 4u; j++) { if (n + j < p.N) { v[j] = dy[i + j]; } }
  return v;
}

fn loadW(row: u32, n: u32) -> vec4f {
  let i = row * p.N + n;
  if (n + 3u < p.N) { return vec4f(w[i], w[i + 1u], w[i + 2u], w[i + 3u]); }
  var v = vec4f(0.0);
  for (var j = 0u; j < 4u; j++) { if (n + j < p.N) { v[j] = w[i + j]; } }
  return v;
}

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
  if (idx >= colBlocks * ((p.M + 3u) / 4u)) { return; }
  let k0 = (idx % colBlocks) * 4u;
  let m0 = (idx / colBlocks) * 4u;
  let r0 = min(m0, p.M - 1u);
  let r1 = min(m0 + 1u, p.M - 1u);
  let r2 = min(m0 + 2u, p.M - 1u);
  let r3 = min(m0 + 3u, p.M - 1u);
  let c0 = min(k0, p.K - 1u);
  let c1 = min(k0 + 1u, p.K - 1u);
  let c2 = min(k0 + 2u, p.K - 1u);
  let c3 = min(k0 + 3u, p.K - 1u);
  var a0 = vec4f(0.0);
  var a1 = vec4f(0.0);
  var a2 = vec4f(0.0);
  var a3 = vec4f(0.0);
  for (var n = 0u; n < p.N; n += 4u) {
    let w0 = loadW(c0, n);
    let w1 = loadW(c1, n);
    let w2 = loadW(c2, n);
    let w3 = loadW(c3, n);
    let d0 = loadDy(r0, n);
    let d1 = loadDy(r1, n);
    let d2 = loadDy(r2, n);
    let d3 = loadDy(r3, n);
    a0 += vec4f(dot(d0, w0), dot(d0, w1), dot(d0, w2), dot(d0, w3));
    a1 += vec4f(dot(d1, w0), dot(d1, w1), dot(d1, w2), dot(d1, w3));
    a2 += vec4f(dot(d2, w0), dot(d2, w1), dot(d2, w2), dot(d2, w3));
    a3 += vec4f(dot(d3, w0), dot(d3, w1), dot(d3, w2), dot(d3, w3));
  }
  store(m0, k0, a0);
  store(m0 + 1u, k0, a1);
  store(m0 + 2u, k0, a2);
  store(m0 + 3u, k0, a3);
}
