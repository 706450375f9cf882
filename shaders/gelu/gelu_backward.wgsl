// gelu_backward: dinp = gelu'(x)·dout (written, not accumulated), with
// gelu'(x) = 0.5(1 + t) + 0.5·x·(1 − t²)·√(2/π)(1 + 3·0.044715x²),
// t = tanh(√(2/π)(x + 0.044715x³)). Elementwise over N.
// Dispatch: ceil(N / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/gelu/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = linear_id(gid, nwg);
  if (i >= p.N) { return; }
  let x = inp[i];
  let k = 0.7978845608028654;
  let t = tanh_safe(k * (x + 0.044715 * x * x * x));
  let grad = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * x * x);
  dinp[i] = grad * dout[i];
}
