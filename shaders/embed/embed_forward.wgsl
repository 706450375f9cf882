// embed_forward: out [B, T, C], T = P + L:
//   out[b, k]     = patchEmb[b·P + k] + wpe[k]          (k < P; patchEmb = patches·patch.w + patch.b)
//   out[b, P + s] = wte[tokens[b, s]] + wpe[P + posOff + s]
// posOff > 0 runs a window of the text (its first posOff columns cut off, all
// of them PAD) at the positions the whole text would have.
// One invocation per output value. Dispatch: ceil(B·T·C / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/embed/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let idx = linear_id(gid, nwg);
  let T = p.P + p.L;
  if (idx >= p.B * T * p.C) { return; }
  let c = idx % p.C;
  let t = (idx / p.C) % T;
  let b = idx / (p.C * T);
  var v: f32;
  if (t < p.P) {
    v = wpe[t * p.C + c] + patchEmb[(b * p.P + t) * p.C + c];
  } else {
    v = wpe[(t + p.posOff) * p.C + c] + wte[u32(tokens[b * p.L + t - p.P]) * p.C + c];
  }
  out[idx] = v;
}
