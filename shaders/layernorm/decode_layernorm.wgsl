// LayerNorm over D channels for R output rows, gathering input rows:
//   y[r] = (x[i] - mean) / sqrt(var + 1e-5) · g + b,   i = r·inStride + inOffset
// (biased variance, eps 1e-5: Ba et al. 2016 / nanoGPT). inStride = 1,
// inOffset = 0 for a plain LayerNorm; the final LayerNorm of a prefill uses
// inStride = T0, inOffset = T0 - 1 to pick each sequence's last prompt row.
// One invocation per row, two passes over the row in vec4s (no barriers).
// g and b come from the flat parameter buffer at 64-float aligned offsets.

// Uniform `p` and bindings: generated from its spec (src/kernels/layernorm/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let r = linear_id(gid, nwg);
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
