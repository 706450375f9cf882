// gelu_backward: dinp = gelu'(x)·dout (written, not accumulated), with
// gelu'(x) = 0.5(1 + t) + 0.5·x·(1 − t²)·√(2/π)(1 + 3·0.044715x²),
// t = tanh(√(2/π)(x + 0.044715x³)). Elementwise over N.
// Dispatch: ceil(N / 64) workgroups (x, spilling into y).
struct Params { N: u32, _p0: u32, _p1: u32, _p2: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;          // [N] pre-activation
@group(0) @binding(2) var<storage, read> dout: array<f32>;         // [N]
@group(0) @binding(3) var<storage, read_write> dinp: array<f32>;   // [N]

fn tanh_safe(u: f32) -> f32 {
  let e = exp(-2.0 * clamp(abs(u), 0.0, 15.0));
  return sign(u) * (1.0 - e) / (1.0 + e);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 64u;
  if (i >= p.N) { return; }
  let x = inp[i];
  let k = 0.7978845608028654;
  let t = tanh_safe(k * (x + 0.044715 * x * x * x));
  let grad = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * x * x);
  dinp[i] = grad * dout[i];
}
