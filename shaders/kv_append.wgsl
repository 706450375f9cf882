// Appends the keys and values of R rows to one layer's KV cache.
//   qkv [R, 3D] (q | k | v along the last axis, heads contiguous hd-slices)
//   kc, vc [L, N, H, S, hd]: kc[layerOff + ((n·H + h)·S + pos)·hd + e] = k[r, h·hd + e]
// Row r → (n, pos) as in decode_embed.wgsl. One invocation per (row, channel).

struct Params {
  R: u32,
  D: u32,
  H: u32,
  hd: u32,        // D / H
  S: u32,         // cache positions per sequence
  rowsPerSeq: u32,
  posBase: u32,
  useState: u32,
  layerOff: u32,  // float offset of this layer's slab in kc / vc
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> qkv: array<f32>;          // [R, 3D]
@group(0) @binding(2) var<storage, read> state: array<u32>;        // [step, pad, ...]
@group(0) @binding(3) var<storage, read_write> kc: array<f32>;     // [L, N, H, S, hd]
@group(0) @binding(4) var<storage, read_write> vc: array<f32>;     // [L, N, H, S, hd]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = gid.x + gid.y * nw.x * 64u;
  let i = t % p.D;
  let r = t / p.D;
  if (r >= p.R) { return; }
  let n = r / p.rowsPerSeq;
  var pos = p.posBase + r % p.rowsPerSeq;
  if (p.useState != 0u) { pos += state[0]; }
  let h = i / p.hd;
  let e = i % p.hd;
  let dst = p.layerOff + ((n * p.H + h) * p.S + pos) * p.hd + e;
  kc[dst] = qkv[r * 3u * p.D + p.D + i];
  vc[dst] = qkv[r * 3u * p.D + 2u * p.D + i];
}
