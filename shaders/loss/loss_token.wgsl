// loss_token: per-token log-softmax, entropy and per-token loss terms.
// One invocation per text token (b, s). The logit row predicting token s is
// absolute position P + s − 1 of logits [B, T, V]; s = 0 has no prediction
// (logprob 0, mask ignored). Writes logprobs [B, L] and a record
// tok[(b·L + s)·8 + f]:
//   f0 ℓ   per-token loss (unweighted)   f1 dℓ/dlogπ (unweighted)
//   f2 k3  KL estimate                   f3 1 if the clipped branch is active
//   f4 entropy (nats)                    f5 logsumexp of the row
//   f6 m   effective mask (0 at s = 0)   f7 unused
// mode 0: logprobs only (f0..f3 = 0). mode 1: SFT, ℓ = −logπ.
// mode 3: policy loss without a reference policy (no KL term, k3 = 0).
// modes 4 and 5: modes 2 and 3 on-policy: logπ_old is this token's own logπ
//   (read as a constant, ρ = 1), so one forward serves both; oldLogprobs is
//   not read. The lab's RL step makes one update per batch of rollouts.
// mode 2: policy loss (docs/reward-spec.md §1; PPO eq. 7 clip, verl low_var_kl):
//   ρ = exp(logπ − logπ_old), ℓ = −min(ρA, clip(ρ, 1−ε, 1+ε)A) + β·k3,
//   x = clamp(logπ_ref − logπ, ±20), k3 = clamp(eˣ − x − 1, ±10);
//   dℓ/dlogπ = −ρA where the unclipped branch is the min (else 0)
//              + β(1 − eˣ) where neither clamp is active.
// Temperature: every logit is scaled by invTemp = 1/τ first, so logπ, the
// entropy and the logsumexp (f5) are those of softmax(z/τ), the distribution
// the rollouts were sampled from (verl divides the logits by τ the same way).
// Dispatch: ceil(B·L / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/loss/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= p.B * p.L) { return; }
  let s = i % p.L;
  let b = i / p.L;
  let o = i * 8u;
  for (var f = 0u; f < 8u; f++) { tok[o + f] = 0.0; }
  if (s == 0u) { logprobs[i] = 0.0; return; }
  let r = (b * p.T + p.P + s - 1u) * p.V;
  var mx = -3.0e38;
  let k = p.invTemp;
  for (var v = 0u; v < p.V; v++) { mx = max(mx, k * logits[r + v]); }
  var se = 0.0;
  var sl = 0.0;
  for (var v = 0u; v < p.V; v++) {
    let z = k * logits[r + v] - mx;
    let e = exp(z);
    se += e;
    sl += e * z;
  }
  let lse = mx + log(se);
  let lp = k * logits[r + u32(tokens[i])] - lse;
  logprobs[i] = lp;
  tok[o + 4u] = log(se) - sl / se; // −Σ p log p
  tok[o + 5u] = lse;
  if (p.mode == 0u) { return; }
  let m = mask[i];
  tok[o + 6u] = m;
  if (p.mode == 1u) {
    tok[o + 0u] = -lp;
    tok[o + 1u] = -1.0;
    return;
  }
  let A = advantages[b];
  let onPolicy = p.mode >= 4u;
  let ratio = exp(lp - select(oldLogprobs[i], lp, onPolicy));
  let rc = clamp(ratio, 1.0 - p.clipEps, 1.0 + p.clipEps);
  let unclipped = ratio * A;
  let clipped = rc * A;
  var dsurr = 0.0;
  if (unclipped <= clipped) { dsurr = unclipped; }
  var k3 = 0.0;
  var dk3 = 0.0;
  if (p.mode == 2u || p.mode == 4u) {
    let xr = refLogprobs[i] - lp;
    let x = clamp(xr, -20.0, 20.0);
    let k3r = exp(x) - x - 1.0;
    k3 = clamp(k3r, -10.0, 10.0);
    if (abs(xr) <= 20.0 && abs(k3r) <= 10.0) { dk3 = 1.0 - exp(x); }
  }
  tok[o + 0u] = -min(unclipped, clipped) + p.beta * k3;
  tok[o + 1u] = -dsurr + p.beta * dk3;
  tok[o + 2u] = k3;
  tok[o + 3u] = select(0.0, 1.0, clipped < unclipped);
}
