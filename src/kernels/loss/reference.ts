/**
 * CPU references (f64) of the training losses: SFT cross-entropy and the
 * clipped policy-gradient surrogate with k3 KL (docs/reward-spec.md §1),
 * the references of the loss kernels (shaders/loss/). Tests only.
 *
 * Alignment (shared with the GPU kernels): logits [B, L, V] are the logits at
 * the L text positions; the logit row at text position s predicts token s+1.
 * Per-token arrays (mask, logprobs, oldLogprobs, refLogprobs) are [B, L] and
 * aligned with `tokens`: the value at s belongs to token s, i.e. it comes
 * from logit row s−1. Position s = 0 has no prediction: its logprob is 0 and
 * its mask entry is ignored (treated as 0).
 */
type F64 = Float64Array;

/** How the per-token policy loss is reduced (docs/reward-spec.md §1). */
export type PolicyAggregation = "seq-mean-token-mean" | "token-mean" | "seq-mean-token-sum-norm";

/** Per-token logprobs and entropies for `tokens` under `logits`. */
export interface TokenStats {
  /** [B, L]: log softmax(logits[s−1])[tokens[s]], 0 at s = 0. */
  logprobs: F64;
  /** [B, L]: entropy −Σ p log p of the distribution predicting token s (nats), 0 at s = 0. */
  entropy: F64;
  /** [B, L, V]: softmax probabilities of each logit row. */
  probs: F64;
}

/** Computes per-token logprobs, entropies and probabilities (see TokenStats). */
export function tokenStats(
  logits: ArrayLike<number>,
  tokens: ArrayLike<number>,
  B: number,
  L: number,
  V: number,
): TokenStats {
  const logprobs = new Float64Array(B * L);
  const entropy = new Float64Array(B * L);
  const probs = new Float64Array(B * L * V);
  for (let r = 0; r < B * L; r++) {
    let m = -Infinity;
    for (let v = 0; v < V; v++) m = Math.max(m, logits[r * V + v]);
    let s = 0;
    for (let v = 0; v < V; v++) s += Math.exp(logits[r * V + v] - m);
    const lse = m + Math.log(s);
    let h = 0;
    for (let v = 0; v < V; v++) {
      const lp = logits[r * V + v] - lse;
      const p = Math.exp(lp);
      probs[r * V + v] = p;
      h -= p * lp;
    }
    const s1 = (r % L) + 1; // this row predicts token s1 of the same example
    if (s1 < L) {
      logprobs[r + 1] = logits[r * V + tokens[r + 1]] - lse;
      entropy[r + 1] = h;
    }
  }
  return { logprobs, entropy, probs };
}

/** Mask value at (b, s) with s = 0 ignored. */
function maskAt(mask: ArrayLike<number>, L: number, i: number): number {
  return i % L === 0 ? 0 : mask[i];
}

/** dlogits [B, L, V] from per-token gradients g [B, L] of the token logprobs. */
function logprobGradToLogits(
  g: F64,
  probs: F64,
  tokens: ArrayLike<number>,
  B: number,
  L: number,
  V: number,
): F64 {
  const dlogits = new Float64Array(B * L * V);
  for (let i = 0; i < B * L; i++) {
    if (i % L === 0 || g[i] === 0) continue;
    const r = i - 1; // logit row predicting token i
    for (let v = 0; v < V; v++) dlogits[r * V + v] = -g[i] * probs[r * V + v];
    dlogits[r * V + tokens[i]] += g[i];
  }
  return dlogits;
}

/**
 * SFT cross-entropy over the masked tokens: loss = −Σ m_s·logp_s / Σ m_s
 * (0 when no token is masked in). Returns the loss and dloss/dlogits [B, L, V].
 */
export function sftLoss(
  logits: ArrayLike<number>,
  tokens: ArrayLike<number>,
  mask: ArrayLike<number>,
  B: number,
  L: number,
  V: number,
): { loss: number; dlogits: F64; logprobs: F64 } {
  const st = tokenStats(logits, tokens, B, L, V);
  let n = 0;
  for (let i = 0; i < B * L; i++) n += maskAt(mask, L, i);
  const g = new Float64Array(B * L);
  let loss = 0;
  if (n > 0) {
    for (let i = 0; i < B * L; i++) {
      const m = maskAt(mask, L, i);
      loss -= (m * st.logprobs[i]) / n;
      g[i] = -m / n;
    }
  }
  return {
    loss,
    dlogits: logprobGradToLogits(g, st.probs, tokens, B, L, V),
    logprobs: st.logprobs,
  };
}

/** Inputs of the policy loss (docs/reward-spec.md §1). Per-token arrays are [B, L]. */
export interface PolicyLossInputs {
  /** [B] per-rollout advantages. */
  advantages: ArrayLike<number>;
  /**
   * [B, L] logπ_old of each token (the sampling policy). Omitted: on-policy,
   * logπ_old = logπ taken as a constant (ρ = 1; loss_token modes 4 and 5).
   */
  oldLogprobs?: ArrayLike<number>;
  /** [B, L] logπ_ref of each token (the frozen SFT policy). */
  refLogprobs: ArrayLike<number>;
  /** [B, L] 1 for response tokens that count, else 0. */
  mask: ArrayLike<number>;
  /** PPO clip ε (docs/reward-spec.md default 0.2). */
  clipEps: number;
  /** KL coefficient β (≥ 0). */
  beta: number;
  aggregation: PolicyAggregation;
  /** Constant normaliser of "seq-mean-token-sum-norm" (Dr. GRPO): the max response length. */
  normLength: number;
  /** Sampling temperature τ > 0 (default 1): logprobs of softmax(logits/τ), as verl. */
  temperature?: number;
}

