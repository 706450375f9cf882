// gelu_forward: out = 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³))), the tanh
// approximation of GELU (Hendrycks & Gimpel 2016; GPT-2). Elementwise over N
// floats, E = f32 (one per invocation) or vec4f (four; N % 4 = 0): every
// component runs the same operations, so both write the same bits.
// tanh is computed from exp of a clamped argument (|u| ≤ 15 gives tanh = ±1
// to f32 precision) so large |x| never overflows (as tanh_safe, prelude).
// Dispatch: ceil(N / VW / 64) workgroups (x, spilling into y), VW = 1 or 4.
// Uniform `p` and bindings: generated from its spec (src/kernels/gelu/spec.ts).

fn tanh_e(u: E) -> E {
  let e = exp(-2.0 * clamp(abs(u), E(0.0), E(15.0)));
  return sign(u) * (1.0 - e) / (1.0 + e);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = linear_id(gid, nwg);
  if (i >= p.N / VW) { return; }
  let x = inp[i];
  out[i] = 0.5 * x * (1.0 + tanh_e(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
