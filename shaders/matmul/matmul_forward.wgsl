// matmul_forward: y [M, N] = x [M, K] · w [K, N] (+ bias [N]) (+ res [M, N]).
//
// Register-blocked (docs/design.md "Running without a GPU"): each invocation owns
// a 4×4 block of y (rows m0..m0+3, columns n0..n0+3) held in four vec4
// accumulators; per k it loads one vec4 of w and four scalars of x and does
// four vec4 FMAs. No workgroup memory, no barriers (SwiftShader favours this).
// Blocks are numbered with n fastest so neighbouring invocations read
// neighbouring columns of w. Any M, K, N: rows are clamped for loads and
// stores are guarded; a column tail (N % 4 ≠ 0) takes a masked load.
// The residual add of the pre-norm blocks is fused here (flags bit 1).
//
// flags: bit 0 = add bias, bit 1 = add res. Unused bindings may be any buffer.
// Dispatch: ceil(ceil(M/4)·ceil(N/4) / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

fn loadW(k: u32, n0: u32) -> vec4f {
  let i = k * p.N + n0;
  if (n0 + 3u < p.N) { return vec4f(w[i], w[i + 1u], w[i + 2u], w[i + 3u]); }
  var v = vec4f(0.0);
  for (var j = 0u; j < 4u; j++) { if (n0 + j < p.N) { v[j] = w[i + j]; } }
  return v;
}

fn store(m: u32, n0: u32, acc: vec4f) {
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

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let colBlocks = (p.N + 3u) / 4u;
  let idx = linear_id(gid, nwg);
  if (idx >= colBlocks * ((p.M + 3u) / 4u)) { return; }
  let n0 = (idx % colBlocks) * 4u;
  let m0 = (idx / colBlocks) * 4u;
  let x0 = min(m0, p.M - 1u) * p.K;
  let x1 = min(m0 + 1u, p.M - 1u) * p.K;
  let x2 = min(m0 + 2u, p.M - 1u) * p.K;
  let x3 = min(m0 + 3u, p.M - 1u) * p.K;
  var a0 = vec4f(0.0);
  var a1 = vec4f(0.0);
  var a2 = vec4f(0.0);
  var a3 = vec4f(0.0);
  for (var k = 0u; k < p.K; k++) {
    let wv = loadW(k, n0);
    a0 += x[x0 + k] * wv;
    a1 += x[x1 + k] * wv;
    a2 += x[x2 + k] * wv;
    a3 += x[x3 + k] * wv;
  }
  store(m0, n0, a0);
  store(m0 + 1u, n0, a1);
  store(m0 + 2u, n0, a2);
  store(m0 + 3u, n0, a3);
}
