// Decode matmul: y[R, O] = epilogue(x[R, I] · W[I, O] + b[O]) for the few rows
// of a decode step (R = N sequences) or a prefill (R = N·T0 rows).
//
// Register-blocked, no workgroup memory (SwiftShader favours this, docs/design.md):
// each invocation computes a 4-row × 4-column tile, loading x as vec4 along I
// and W as vec4 along O. W and b are read from the flat parameter buffer at
// float offsets wOff / bOff (64-float aligned, config.ts paramLayout).
//
// Variants (selected by keeping one //>>NAME ... //<<NAME block of each pair,
// the spec's `blocks` in src/kernels/matmul/spec.ts):
//   VEC   O % 4 == 0: W rows and y rows are vec4-aligned; the hot loop walks
//         precomputed indices (SwiftShader's Subzero JIT hoists little: keeping
//         uniform reads, divisions and calls out of the loop made it ~5× faster).
//   SCAL  any O: four scalar loads with a bounds check (the head when V % 4 != 0).
//   EPI_STORE  y = acc          EPI_GELU  y = gelu_tanh(acc)          EPI_ADD  y += acc
// Requires I % 4 == 0 (I is dModel or mlpRatio·dModel; dModel % 4 == 0 is validated).
// Dispatch: ceil(R/4)·ceil(O/4) invocations, spilling into y (linear_id).

// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

// GELU, tanh approximation (Hendrycks & Gimpel 2016, eq. in §2); the argument
// of tanh is clamped because some backends return NaN for tanh of large |u|.
fn gelu(v: vec4<f32>) -> vec4<f32> {
  let u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
  return 0.5 * v * (1.0 + tanh(clamp(u, vec4<f32>(-15.0), vec4<f32>(15.0))));
}

fn epilogue(acc: vec4<f32>) -> vec4<f32> {
  var v = acc;
//>>EPI_GELU
  v = gelu(v);
//<<EPI_GELU
  return v;
}

//>>VEC
fn storeRow(row: u32, c4: u32, acc: vec4<f32>) {
  if (row >= p.R) { return; }
  let i = row * (p.O / 4u) + c4;
//>>EPI_ADD
  y[i] = y[i] + epilogue(acc);
//<<EPI_ADD
//>>EPI_STORE
  y[i] = epilogue(acc);
//<<EPI_STORE
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let O4 = p.O / 4u;
  let c4 = t % O4;
  let r0 = (t / O4) * 4u;
  if (r0 >= p.R) { return; }
  let I4 = p.I / 4u;
  // Rows past R read row R-1 (valid memory) and are not stored.
  var xa = r0 * I4;
  var xb = min(r0 + 1u, p.R - 1u) * I4;
  var xc = min(r0 + 2u, p.R - 1u) * I4;
  var xd = min(r0 + 3u, p.R - 1u) * I4;
  var wi = p.wOff / 4u + c4;
  let wStep = 4u * O4;
  var a0 = vec4<f32>(0.0);
  var a1 = vec4<f32>(0.0);
  var a2 = vec4<f32>(0.0);
  var a3 = vec4<f32>(0.0);
  for (var k4 = 0u; k4 < I4; k4++) {
    let w0 = w[wi];
    let w1 = w[wi + O4];
    let w2 = w[wi + 2u * O4];
    let w3 = w[wi + 3u * O4];
    let va = x[xa];
    let vb = x[xb];
    let vc = x[xc];
    let vd = x[xd];
    a0 += va.x * w0 + va.y * w1 + va.z * w2 + va.w * w3;
    a1 += vb.x * w0 + vb.y * w1 + vb.z * w2 + vb.w * w3;
    a2 += vc.x * w0 + vc.y * w1 + vc.z * w2 + vc.w * w3;
    a3 += vd.x * w0 + vd.y * w1 + vd.z * w2 + vd.w * w3;
    wi += wStep;
    xa += 1u;
    xb += 1u;
    xc += 1u;
    xd += 1u;
  }
  if (p.hasBias != 0u) {
    let b = w[p.bOff / 4u + c4];
    a0 += b; a1 += b; a2 += b; a3 += b;
  }
  storeRow(r0, c4, a0);
  storeRow(r0 + 1u, c4, a1);
  storeRow(r0 + 2u, c4, a2);
  storeRow(r0 + 3u, c4, a3);
}
//<<VEC
//>>V8X8
fn storeRow(row: u32, c4: u32, acc: vec4<f32>) {
  if (row >= p.R) { return; }
  let i = row * (p.O / 4u) + c4;
//>>EPI_ADD
  y[i] = y[i] + epilogue(acc);
//<<EPI_ADD
//>>EPI_STORE
  y[i] = epilogue(acc);
//<<EPI_STORE
}

