// matmul_forward_vec4: y [M, N] = x [M, K] · w [K, N] (+ bias [N]) (+ res [M, N])
// for K % 4 = 0 and N % 4 = 0 (otherwise matmul_forward.wgsl, same contract).
//
// Register-blocked with vec4 loads (TF.js WebGPU matmul style, no workgroup
// memory): an invocation owns rows m0..m0+3 × one vec4 column c (4 outputs
// wide). Per step of 4 along k it loads one vec4 of each of its 4 x rows and
// 4 vec4 rows of w, and does 16 vec4 FMAs. Measured on SwiftShader (Node):
// about 1.8× matmul_forward.wgsl on 256×128×512.
// flags: bit 0 = add bias, bit 1 = add res.
// Dispatch: ceil(ceil(M/4)·(N/4) / 64) workgroups (x, spilling into y).
struct Params { M: u32, K: u32, N: u32, flags: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4f>;        // [M, K/4]
@group(0) @binding(2) var<storage, read> w: array<vec4f>;        // [K, N/4]
@group(0) @binding(3) var<storage, read> bias: array<vec4f>;     // [N/4]
@group(0) @binding(4) var<storage, read> res: array<vec4f>;      // [M, N/4]
@group(0) @binding(5) var<storage, read_write> y: array<vec4f>;  // [M, N/4]

fn store(m: u32, c: u32, acc: vec4f) {
  if (m >= p.M) { return; }
  let N4 = p.N / 4u;
  var o = acc;
  if ((p.flags & 1u) != 0u) { o += bias[c]; }
  if ((p.flags & 2u) != 0u) { o += res[m * N4 + c]; }
  y[m * N4 + c] = o;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let N4 = p.N / 4u;
  let K4 = p.K / 4u;
  let idx = gid.x + gid.y * nwg.x * 64u;
  if (idx >= N4 * ((p.M + 3u) / 4u)) { return; }
  let c = idx % N4;
  let m0 = (idx / N4) * 4u;
  let x0 = min(m0, p.M - 1u) * K4;
  let x1 = min(m0 + 1u, p.M - 1u) * K4;
  let x2 = min(m0 + 2u, p.M - 1u) * K4;
  let x3 = min(m0 + 3u, p.M - 1u) * K4;
  var a0 = vec4f(0.0);
  var a1 = vec4f(0.0);
  var a2 = vec4f(0.0);
  var a3 = vec4f(0.0);
  for (var k = 0u; k < K4; k++) {
    let r = 4u * k * N4 + c;
    let w0 = w[r];
    let w1 = w[r + N4];
    let w2 = w[r + 2u * N4];
    let w3 = w[r + 3u * N4];
    let v0 = x[x0 + k];
    let v1 = x[x1 + k];
    let v2 = x[x2 + k];
    let v3 = x[x3 + k];
    a0 += v0.x * w0 + v0.y * w1 + v0.z * w2 + v0.w * w3;
    a1 += v1.x * w0 + v1.y * w1 + v1.z * w2 + v1.w * w3;
    a2 += v2.x * w0 + v2.y * w1 + v2.z * w2 + v2.w * w3;
    a3 += v3.x * w0 + v3.y * w1 + v3.z * w2 + v3.w * w3;
  }
  store(m0, c, a0);
  store(m0 + 1u, c, a1);
  store(m0 + 2u, c, a2);
  store(m0 + 3u, c, a3);
}
