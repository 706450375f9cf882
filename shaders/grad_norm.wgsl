// Global gradient-norm for clipping (PyTorch clip_grad_norm_ semantics), two
// dispatches, no read-back:
//   partial  (NPART invocations): partials[i] = Σ_{j ≡ i mod NPART} |grads[j]|²  (vec4 loads, no workgroup memory)
//   finalize (1 invocation):      stats = [norm, scale, finite, Σg²]
//                                 norm  = sqrt(Σ partials)
//                                 scale = min(1, maxNorm / (norm + 1e-6)), 1 when maxNorm ≤ 0 (clipping off)
//                                 finite = 0 when Σg² is Inf/NaN (tested on the bits: compilers may
//                                 assume no NaN); then scale = 0 and AdamW skips the step.
// The AdamW kernel (adamw.wgsl) reads `scale` and `finite` from stats.
// Both entry points share one binding layout; each touches the binding it does
// not need with a phony assignment so that "auto" layouts agree.
// TS constants that must match: GRAD_NORM_WG in src/model/adamw.ts.

struct Params {
  n4: u32,          // number of vec4s in grads
  numPartials: u32, // NPART, a multiple of WG
  maxNorm: f32,     // clip threshold; ≤ 0 disables clipping
  _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;
@group(0) @binding(3) var<storage, read_write> stats: array<f32>;

const WG: u32 = 64u;

@compute @workgroup_size(WG)
fn partial(@builtin(global_invocation_id) gid: vec3u) {
  _ = &stats;
  let i = gid.x;
  if (i >= p.numPartials) { return; }
  var acc = vec4f(0.0);
  for (var j = i; j < p.n4; j += p.numPartials) {
    let g = grads[j];
    acc += g * g;
  }
  partials[i] = (acc.x + acc.y) + (acc.z + acc.w);
}

fn isFinite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

@compute @workgroup_size(1)
fn finalize() {
  _ = &grads;
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
