// LayerNorm over D channels for R output rows, gathering input rows:
//   y[r] = (x[i] - mean) / sqrt(var + 1e-5) · g + b,   i = r·inStride + inOffset
// (biased variance, eps 1e-5: Ba et al. 2016 / nanoGPT). inStride = 1,
// inOffset = 0 for a plain LayerNorm; the final LayerNorm of a prefill uses
// inStride = T0, inOffset = T0 - 1 to pick each sequence's last prompt row.
// One invocation per row, two passes over the row in vec4s (no barriers).
// g and b come from the flat parameter buffer at 64-float aligned offsets.

struct Params {
  R: u32,        // output rows
  D: u32,        // channels (multiple of 4)
  inStride: u32,
  inOffset: u32,
  gOff: u32,     // float offset of the gain [D]
  bOff: u32,     // float offset of the bias [D]
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;        // [rows, D/4]
@group(0) @binding(2) var<storage, read> w: array<vec4<f32>>;        // flat parameters
@group(0) @binding(3) var<storage, read_write> y: array<vec4<f32>>;  // [R, D/4]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let r = gid.x;
  if (r >= p.R) { return; }
  let D4 = p.D / 4u;
  let src = (r * p.inStride + p.inOffset) * D4;
  var s = vec4<f32>(0.0);
  for (var i = 0u; i < D4; i++) { s += x[src + i]; }
  let mean = (s.x + s.y + s.z + s.w) / f32(p.D);
  var q = vec4<f32>(0.0);
  for (var i = 0u; i < D4; i++) {
    let c = x[src + i] - mean;
    q += c * c;
  }
  let rstd = inverseSqrt((q.x + q.y + q.z + q.w) / f32(p.D) + 1e-5);
  let g0 = p.gOff / 4u;
  let b0 = p.bOff / 4u;
  let dst = r * D4;
  for (var i = 0u; i < D4; i++) {
    y[dst + i] = (x[src + i] - mean) * rstd * w[g0 + i] + w[b0 + i];
  }
}
