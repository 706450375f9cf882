// grad_norm_finalize: stage 2 of the global gradient norm (one invocation):
//   stats = [norm, scale, finite, Σg²]
//   norm  = sqrt(Σ partials)
//   scale = min(1, maxNorm / (norm + 1e-6)), 1 when maxNorm ≤ 0 (clipping off)
//   finite = 0 when Σg² is Inf/NaN (tested on the bits: compilers may
//   assume no NaN); then scale = 0 and AdamW skips the step.
// The AdamW kernel (adamw.wgsl) reads `scale` and `finite` from stats.
// Uniform `p` and bindings: generated from its spec (src/kernels/adamw/spec.ts).

fn isFinite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

@compute @workgroup_size(WG)
fn main() {
  var s = 0.0;
  for (var i = 0u; i < p.numPartials; i++) {
    s += partials[i];
  }
  let finite = isFinite(s);
  let norm = sqrt(s);
  var scale = 1.0;
  if (p.maxNorm > 0.0) {
    scale = min(1.0, p.maxNorm / (norm + 1e-6));
  }
  if (!finite) { scale = 0.0; }
  stats[0] = norm;
  stats[1] = scale;
  stats[2] = select(0.0, 1.0, finite);
  stats[3] = s;
}
