// Decode matmul: y[R, O] = epilogue(x[R, I] · W[I, O] + b[O]) for the few rows
// of a decode step (R = N sequences) or a prefill (R = N·T0 rows).
//
// Register-blocked, no workgroup memory (SwiftShader favours this, design.md):
// each invocation computes a 4-row × 4-column tile, loading x as vec4 along I
// and W as vec4 along O. W and b are read from the flat parameter buffer at
// float offsets wOff / bOff (64-float aligned, config.ts paramLayout).
//
// Variants (selected in TypeScript by keeping one //>>NAME ... //<<NAME block
// of each pair, see src/model/generate/kernels.ts):
//   VEC   O % 4 == 0: W rows are vec4-aligned, one vec4 load per (k, tile).
//   SCAL  any O: four scalar loads with a bounds check (the head when V % 4 != 0).
//   EPI_STORE  y = acc          EPI_GELU  y = gelu_tanh(acc)          EPI_ADD  y += acc
// Requires I % 4 == 0 (I is dModel or mlpRatio·dModel; dModel % 4 == 0 is validated).
// Dispatch: ceil(R/4)·ceil(O/4) invocations, 64 per workgroup, 2-D grid when
// more than 65535 workgroups are needed (linear id = x + y·64·num_workgroups.x).

struct Params {
  R: u32,         // rows
  I: u32,         // input width (multiple of 4)
  O: u32,         // output width
  wOff: u32,      // float offset of W [I, O] in the parameter buffer
  bOff: u32,      // float offset of b [O]
  hasBias: u32,   // 0: no bias (the head)
  nColTiles: u32, // ceil(O / 4)
  _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;   // [R, I/4]
@group(0) @binding(3) var<storage, read_write> y: array<f32>;   // [R, O]

//>>VEC
@group(0) @binding(2) var<storage, read> w: array<vec4<f32>>;   // flat parameters
fn loadW(k: u32, c4: u32) -> vec4<f32> {
  return w[(p.wOff + k * p.O) / 4u + c4];
}
fn loadB(c4: u32) -> vec4<f32> {
  return w[p.bOff / 4u + c4];
}
//<<VEC
//>>SCAL
@group(0) @binding(2) var<storage, read> w: array<f32>;         // flat parameters
fn loadW(k: u32, c4: u32) -> vec4<f32> {
  let base = p.wOff + k * p.O;
  let c = c4 * 4u;
  var v = vec4<f32>(0.0);
  if (c < p.O) { v.x = w[base + c]; }
  if (c + 1u < p.O) { v.y = w[base + c + 1u]; }
  if (c + 2u < p.O) { v.z = w[base + c + 2u]; }
  if (c + 3u < p.O) { v.w = w[base + c + 3u]; }
  return v;
}
fn loadB(c4: u32) -> vec4<f32> {
  let c = c4 * 4u;
  var v = vec4<f32>(0.0);
  if (c < p.O) { v.x = w[p.bOff + c]; }
  if (c + 1u < p.O) { v.y = w[p.bOff + c + 1u]; }
  if (c + 2u < p.O) { v.z = w[p.bOff + c + 2u]; }
  if (c + 3u < p.O) { v.w = w[p.bOff + c + 3u]; }
  return v;
}
//<<SCAL

// GELU, tanh approximation (Hendrycks & Gimpel 2016, eq. in §2); the argument
// of tanh is clamped because some backends return NaN for tanh of large |u|.
fn gelu(v: vec4<f32>) -> vec4<f32> {
  let u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
  return 0.5 * v * (1.0 + tanh(clamp(u, vec4<f32>(-15.0), vec4<f32>(15.0))));
}

fn storeRow(row: u32, c4: u32, acc: vec4<f32>) {
  if (row >= p.R) { return; }
  var v = acc;
//>>EPI_GELU
  v = gelu(v);
//<<EPI_GELU
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

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = gid.x + gid.y * nw.x * 64u;
  let c4 = t % p.nColTiles;
  let r0 = (t / p.nColTiles) * 4u;
  if (r0 >= p.R) { return; }
  let I4 = p.I / 4u;
  // Rows past R read row R-1 (valid memory) and are not stored.
  let ra = r0 * I4;
  let rb = min(r0 + 1u, p.R - 1u) * I4;
  let rc = min(r0 + 2u, p.R - 1u) * I4;
  let rd = min(r0 + 3u, p.R - 1u) * I4;
  var a0 = vec4<f32>(0.0);
  var a1 = vec4<f32>(0.0);
  var a2 = vec4<f32>(0.0);
  var a3 = vec4<f32>(0.0);
  for (var k4 = 0u; k4 < I4; k4++) {
    let k = k4 * 4u;
    let w0 = loadW(k, c4);
    let w1 = loadW(k + 1u, c4);
    let w2 = loadW(k + 2u, c4);
    let w3 = loadW(k + 3u, c4);
    let xa = x[ra + k4];
    let xb = x[rb + k4];
    let xc = x[rc + k4];
    let xd = x[rd + k4];
    a0 += xa.x * w0 + xa.y * w1 + xa.z * w2 + xa.w * w3;
    a1 += xb.x * w0 + xb.y * w1 + xb.z * w2 + xb.w * w3;
    a2 += xc.x * w0 + xc.y * w1 + xc.z * w2 + xc.w * w3;
    a3 += xd.x * w0 + xd.y * w1 + xd.z * w2 + xd.w * w3;
  }
  if (p.hasBias != 0u) {
    let b = loadB(c4);
    a0 += b; a1 += b; a2 += b; a3 += b;
  }
  storeRow(r0, c4, a0);
  storeRow(r0 + 1u, c4, a1);
  storeRow(r0 + 2u, c4, a2);
  storeRow(r0 + 3u, c4, a3);
}
