// matmul_forward_vec4: y [M, N] = x [M, K] · w [K, N] (+ bias [N]) (+ res [M, N])
// for K % 4 = 0 and N % 4 = 0 (otherwise matmul_forward.wgsl, same contract).
//
// Register-blocked with vec4 loads (TF.js WebGPU matmul style, no workgroup
// memory): an invocation owns rows m0..m0+7 × one vec4 column c (4 outputs
// wide). Per step of 4 along k it loads 4 vec4 rows of w and one vec4 of each
// of its 8 x rows, and does 32 vec4 FMAs. Rows past M are clamped for loads
// and not stored. Measured on SwiftShader (Node): ~1.8× matmul_forward.wgsl
// with a 4×4 block, and the 8×4 block another ~1.2×.
// flags: bit 0 = add bias, bit 1 = add res.
// Dispatch: ceil(ceil(M/8)·(N/4) / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

fn store(m: u32, c: u32, acc: vec4f) {
  if (m >= p.M) { return; }
  let N4 = p.N / 4u;
  var o = acc;
  if ((p.flags & 1u) != 0u) { o += bias[c]; }
  if ((p.flags & 2u) != 0u) { o += res[m * N4 + c]; }
  y[m * N4 + c] = o;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let N4 = p.N / 4u;
  let K4 = p.K / 4u;
  let idx = linear_id(gid, nwg);
  if (idx >= N4 * ((p.M + 7u) / 8u)) { return; }
  let c = idx % N4;
  let m0 = (idx / N4) * 8u;
  let x0 = min(m0, p.M - 1u) * K4;
  let x1 = min(m0 + 1u, p.M - 1u) * K4;
  let x2 = min(m0 + 2u, p.M - 1u) * K4;
  let x3 = min(m0 + 3u, p.M - 1u) * K4;
  let x4 = min(m0 + 4u, p.M - 1u) * K4;
  let x5 = min(m0 + 5u, p.M - 1u) * K4;
  let x6 = min(m0 + 6u, p.M - 1u) * K4;
  let x7 = min(m0 + 7u, p.M - 1u) * K4;
  var a0 = vec4f(0.0); var a1 = vec4f(0.0); var a2 = vec4f(0.0); var a3 = vec4f(0.0);
  var a4 = vec4f(0.0); var a5 = vec4f(0.0); var a6 = vec4f(0.0); var a7 = vec4f(0.0);
  for (var k = 0u; k < K4; k++) {
    let r = 4u * k * N4 + c;
    let w0 = w[r];
    let w1 = w[r + N4];
    let w2 = w[r + 2u * N4];
    let w3 = w[r + 3u * N4];
    var v = x[x0 + k]; a0 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x1 + k]; a1 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x2 + k]; a2 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x3 + k]; a3 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x4 + k]; a4 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x5 + k]; a5 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x6 + k]; a6 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
    v = x[x7 + k]; a7 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
  }
  store(m0, c, a0); store(m0 + 1u, c, a1); store(m0 + 2u, c, a2); store(m0 + 3u, c, a3);
  store(m0 + 4u, c, a4); store(m0 + 5u, c, a5); store(m0 + 6u, c, a6); store(m0 + 7u, c, a7);
}
