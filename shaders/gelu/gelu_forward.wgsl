// gelu_forward: out = 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³))), the tanh
// approximation of GELU (Hendrycks & Gimpel 2016; GPT-2). Elementwise over N.
// tanh is computed from exp of a clamped argument (|u| ≤ 15 gives tanh = ±1
// to f32 precision) so large |x| never overflows.
// Dispatch: ceil(N / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/gelu/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = linear_id(gid, nwg);
  if (i >= p.N) { return; }
  let x = inp[i];
  out[i] = 0.5 * x * (1.0 + tanh_safe(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
