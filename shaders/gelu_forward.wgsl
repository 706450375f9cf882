// gelu_forward: out = 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³))), the tanh
// approximation of GELU (Hendrycks & Gimpel 2016; GPT-2). Elementwise over N.
// tanh is computed from exp of a clamped argument (|u| ≤ 15 gives tanh = ±1
// to f32 precision) so large |x| never overflows.
// Dispatch: ceil(N / 64) workgroups (x, spilling into y).
struct Params { N: u32, _p0: u32, _p1: u32, _p2: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;         // [N]
@group(0) @binding(2) var<storage, read_write> out: array<f32>;   // [N]

fn tanh_safe(u: f32) -> f32 {
  let e = exp(-2.0 * clamp(abs(u), 0.0, 15.0));
  return sign(u) * (1.0 - e) / (1.0 + e);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 64u;
  if (i >= p.N) { return; }
  let x = inp[i];
  out[i] = 0.5 * x * (1.0 + tanh_safe(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
