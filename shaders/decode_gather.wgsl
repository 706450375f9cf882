// Row gather: y[r, :] = x[(r / div)·stride + offset, :] for R rows of W floats
// (W % 4 == 0); div = G replicates each prompt's row for its G sequences
// after a shared-prompt prefill (div = 1: plain gather).
// The prefill uses it to keep only each sequence's last prompt row
// (stride = T0, offset = T0 − 1) before the last layer's attention output and
// MLP, which no other row needs (their keys/values are already cached).
// One invocation per (row, vec4).

struct Params {
  R: u32,
  W: u32,
  stride: u32,
  offset: u32,
  div: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;        // [rows, W/4]
@group(0) @binding(2) var<storage, read_write> y: array<vec4<f32>>;  // [R, W/4]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = gid.x + gid.y * nw.x * 64u;
  let W4 = p.W / 4u;
  let c = t % W4;
  let r = t / W4;
  if (r >= p.R) { return; }
  y[r * W4 + c] = x[((r / p.div) * p.stride + p.offset) * W4 + c];
}
