// Appends the keys and values of R rows to one layer's KV cache.
//   qkv [R, 3D] (q | k | v along the last axis, heads contiguous hd-slices)
//   kc, vc [L, N, H, S, hd]: kc[layerOff + ((n·H + h)·S + pos)·hd + e] = k[r, h·hd + e]
// Row r → (n, pos) as in decode_embed.wgsl. A shared-prompt prefill (row n is
// prompt n of G identical sequences n·G … n·G+G−1) writes `copies` = G
// copies, one into each sequence's slab; a decode step writes one (copies = 1).
// One invocation per (row, channel).

// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let i = t % p.D;
  let r = t / p.D;
  if (r >= p.R) { return; }
  let n = r / p.rowsPerSeq;
  let pos = decode_pos(r, p.rowsPerSeq, p.posBase, p.useState, state[0]);
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
