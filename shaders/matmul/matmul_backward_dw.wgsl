// matmul_backward_dw: dw [K, N] += xᵀ [K, M] · dy [M, N] and, with flags
// bit 0, dbias [N] += Σ_m dy[m, :]: the weight and bias gradients of y = x·w + b.
//
// Deterministic (no atomics): each output element is summed by exactly one
// invocation in a fixed order over m. Register-blocked: an invocation owns
// a ROWS × 4 block of dw (rows k0 … k0 + ROWS − 1, columns n0 … n0 + 3);
// per m it loads ROWS values of x and one vec4 of dy and does ROWS vec4
// FMAs. The extra block row kb = ceil(K/ROWS) (dispatched only when flags
// bit 0 is set) computes the bias column sums. Accumulates (+=): the caller
// zeroes the gradient buffers.
// Variants, from the spec's blocks and constants (src/kernels/matmul/spec.ts):
//   SCAL  any K, N: f32 bindings (VW = 1), 4×4 blocks; rows past K are
//         clamped for loads and not stored, a column tail (N % 4 ≠ 0) takes
//         a masked load.
//   VEC   K % 4 = 0 and N % 4 = 0: everything read and written as vec4
//         (VW = 4), 8×4 blocks (two vec4 of x per m; measured ~1.3× a 4×4
//         block on SwiftShader). When K/4 is odd the last block's second
//         half is clamped for loads and not stored.
//   VEC + WIDE  K % 4 = 0 and N % 8 = 0: 16 × 8 blocks, two vec4 columns
//         c, c + 1 per invocation (accumulators mat2x4f, one matrix column
//         per vec4 column; scalar · matrix and matrix + matrix are per
//         component, so every element is summed over m in the same order and
//         with the same operations as in the 8×4 block: the same bits).
//         Per m four vec4 of x and two of dy for 32 vec4 FMAs, the
//         load-to-FMA ratio of the forward's 16×8 tile (in the update's
//         profile on SwiftShader the 8×4 dW took 151 ms to the forward's 78).
// Indices of dy, dw and dbias count their elements (VW floats).
// Dispatch: ceil((ceil(K/ROWS) + hasBias)·ceil(N/4) / WG) workgroups, N/8
// column blocks for WIDE.
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

fn store(k: u32, n0: u32, acc: vec4f) {
  if (k >= p.K) { return; }
  for (var j = 0u; j < 4u; j++) {
    if (n0 + j < p.N) { dw[k * p.N + n0 + j] += acc[j]; }
  }
}

fn storeBias(n0: u32, s: vec4f) {
  for (var j = 0u; j < 4u; j++) { if (n0 + j < p.N) { dbias[n0 + j] += s[j]; } }
}
//<<SCAL
//>>VEC
fn loadDy(base: u32, c: u32) -> vec4f { return dy[base + c]; }

fn store(k: u32, c: u32, acc: vec4f) {
  if (k >= p.K) { return; }
  dw[k * (p.N / 4u) + c] += acc;
}

fn storeBias(c: u32, s: vec4f) { dbias[c] += s; }
//<<VEC

//>>NARROW
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let colBlocks = (p.N + 3u) / 4u;
  let kBlocks = (p.K + ROWS - 1u) / ROWS;
  let rowBlocks = kBlocks + select(0u, 1u, (p.flags & 1u) != 0u);
  let idx = linear_id(gid, nwg);
  if (idx >= colBlocks * rowBlocks) { return; }
  let c = (idx % colBlocks) * (4u / VW);
  let kb = idx / colBlocks;
  let Ne = p.N / VW;
  if (kb == kBlocks) {
    // bias block: column sums of dy
    var s = vec4f(0.0);
    for (var m = 0u; m < p.M; m++) { s += loadDy(m * Ne, c); }
    storeBias(c, s);
    return;
  }
  let k0 = kb * ROWS;
//>>SCAL
  let c0 = min(k0, p.K - 1u);
  let c1 = min(k0 + 1u, p.K - 1u);
  let c2 = min(k0 + 2u, p.K - 1u);
  let c3 = min(k0 + 3u, p.K - 1u);
//<<SCAL
//>>VEC
  let K4 = p.K / 4u;
  let q0 = k0 / 4u;
  let q1 = min(q0 + 1u, K4 - 1u);
//<<VEC
  var a0 = vec4f(0.0); var a1 = vec4f(0.0); var a2 = vec4f(0.0); var a3 = vec4f(0.0);
