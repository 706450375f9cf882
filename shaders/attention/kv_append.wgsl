// Appends the keys and values of R rows to one layer's KV cache.
//   qkv [R, 3D] (q | k | v along the last axis, heads contiguous hd-slices)
//   kc, vc [L, N, H, S, hd]: kc[layerOff + ((n·H + h)·S + pos)·hd + e] = k[r, h·hd + e]
// Row r → (n, pos) as in decode_embed.wgsl. A shared prefill segment (row n is
// group n of G sequences n·G … n·G+G−1 with the same positions) writes
// `copies` = G copies, one into each sequence's slab; otherwise one (copies = 1).
// Positions past the cache (pos ≥ S: a sequence stepped past its last column)
// are not written.
// One invocation per (row, channel).

// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let i = t % p.D;
  let r = t / p.D;
  if (r >= p.R) { return; }
  let n = r / p.rowsPerSeq;
  let pos = decode_pos(r, p.rowsPerSeq, p.posBase, p.useState, state[0] + state[4u + n]);
  if (pos >= p.S) { return; }
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
