// loss_logits_grad: dlogits [B, T, V] from the weighted per-token gradients
// g [B, L] of the token logprobs: for the row predicting token s
// (absolute position P + s − 1), dlogits[v] = g_s·(1[v = token s] − softmax_v),
// using the row's logsumexp from loss_token (tok field 5). At temperature τ
// (invTemp = 1/τ) logπ = z_tgt/τ − lse(z/τ), so dlogits[v] = (g_s/τ)·(1[v = tgt] − softmax(z/τ)_v).
// Every other row
// (patches, the last text position) is written 0, so no clear is needed.
// One invocation per logits row. Dispatch: ceil(B·T / 64) workgroups.
struct Params { B: u32, T: u32, L: u32, P: u32, V: u32, invTemp: f32, _p1: u32, _p2: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;        // [B, T, V]
@group(0) @binding(2) var<storage, read> tokens: array<i32>;        // [B, L]
@group(0) @binding(3) var<storage, read> g: array<f32>;             // [B, L]
@group(0) @binding(4) var<storage, read> tok: array<f32>;           // [B·L, 8]
@group(0) @binding(5) var<storage, read_write> dlogits: array<f32>; // [B, T, V]

@compute @workgroup_size(64)
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
