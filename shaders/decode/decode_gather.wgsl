// Row gather: y[r, :] = x[(r / div)·stride + offset, :] for R rows of W floats
// (W % 4 == 0); div = G replicates each prompt's row for its G sequences
// after a shared-prompt prefill (div = 1: plain gather).
// The prefill uses it to keep only each sequence's last prompt row
// (stride = T0, offset = T0 − 1) before the last layer's attention output and
// MLP, which no other row needs (their keys/values are already cached).
// One invocation per (row, vec4).

// Uniform `p` and bindings: generated from its spec (src/kernels/decode/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let t = linear_id(gid, nw);
  let W4 = p.W / 4u;
  let c = t % W4;
  let r = t / W4;
  if (r >= p.R) { return; }
  y[r * W4 + c] = x[((r / p.div) * p.stride + p.offset) * W4 + c];
}
