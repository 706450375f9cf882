// gelu_backward: dinp = gelu'(x)·dout (written, not accumulated), with
// gelu'(x) = 0.5(1 + t) + 0.5·x·(1 − t²)·√(2/π)(1 + 3·0.044715x²),
// t = tanh(√(2/π)(x + 0.044715x³)). Elementwise over N floats, E = f32 or
// vec4f (N % 4 = 0), the same bits either way (as gelu_forward).
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
  let k = 0.7978845608028654;
  let t = tanh_e(k * (x + 0.044715 * x * x * x));
  let grad = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * x * x);
  dinp[i] = grad * dout[i];
}
