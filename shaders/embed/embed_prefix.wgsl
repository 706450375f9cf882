// embed_prefix: the training embedding (embed_forward / embed_backward, model
// semantics of src/kernels/embed/reference.ts) on the prefix layout of a
// shared-prefix step (src/model/prefix-layout.ts; prefix_row_seq in
// shaders/prelude.wgsl): row r holds position t of sequence b
//   t < P:  patchEmb[img·P + t] + wpe[t]      img = b / G (the group's image) when S > 0, else b
//   t ≥ P:  wte[tokens[b, t − P]] + wpe[t + posOff]
// (a prefix row names its group's first sequence; S ≥ P whenever S > 0, so
// every patch row is a prefix row). posOff > 0 runs a window of the text (its
// first posOff columns cut off, all PAD) at the positions the whole text has.
// vec4 along C (C % 4 = 0); C4 = C/4.
// Blocks (src/kernels/embed/spec.ts):
//   FWD  out [rows, C]; one invocation per (row, vec4). Dispatch ceil(rows·C4 / 64)
//   BWD  from dout [rows, C], three invocation ranges, each output vec4 owned
//        by one invocation that sums in a fixed order (deterministic, no atomics):
//        [0, V·C4)          dwte[v] += Σ dout[r] over the text rows r holding id v:
//                           order[start[v] .. start[v+1]) lists them (a counting
//                           sort on the CPU, prefixTokenOrder)
//        [V·C4, +T·C4)      dwpe[t'] += Σ dout[r] over the rows at position t
//                           (t' = t, or t + posOff for t ≥ P): nG prefix rows
//                           when t < S, else B suffix rows
//        [.., +nImg·P·C4)   dpatchEmb[img·P + k] = dout[row of patch k of img]
//                           (written; matmul_backward_dw makes patch.w / patch.b of it)
//        Dispatch ceil((V + T + nImg·P)·C4 / 64), nImg = nG when S > 0, else B.
// Uniform `p` and bindings: generated from its spec (src/kernels/embed/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  var idx = linear_id(gid, nwg);
  let C4 = p.C / 4u;
  let B = p.nG * p.G;
  let rows = p.nG * p.S + B * p.Rs;
  let T = p.S + p.Rs;
//>>FWD
  if (idx >= rows * C4) { return; }
  let c = idx % C4;
  let bt = prefix_row_seq(idx / C4, p.nG, p.G, p.S, p.Rs);
  let b = bt.x;
  let t = bt.y;
  if (t < p.P) {
    let img = select(b, b / p.G, p.S > 0u);
    out[idx] = wpe[t * C4 + c] + patchEmb[(img * p.P + t) * C4 + c];
  } else {
    out[idx] = wpe[(t + p.posOff) * C4 + c] + wte[u32(tokens[b * p.L + t - p.P]) * C4 + c];
  }
//<<FWD
//>>BWD
  if (idx < p.V * C4) {
    let v = idx / C4;
    let c = idx % C4;
    var s = vec4f(0.0);
    for (var k = u32(start[v]); k < u32(start[v + 1u]); k++) { s += dout[u32(order[k]) * C4 + c]; }
    dwte[idx] += s;
    return;
  }
  idx -= p.V * C4;
  if (idx < T * C4) {
    let t = idx / C4;
    let c = idx % C4;
    var s = vec4f(0.0);
    if (t < p.S) {
      for (var g = 0u; g < p.nG; g++) { s += dout[(g * p.S + t) * C4 + c]; }
    } else {
      let base = p.nG * p.S + (t - p.S);
      for (var b = 0u; b < B; b++) { s += dout[(base + b * p.Rs) * C4 + c]; }
    }
    dwpe[select(idx, idx + p.posOff * C4, t >= p.P)] += s;
    return;
  }
  idx -= T * C4;
  let nImg = select(B, p.nG, p.S > 0u);
  if (idx < nImg * p.P * C4) {
    let c = idx % C4;
    let k = (idx / C4) % p.P;
    let img = idx / (C4 * p.P);
    let row = select(img * p.Rs + k, img * p.S + k, p.S > 0u);
    dpatchEmb[idx] = dout[row * C4 + c];
  }
//<<BWD
}