// One row's two vec4 columns: acc + Σ over the 4 k of a step (the VEC expression, per column).
fn step2(a: mat2x4<f32>, v: vec4<f32>, w0: vec4<f32>, w1: vec4<f32>, w2: vec4<f32>, w3: vec4<f32>, u0: vec4<f32>, u1: vec4<f32>, u2: vec4<f32>, u3: vec4<f32>) -> mat2x4<f32> {
  return mat2x4<f32>(
    a[0] + (v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3),
    a[1] + (v.x * u0 + v.y * u1 + v.z * u2 + v.w * u3),
  );
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let O4 = p.O / 4u;
  let O8 = p.O / 8u;
  let c4 = (t % O8) * 2u;
  let r0 = (t / O8) * 8u;
  if (r0 >= p.R) { return; }
  let I4 = p.I / 4u;
  // Rows past R read row R-1 (valid memory) and are not stored.
  let last = p.R - 1u;
  var x0 = r0 * I4;
  var x1 = min(r0 + 1u, last) * I4;
  var x2 = min(r0 + 2u, last) * I4;
  var x3 = min(r0 + 3u, last) * I4;
  var x4 = min(r0 + 4u, last) * I4;
  var x5 = min(r0 + 5u, last) * I4;
  var x6 = min(r0 + 6u, last) * I4;
  var x7 = min(r0 + 7u, last) * I4;
  var wi = p.wOff / 4u + c4;
  let wStep = 4u * O4;
  let z = mat2x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0));
  var a0 = z; var a1 = z; var a2 = z; var a3 = z;
  var a4 = z; var a5 = z; var a6 = z; var a7 = z;
  for (var k4 = 0u; k4 < I4; k4++) {
    let w0 = w[wi];
    let w1 = w[wi + O4];
    let w2 = w[wi + 2u * O4];
    let w3 = w[wi + 3u * O4];
    let u0 = w[wi + 1u];
    let u1 = w[wi + O4 + 1u];
    let u2 = w[wi + 2u * O4 + 1u];
    let u3 = w[wi + 3u * O4 + 1u];
    a0 = step2(a0, x[x0], w0, w1, w2, w3, u0, u1, u2, u3);
    a1 = step2(a1, x[x1], w0, w1, w2, w3, u0, u1, u2, u3);
    a2 = step2(a2, x[x2], w0, w1, w2, w3, u0, u1, u2, u3);
    a3 = step2(a3, x[x3], w0, w1, w2, w3, u0, u1, u2, u3);
    a4 = step2(a4, x[x4], w0, w1, w2, w3, u0, u1, u2, u3);
    a5 = step2(a5, x[x5], w0, w1, w2, w3, u0, u1, u2, u3);
    a6 = step2(a6, x[x6], w0, w1, w2, w3, u0, u1, u2, u3);
    a7 = step2(a7, x[x7], w0, w1, w2, w3, u0, u1, u2, u3);
    wi += wStep;
    x0 += 1u; x1 += 1u; x2 += 1u; x3 += 1u; x4 += 1u; x5 += 1u; x6 += 1u; x7 += 1u;
  }
  var b = z;
  if (p.hasBias != 0u) {
    b = mat2x4<f32>(w[p.bOff / 4u + c4], w[p.bOff / 4u + c4 + 1u]);
  }
  storeRow(r0, c4, a0[0] + b[0]); storeRow(r0, c4 + 1u, a0[1] + b[1]);
  storeRow(r0 + 1u, c4, a1[0] + b[0]); storeRow(r0 + 1u, c4 + 1u, a1[1] + b[1]);
  storeRow(r0 + 2u, c4, a2[0] + b[0]); storeRow(r0 + 2u, c4 + 1u, a2[1] + b[1]);
  storeRow(r0 + 3u, c4, a3[0] + b[0]); storeRow(r0 + 3u, c4 + 1u, a3[1] + b[1]);
  storeRow(r0 + 4u, c4, a4[0] + b[0]); storeRow(r0 + 4u, c4 + 1u, a4[1] + b[1]);
  storeRow(r0 + 5u, c4, a5[0] + b[0]); storeRow(r0 + 5u, c4 + 1u, a5[1] + b[1]);
  storeRow(r0 + 6u, c4, a6[0] + b[0]); storeRow(r0 + 6u, c4 + 1u, a6[1] + b[1]);
  storeRow(r0 + 7u, c4, a7[0] + b[0]); storeRow(r0 + 7u, c4 + 1u, a7[1] + b[1]);
}
//<<V8X8
//>>SCAL
fn loadW(base: u32, c: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  if (c < p.O) { v.x = w[base + c]; }
  if (c + 1u < p.O) { v.y = w[base + c + 1u]; }
  if (c + 2u < p.O) { v.z = w[base + c + 2u]; }
  if (c + 3u < p.O) { v.w = w[base + c + 3u]; }
  return v;
}

