// layernorm_backward_params: dg [C] += Σ_n dout·x̂, db [C] += Σ_n dout with
// x̂ = (inp − mean)·rstd. Deterministic: one invocation per 4 columns (vec4,
// C % 4 = 0) sums the rows in order (no atomics). Accumulates: the caller
// zeroes the gradients. Dispatch: ceil(C/4 / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/layernorm/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let C4 = p.C / 4u;
  let c = gid.x;
  if (c >= C4) { return; }
  var sg = vec4f(0.0);
  var sb = vec4f(0.0);
  for (var n = 0u; n < p.N; n++) {
    let d = dout[n * C4 + c];
    sg += d * (inp[n * C4 + c] - mean[n]) * rstd[n];
    sb += d;
  }
  dg[c] += sg;
  db[c] += sb;
}
