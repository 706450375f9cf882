// matmul_backward_dx_vec4: dx [M, K] (=, or += with flags bit 0) dy [M, N] · wᵀ
// for N % 4 = 0 (otherwise matmul_backward_dx.wgsl, same contract; K is free).
// An invocation owns an 8×4 block of dx (rows m0..m0+7, columns k0..k0+3):
// per step of 4 along n it loads 4 vec4 of w (rows k0.., contiguous along n)
// and one vec4 of each of its 8 dy rows, and accumulates 32 dot products.
// Rows and columns past M, K are clamped for loads and not stored.
// Dispatch: ceil(ceil(M/8)·ceil(K/4) / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

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
  let N4 = p.N / 4u;
  let colBlocks = (p.K + 3u) / 4u;
  let idx = linear_id(gid, nwg);
  if (idx >= colBlocks * ((p.M + 7u) / 8u)) { return; }
  let k0 = (idx % colBlocks) * 4u;
  let m0 = (idx / colBlocks) * 8u;
  let c0 = min(k0, p.K - 1u) * N4;
  let c1 = min(k0 + 1u, p.K - 1u) * N4;
  let c2 = min(k0 + 2u, p.K - 1u) * N4;
  let c3 = min(k0 + 3u, p.K - 1u) * N4;
  let r0 = min(m0, p.M - 1u) * N4; let r1 = min(m0 + 1u, p.M - 1u) * N4;
  let r2 = min(m0 + 2u, p.M - 1u) * N4; let r3 = min(m0 + 3u, p.M - 1u) * N4;
  let r4 = min(m0 + 4u, p.M - 1u) * N4; let r5 = min(m0 + 5u, p.M - 1u) * N4;
  let r6 = min(m0 + 6u, p.M - 1u) * N4; let r7 = min(m0 + 7u, p.M - 1u) * N4;
  var a0 = vec4f(0.0); var a1 = vec4f(0.0); var a2 = vec4f(0.0); var a3 = vec4f(0.0);
  var a4 = vec4f(0.0); var a5 = vec4f(0.0); var a6 = vec4f(0.0); var a7 = vec4f(0.0);
  for (var n = 0u; n < N4; n++) {
    let w0 = w[c0 + n]; let w1 = w[c1 + n]; let w2 = w[c2 + n]; let w3 = w[c3 + n];
    var d = dy[r0 + n]; a0 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = dy[r1 + n]; a1 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = dy[r2 + n]; a2 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = dy[r3 + n]; a3 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = dy[r4 + n]; a4 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = dy[r5 + n]; a5 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = dy[r6 + n]; a6 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
    d = dy[r7 + n]; a7 += vec4f(dot(d, w0), dot(d, w1), dot(d, w2), dot(d, w3));
  }
  store(m0, k0, a0); store(m0 + 1u, k0, a1); store(m0 + 2u, k0, a2); store(m0 + 3u, k0, a3);
  store(m0 + 4u, k0, a4); store(m0 + 5u, k0, a5); store(m0 + 6u, k0, a6); store(m0 + 7u, k0, a7);
}
