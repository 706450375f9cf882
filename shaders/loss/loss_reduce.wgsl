// loss_reduce: aggregates the per-token records of loss_token into the loss
// and the step statistics, and writes the weighted per-token gradient
// g[b, s] = w[b, s]·dℓ/dlogπ. The weights (docs/reward-spec.md §1):
//   agg 0 "seq-mean-token-mean"  w = m / (B·n_b)   (papers; rows with n_b = 0 add 0)
//   agg 1 "token-mean"           w = m / Σ m       (DAPO; also SFT)
//   agg 2 "seq-mean-token-sum-norm"  w = m / (B·normLength)  (Dr. GRPO)
// stats [8] = loss, mean k3 KL, clip fraction, mean entropy (token means over
// masked tokens), number of masked tokens, 0, 0, 0.
// A single invocation walks the B·L records in order (a few thousand at
// most here): deterministic and cheap next to the matmuls.
// Dispatch: 1 workgroup.
// Uniform `p` and bindings: generated from its spec (src/kernels/loss/spec.ts).

@compute @workgroup_size(WG)
fn main() {
  var total = 0.0;
  for (var i = 0u; i < p.B * p.L; i++) { total += tok[i * 8u + 6u]; }
  var loss = 0.0;
  var kl = 0.0;
  var clip = 0.0;
  var ent = 0.0;
  for (var b = 0u; b < p.B; b++) {
    var nb = 0.0;
    for (var s = 0u; s < p.L; s++) { nb += tok[(b * p.L + s) * 8u + 6u]; }
    var den = 0.0;
    if (p.agg == 0u) { den = f32(p.B) * nb; }
    else if (p.agg == 1u) { den = total; }
    else { den = f32(p.B) * p.normLength; }
    for (var s = 0u; s < p.L; s++) {
      let i = b * p.L + s;
      let o = i * 8u;
      let m = tok[o + 6u];
      var w = 0.0;
      if (m != 0.0 && den > 0.0) { w = m / den; }
      g[i] = w * tok[o + 1u];
      loss += w * tok[o + 0u];
      kl += m * tok[o + 2u];
      clip += m * tok[o + 3u];
      ent += m * tok[o + 4u];
    }
  }
  let d = max(total, 1e-30);
  stats[0] = loss;
  stats[1] = kl / d;
  stats[2] = clip / d;
  stats[3] = ent / d;
  stats[4] = total;
  stats[5] = 0.0;
  stats[6] = 0.0;
  stats[7] = 0.0;
}
