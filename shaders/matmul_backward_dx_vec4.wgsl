// matmul_backward_dx_vec4: dx [M, K] (=, or += with flags bit 0) dy [M, N] · wᵀ
// for N % 4 = 0 (otherwise matmul_backward_dx.wgsl, same contract; K is free).
// Same 4×4 register block as the scalar version, but dy and w are read as
// vec4 along n (both contiguous), 8 vec4 loads per 16 dot products.
// Dispatch: ceil(ceil(M/4)·ceil(K/4) / 64) workgroups.
struct Params { M: u32, K: u32, N: u32, flags: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dy: array<vec4f>;      // [M, N/4]
@group(0) @binding(2) var<storage, read> w: array<vec4f>;       // [K, N/4]
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;  // [M, K]

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

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let N4 = p.N / 4u;
  let colBlocks = (p.K + 3u) / 4u;
  let idx = gid.x + gid.y * nwg.x * 64u;
  if (idx >= colBlocks * ((p.M + 3u) / 4u)) { return; }
  let k0 = (idx % colBlocks) * 4u;
  let m0 = (idx / colBlocks) * 4u;
  let r0 = min(m0, p.M - 1u) * N4;
  let r1 = min(m0 + 1u, p.M - 1u) * N4;
  let r2 = min(m0 + 2u, p.M - 1u) * N4;
  let r3 = min(m0 + 3u, p.M - 1u) * N4;
  let c0 = min(k0, p.K - 1u) * N4;
  let c1 = min(k0 + 1u, p.K - 1u) * N4;
  let c2 = min(k0 + 2u, p.K - 1u) * N4;
  let c3 = min(k0 + 3u, p.K - 1u) * N4;
  var a0 = vec4f(0.0);
  var a1 = vec4f(0.0);
  var a2 = vec4f(0.0);
  var a3 = vec4f(0.0);
  for (var n = 0u; n < N4; n++) {
    let w0 = w[c0 + n];
    let w1 = w[c1 + n];
    let w2 = w[c2 + n];
    let w3 = w[c3 + n];
    let d0 = dy[r0 + n];
    let d1 = dy[r1 + n];
    let d2 = dy[r2 + n];
    let d3 = dy[r3 + n];
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