//>>VEC
  var a4 = vec4f(0.0); var a5 = vec4f(0.0); var a6 = vec4f(0.0); var a7 = vec4f(0.0);
//<<VEC
  for (var m = 0u; m < p.M; m++) {
    let d = loadDy(m * Ne, c);
//>>SCAL
    let r = m * p.K;
    let xv = vec4f(x[r + c0], x[r + c1], x[r + c2], x[r + c3]);
//<<SCAL
//>>VEC
    let xv = x[m * K4 + q0];
    let xu = x[m * K4 + q1];
//<<VEC
    a0 += xv.x * d;
    a1 += xv.y * d;
    a2 += xv.z * d;
    a3 += xv.w * d;
//>>VEC
    a4 += xu.x * d;
    a5 += xu.y * d;
    a6 += xu.z * d;
    a7 += xu.w * d;
//<<VEC
  }
  store(k0, c, a0); store(k0 + 1u, c, a1); store(k0 + 2u, c, a2); store(k0 + 3u, c, a3);
//>>VEC
  store(k0 + 4u, c, a4); store(k0 + 5u, c, a5); store(k0 + 6u, c, a6); store(k0 + 7u, c, a7);
//<<VEC
}
//<<NARROW
//>>WIDE
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let N4 = p.N / 4u;
  let colBlocks = N4 / 2u;
  let kBlocks = (p.K + ROWS - 1u) / ROWS;
  let rowBlocks = kBlocks + select(0u, 1u, (p.flags & 1u) != 0u);
  let idx = linear_id(gid, nwg);
  if (idx >= colBlocks * rowBlocks) { return; }
  let c = (idx % colBlocks) * 2u;
  let kb = idx / colBlocks;
  if (kb == kBlocks) {
    // bias block: column sums of dy, each column as in the 8×4 block
    var s0 = vec4f(0.0);
    var s1 = vec4f(0.0);
    for (var m = 0u; m < p.M; m++) {
      s0 += loadDy(m * N4, c);
      s1 += loadDy(m * N4, c + 1u);
    }
    storeBias(c, s0);
    storeBias(c + 1u, s1);
    return;
  }
  let K4 = p.K / 4u;
  let k0 = kb * ROWS;
  // Quads of k past K4 read the last quad (valid memory) and are not stored.
  let q0 = k0 / 4u;
  let q1 = min(q0 + 1u, K4 - 1u);
  let q2 = min(q0 + 2u, K4 - 1u);
  let q3 = min(q0 + 3u, K4 - 1u);
  let z = mat2x4f(vec4f(0.0), vec4f(0.0));
  var a0 = z; var a1 = z; var a2 = z; var a3 = z; var a4 = z; var a5 = z; var a6 = z; var a7 = z;
  var a8 = z; var a9 = z; var a10 = z; var a11 = z; var a12 = z; var a13 = z; var a14 = z; var a15 = z;
  for (var m = 0u; m < p.M; m++) {
    let d = mat2x4f(loadDy(m * N4, c), loadDy(m * N4, c + 1u));
    let xr = m * K4;
    var xv = x[xr + q0];
    a0 += xv.x * d; a1 += xv.y * d; a2 += xv.z * d; a3 += xv.w * d;
    xv = x[xr + q1];
    a4 += xv.x * d; a5 += xv.y * d; a6 += xv.z * d; a7 += xv.w * d;
    xv = x[xr + q2];
    a8 += xv.x * d; a9 += xv.y * d; a10 += xv.z * d; a11 += xv.w * d;
    xv = x[xr + q3];
    a12 += xv.x * d; a13 += xv.y * d; a14 += xv.z * d; a15 += xv.w * d;
  }
  store2(k0, c, a0); store2(k0 + 1u, c, a1); store2(k0 + 2u, c, a2); store2(k0 + 3u, c, a3);
  store2(k0 + 4u, c, a4); store2(k0 + 5u, c, a5); store2(k0 + 6u, c, a6); store2(k0 + 7u, c, a7);
  store2(k0 + 8u, c, a8); store2(k0 + 9u, c, a9); store2(k0 + 10u, c, a10); store2(k0 + 11u, c, a11);
  store2(k0 + 12u, c, a12); store2(k0 + 13u, c, a13); store2(k0 + 14u, c, a14); store2(k0 + 15u, c, a15);
}

// Row k of the two vec4 columns c, c + 1.
fn store2(k: u32, c: u32, acc: mat2x4f) {
  store(k, c, acc[0]);
  store(k, c + 1u, acc[1]);
}
//<<WIDE