fn storeRow(row: u32, c4: u32, acc: vec4<f32>) {
  if (row >= p.R) { return; }
  let v = epilogue(acc);
  let base = row * p.O;
  for (var j = 0u; j < 4u; j++) {
    let c = c4 * 4u + j;
    if (c < p.O) {
//>>EPI_ADD
      y[base + c] = y[base + c] + v[j];
//<<EPI_ADD
//>>EPI_STORE
      y[base + c] = v[j];
//<<EPI_STORE
    }
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let c4 = t % p.nColTiles;
  let r0 = (t / p.nColTiles) * 4u;
  if (r0 >= p.R) { return; }
  let I4 = p.I / 4u;
  let c = c4 * 4u;
  let ra = r0 * I4;
  let rb = min(r0 + 1u, p.R - 1u) * I4;
  let rc = min(r0 + 2u, p.R - 1u) * I4;
  let rd = min(r0 + 3u, p.R - 1u) * I4;
  var a0 = vec4<f32>(0.0);
  var a1 = vec4<f32>(0.0);
  var a2 = vec4<f32>(0.0);
  var a3 = vec4<f32>(0.0);
  for (var k4 = 0u; k4 < I4; k4++) {
    let base = p.wOff + k4 * 4u * p.O;
    let w0 = loadW(base, c);
    let w1 = loadW(base + p.O, c);
    let w2 = loadW(base + 2u * p.O, c);
    let w3 = loadW(base + 3u * p.O, c);
    let va = x[ra + k4];
    let vb = x[rb + k4];
    let vc = x[rc + k4];
    let vd = x[rd + k4];
    a0 += va.x * w0 + va.y * w1 + va.z * w2 + va.w * w3;
    a1 += vb.x * w0 + vb.y * w1 + vb.z * w2 + vb.w * w3;
    a2 += vc.x * w0 + vc.y * w1 + vc.z * w2 + vc.w * w3;
    a3 += vd.x * w0 + vd.y * w1 + vd.z * w2 + vd.w * w3;
  }
  if (p.hasBias != 0u) {
    let b = loadW(p.bOff, c);
    a0 += b; a1 += b; a2 += b; a3 += b;
  }
  storeRow(r0, c4, a0);
  storeRow(r0 + 1u, c4, a1);
  storeRow(r0 + 2u, c4, a2);
  storeRow(r0 + 3u, c4, a3);
}
//<<SCAL