/** Loss value, per-token statistics and dloss/dlogits of the policy loss. */
export interface PolicyLossResult {
  loss: number;
  /** Token-mean over masked tokens of the (clamped) k3 KL estimate. */
  kl: number;
  /** Token-mean over masked tokens of 1[clipped branch active] (verl pg_clipfrac). */
  clipFrac: number;
  /** Token-mean over masked tokens of the predictive entropy (nats). */
  entropy: number;
  logprobs: F64;
  /** [B, L] dloss/dlogπ of each token (0 off the mask): the per-token coefficient of the backward. */
  dlogprobs: F64;
  dlogits: F64;
}

/**
 * Per-token weight of the aggregation: loss = Σ_{b,s} w_{b,s}·ℓ_{b,s}.
 *   seq-mean-token-mean:     m / (B·n_b)   (rows with n_b = 0 contribute 0)
 *   token-mean:              m / Σ m       (DAPO)
 *   seq-mean-token-sum-norm: m / (B·normLength)  (Dr. GRPO)
 */
function aggregationWeights(
  mask: ArrayLike<number>,
  B: number,
  L: number,
  agg: PolicyAggregation,
  normLength: number,
): F64 {
  const w = new Float64Array(B * L);
  let total = 0;
  for (let i = 0; i < B * L; i++) total += maskAt(mask, L, i);
  for (let b = 0; b < B; b++) {
    let nb = 0;
    for (let s = 0; s < L; s++) nb += maskAt(mask, L, b * L + s);
    for (let s = 0; s < L; s++) {
      const m = maskAt(mask, L, b * L + s);
      if (m === 0) continue;
      if (agg === "seq-mean-token-mean") w[b * L + s] = m / (B * nb);
      else if (agg === "token-mean") w[b * L + s] = m / total;
      else w[b * L + s] = m / (B * normLength);
    }
  }
  return w;
}

/**
 * Clipped policy-gradient loss with k3 KL (docs/reward-spec.md §1; PPO eq. 7,
 * GRPO eq. 3, KL clamps as verl `kl_penalty("low_var_kl")`):
 *   ρ = exp(lp − lp_old),  surr = min(ρA, clip(ρ, 1−ε, 1+ε)A),
 *   x = clamp(lp_ref − lp, ±20),  k3 = clamp(eˣ − x − 1, ±10),
 *   ℓ = −surr + β·k3,  loss = Σ w·ℓ (aggregationWeights).
 * Gradient w.r.t. lp: −ρA where the unclipped branch is the min, else 0;
 * plus β·(1 − eˣ) where neither clamp is active.
 */
export function policyLoss(
  logits: ArrayLike<number>,
  tokens: ArrayLike<number>,
  inp: PolicyLossInputs,
  B: number,
  L: number,
  V: number,
): PolicyLossResult {
  const tau = inp.temperature ?? 1;
  const scaled =
    tau === 1 ? logits : Float64Array.from(logits as ArrayLike<number>, (z) => z / tau);
  const st = tokenStats(scaled, tokens, B, L, V);
  const w = aggregationWeights(inp.mask, B, L, inp.aggregation, inp.normLength);
  const g = new Float64Array(B * L);
  let loss = 0;
  let n = 0;
  let kl = 0;
  let clip = 0;
  let ent = 0;
  for (let i = 0; i < B * L; i++) {
    const m = maskAt(inp.mask, L, i);
    if (m === 0) continue;
    const lp = st.logprobs[i];
    const A = inp.advantages[Math.floor(i / L)];
    const ratio = Math.exp(lp - (inp.oldLogprobs ? inp.oldLogprobs[i] : lp));
    const rc = Math.min(Math.max(ratio, 1 - inp.clipEps), 1 + inp.clipEps);
    const unclipped = ratio * A;
    const clipped = rc * A;
    const surr = Math.min(unclipped, clipped);
    const dsurr = unclipped <= clipped ? ratio * A : 0;
    const xr = inp.refLogprobs[i] - lp;
    const x = Math.min(Math.max(xr, -20), 20);
    const k3r = Math.exp(x) - x - 1;
    const k3 = Math.min(Math.max(k3r, -10), 10);
    const dk3 = Math.abs(xr) <= 20 && Math.abs(k3r) <= 10 ? 1 - Math.exp(x) : 0;
    loss += w[i] * (-surr + inp.beta * k3);
    g[i] = w[i] * (-dsurr + inp.beta * dk3);
    n += m;
    kl += m * k3;
    clip += m * (clipped < unclipped ? 1 : 0);
    ent += m * st.entropy[i];
  }
  const d = n > 0 ? n : 1;
  const dlogits = logprobGradToLogits(g, st.probs, tokens, B, L, V);
  if (tau !== 1) for (let k = 0; k < dlogits.length; k++) dlogits[k] /= tau; // chain rule through z/τ
  return {
    loss,
    kl: kl / d,
    clipFrac: clip / d,
    entropy: ent / d,
    logprobs: st.logprobs,
    dlogprobs: g,
    dlogits,
  };
}
