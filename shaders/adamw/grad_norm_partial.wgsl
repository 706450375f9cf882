// grad_norm_partial: stage 1 of the global gradient norm for clipping
// (PyTorch clip_grad_norm_ semantics; stage 2 is grad_norm_finalize.wgsl):
//   partials[i] = Σ_{j ≡ i mod numPartials} |grads[j]|²   (vec4 loads, no workgroup memory)
// One invocation per partial sum; numPartials is a multiple of WG. The two
// stages and the AdamW update (adamw.wgsl) run without a read-back.
// Uniform `p` and bindings: generated from its spec (src/kernels/adamw/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= p.numPartials) { return; }
  var acc = vec4f(0.0);
  for (var j = i; j < p.n4; j += p.numPartials) {
    let g = grads[j];
    acc += g * g;
  }
  partials[i] = (acc.x + acc.y) + (acc.z + acc.w);
}
