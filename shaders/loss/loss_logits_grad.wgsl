// loss_logits_grad: dlogits [B, T, V] from the weighted per-token gradients
// g [B, L] of the token logprobs: for the row predicting token s
// (absolute position P + s − 1), dlogits[v] = g_s·(1[v = token s] − softmax_v),
// using the row's logsumexp from loss_token (tok field 5). At temperature τ
// (invTemp = 1/τ) logπ = z_tgt/τ − lse(z/τ), so dlogits[v] = (g_s/τ)·(1[v = tgt] − softmax(z/τ)_v).
// Every other row
// (patches, the last text position) is written 0, so no clear is needed.
// One invocation per logits row. Dispatch: ceil(B·T / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/loss/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.T) { return; }
  let t = row % p.T;
  let b = row / p.T;
  let r = row * p.V;
  var gs = 0.0;
  var tgt = 0u;
  var lse = 0.0;
  if (t >= p.P && t + 1u < p.T) {
    let i = b * p.L + (t - p.P + 1u);
    gs = g[i];
    tgt = u32(tokens[i]);
    lse = tok[i * 8u + 5u];
  }
  if (gs == 0.0) {
    for (var v = 0u; v < p.V; v++) { dlogits[r + v] = 0.0; }
    return;
  }
  for (var v = 0u; v < p.V; v++) {
    let pv = exp(p.invTemp * logits[r + v] - lse);
    dlogits[r + v] = gs * p.invTemp * (select(0.0, 1.0, v == tgt) - pv);
  }
}
