// matmul_forward_vec4_16x8: y [M, N] = x [M, K] · w [K, N] (+ bias [N]) (+ res [M, N])
// for K % 4 = 0 and N % 8 = 0 (otherwise matmul_forward_vec4.wgsl, same contract).
//
// Register-blocked with vec4 loads, no workgroup memory (what pays on CPU
// adapters, docs/design.md): an invocation owns a 16×8 tile of y — rows m0..m0+15
// × two vec4 columns c0, c0+1. Per step of 4 along k it loads 8 vec4 of w and
// one vec4 of each of its 16 x rows: 128 vec4 multiply-adds for 24 loads
// (the 8×4 kernel does 32 for 12). Rows past M are clamped for loads and not
// stored. Generated unrolled code: keep it in step with matmul_forward_vec4.wgsl.
// flags: bit 0 = add bias, bit 1 = add res.
// Dispatch: ceil(ceil(M/16)·(N/8) / 64) workgroups (x, spilling into y).
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
  let N8 = p.N / 8u;
  let K4 = p.K / 4u;
  let idx = linear_id(gid, nwg);
  if (idx >= N8 * ((p.M + 15u) / 16u)) { return; }
  let c0 = (idx % N8) * 2u;
  let m0 = (idx / N8) * 16u;
  let x0 = min(m0 + 0u, p.M - 1u) * K4;
  let x1 = min(m0 + 1u, p.M - 1u) * K4;
  let x2 = min(m0 + 2u, p.M - 1u) * K4;
  let x3 = min(m0 + 3u, p.M - 1u) * K4;
  let x4 = min(m0 + 4u, p.M - 1u) * K4;
  let x5 = min(m0 + 5u, p.M - 1u) * K4;
  let x6 = min(m0 + 6u, p.M - 1u) * K4;
  let x7 = min(m0 + 7u, p.M - 1u) * K4;
  let x8 = min(m0 + 8u, p.M - 1u) * K4;
  let x9 = min(m0 + 9u, p.M - 1u) * K4;
  let x10 = min(m0 + 10u, p.M - 1u) * K4;
  let x11 = min(m0 + 11u, p.M - 1u) * K4;
  let x12 = min(m0 + 12u, p.M - 1u) * K4;
  let x13 = min(m0 + 13u, p.M - 1u) * K4;
  let x14 = min(m0 + 14u, p.M - 1u) * K4;
  let x15 = min(m0 + 15u, p.M - 1u) * K4;
  var a0 = vec4f(0.0); var b0 = vec4f(0.0);
  var a1 = vec4f(0.0); var b1 = vec4f(0.0);
  var a2 = vec4f(0.0); var b2 = vec4f(0.0);
  var a3 = vec4f(0.0); var b3 = vec4f(0.0);
  var a4 = vec4f(0.0); var b4 = vec4f(0.0);
  var a5 = vec4f(0.0); var b5 = vec4f(0.0);
  var a6 = vec4f(0.0); var b6 = vec4f(0.0);
  var a7 = vec4f(0.0); var b7 = vec4f(0.0);
  var a8 = vec4f(0.0); var b8 = vec4f(0.0);
  var a9 = vec4f(0.0); var b9 = vec4f(0.0);
  var a10 = vec4f(0.0); var b10 = vec4f(0.0);
  var a11 = vec4f(0.0); var b11 = vec4f(0.0);
  var a12 = vec4f(0.0); var b12 = vec4f(0.0);
  var a13 = vec4f(0.0); var b13 = vec4f(0.0);
  var a14 = vec4f(0.0); var b14 = vec4f(0.0);
  var a15 = vec4f(0.0); var b15 = vec4f(0.0);
  for (var k = 0u; k < K4; k++) {
    let r = 4u * k * N4 + c0;
    let w0 = w[r]; let w1 = w[r + N4]; let w2 = w[r + 2u * N4]; let w3 = w[r + 3u * N4];
    let u0 = w[r + 1u]; let u1 = w[r + N4 + 1u]; let u2 = w[r + 2u * N4 + 1u]; let u3 = w[r + 3u * N4 + 1u];
    var v: vec4f;
    v = x[x0 + k]; a0 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b0 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x1 + k]; a1 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b1 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x2 + k]; a2 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b2 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x3 + k]; a3 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b3 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x4 + k]; a4 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b4 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x5 + k]; a5 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b5 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x6 + k]; a6 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b6 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x7 + k]; a7 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b7 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x8 + k]; a8 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b8 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x9 + k]; a9 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b9 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x10 + k]; a10 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b10 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x11 + k]; a11 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b11 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x12 + k]; a12 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b12 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x13 + k]; a13 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b13 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x14 + k]; a14 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b14 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
    v = x[x15 + k]; a15 += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; b15 += v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3;
  }
  store(m0 + 0u, c0, a0); store(m0 + 0u, c0 + 1u, b0);
  store(m0 + 1u, c0, a1); store(m0 + 1u, c0 + 1u, b1);
  store(m0 + 2u, c0, a2); store(m0 + 2u, c0 + 1u, b2);
  store(m0 + 3u, c0, a3); store(m0 + 3u, c0 + 1u, b3);
  store(m0 + 4u, c0, a4); store(m0 + 4u, c0 + 1u, b4);
  store(m0 + 5u, c0, a5); store(m0 + 5u, c0 + 1u, b5);
  store(m0 + 6u, c0, a6); store(m0 + 6u, c0 + 1u, b6);
  store(m0 + 7u, c0, a7); store(m0 + 7u, c0 + 1u, b7);
  store(m0 + 8u, c0, a8); store(m0 + 8u, c0 + 1u, b8);
  store(m0 + 9u, c0, a9); store(m0 + 9u, c0 + 1u, b9);
  store(m0 + 10u, c0, a10); store(m0 + 10u, c0 + 1u, b10);
  store(m0 + 11u, c0, a11); store(m0 + 11u, c0 + 1u, b11);
  store(m0 + 12u, c0, a12); store(m0 + 12u, c0 + 1u, b12);
  store(m0 + 13u, c0, a13); store(m0 + 13u, c0 + 1u, b13);
  store(m0 + 14u, c0, a14); store(m0 + 14u, c0 + 1u, b14);
  store(m0 + 15u, c0, a15); store(m0 + 15u, c0 + 1u, b15);
}
