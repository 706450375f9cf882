// Indexed row gather: y[r, :] = x[idx[r], :] for the R rows of y, W floats a
// row (W % 4 == 0); a row whose index is negative is written 0. With a
// compaction map it packs the rows a step needs; with the inverse map (−1
// where a row was not kept) it spreads them back, zeros elsewhere.
// One invocation per (row, vec4).

// Uniform `p` and bindings: generated from its spec (src/kernels/rows/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let W4 = p.W / 4u;
  let c = t % W4;
  let r = t / W4;
  if (r >= p.R) { return; }
  let src = idx[r];
  if (src < 0) {
    y[r * W4 + c] = vec4f(0.0);
  } else {
    y[r * W4 + c] = x[u32(src) * W4 + c];
  }
}
