// embed_backward: gradients of embed_forward from dout [B, T, C], vec4 along
// C (C % 4 = 0). One dispatch, three invocation ranges; each output vec4 is
// owned by exactly one invocation that sums in a fixed order (deterministic;
// no float atomics). With C4 = C/4:
//   [0, V·C4)        dwte[v, c] += Σ_{b,s : tokens[b,s] = v} dout[b, P+s, c], over
//                    v's positions b·L + s only: order[start[v] .. start[v+1]) lists
//                    them ascending (a counting sort on the CPU, tokenOrder), so
//                    the sum runs in the (b, s) order of a scan of every token
//                    without reading the V − 1 other ids' positions
//   [V·C4, +T·C4)    dwpe[t', c] += Σ_b dout[b, t, c], t' = t (t < P) or t + posOff
//   [.., +B·P·C4)    dpatchEmb[b·P + k, c] = dout[b, k, c]  (written; then
//                    matmul_backward_dw turns it into patch.w / patch.b grads)
// Dispatch: ceil((V + T + B·P)·C/4 / 64) workgroups (x, spilling into y).
// Uniform `p` and bindings: generated from its spec (src/kernels/embed/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  var idx = linear_id(gid, nwg);
  let T = p.P + p.L;
  let C4 = p.C / 4u;
  if (idx < p.V * C4) {
    let v = idx / C4;
    let c = idx % C4;
    var s = vec4f(0.0);
    for (var k = u32(start[v]); k < u32(start[v + 1u]); k++) {
      let pos = u32(order[k]);
      s += dout[((pos / p.L) * T + p.P + pos % p.L) * C4 + c];
    }
    dwte[idx] += s;
    return;
  }
  idx -= p.V * C4;
  if (idx < T * C4) {
    var s = vec4f(0.0);
    for (var b = 0u; b < p.B; b++) { s += dout[b * T * C4 + idx]; }
    let t = idx / C4;
    dwpe[select(idx, idx + p.posOff * C4, t >= p.P)] += s;
    return;
  }
  idx -= T * C4;
  if (idx < p.B * p.P * C4) {
    let c = idx % C4;
    let k = (idx / C4) % p.P;
    let b = idx / (C4 * p.P);
    dpatchEmb[idx] = dout[(b * T + k) * C4 + c];
  }
}
