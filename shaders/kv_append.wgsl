// Appends the keys and values of R rows to one layer's KV cache.
//   qkv [R, 3D] (q | k | v along the last axis, heads contiguous hd-slices)
//   kc, vc [L, N, H, S, hd]: kc[layerOff + ((n·H + h)·S + pos)·hd + e] = k[r, h·hd + e]
// Row r → (n, pos) as in decode_embed.wgsl. A shared-prompt prefill (row n is
// prompt n of G identical sequences n·G … n·G+G−1) writes `copies` = G
// copies, one into each sequence's slab; a decode step writes one (copies = 1).
// One invocation per (row, channel).

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
  copies: u32,    // sequences per row (G in a shared-prompt prefill, else 1)
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
  let k = qkv[r * 3u * p.D + p.D + i];
  let v = qkv[r * 3u * p.D + 2u * p.D + i];
  for (var c = 0u; c < p.copies; c++) {
    let dst = p.layerOff + (((n * p.copies + c) * p.H + h) * p.S + pos) * p.hd + e;
    kc[dst] = k;
    vc[dst] = v;
  }
}
