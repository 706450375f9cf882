/**
 * The weight the update gives each response token's log-probability
 * (docs/reward-spec.md §6 "Token weights"): for the token t of rollout i,
 * coef = −∂loss/∂logπ(t) in the loss's own normalisation (positive: the
 * update makes the token more likely), split into the clipped surrogate's
 * part and the KL term's. The same expression as the loss's backward
 * (src/kernels/loss/reference.ts policyLoss, the GPU loss kernel's
 * reference), evaluated for one kept group instead of the batch.
 *
 * The update is on-policy (one update per batch, logπ_old is the update's own
 * forward: docs/design.md), so at the update ρ = exp(logπ − logπ_old) = 1
 * and the clip is never active; the ratio and clip flags are reported as the
 * update saw them, not as a second epoch would.
 */
import type { PolicyAggregation } from "../kernels/loss/reference";
import type { EstimatorName } from "../settings/estimator-table";
import { estimatorEntry } from "../settings/estimator-table";
import type { TaskPrompt } from "../tasks/types";

/**
 * What the RL step keeps of its sample group (the first group, the one the
 * inspector shows) to answer a token-weights request later: the tokens, the
 * sampling logprobs and the loss's settings at that step.
 */
export interface SampleTokens {
  prompt: TaskPrompt;
  /** [G, maxNew] response token ids of the group's rollouts (EOS, then padding). */
  responseIds: Int32Array;
  /**
   * [G, maxNew] logπ_old of each response token: the sampling logprobs
   * (GenerateResult.logprobs: log softmax(logits/τ) of the parameters that
   * the update starts from; equal to the update's forward without top-k /
   * top-p filtering, the lab's default).
   */
  logprobs: Float32Array;
  /** [G] response tokens up to and including EOS (the loss mask's row sums). */
  lengths: Int32Array;
  /** [G] the advantages the update used. */
  advantages: Float32Array;
  estimator: EstimatorName;
  /** The variant's β; the loss's β is 0 where the estimator folds KL into the reward. */
  beta: number;
  clipEps: number;
  aggregation: PolicyAggregation;
  temperature: number;
  /** Rows of the step's whole batch (prompts·G): the loss's B. */
  batchRows: number;
  /** Σ of the loss mask over the whole batch (token-mean's denominator). */
  batchTokens: number;
  /** The loss's constant normaliser of seq-mean-token-sum-norm: maxNew. */
  normLength: number;
}

/** One rollout's token weights (the contract's `tokenWeights` event entry). */
export interface RolloutTokenWeights {
  tokens: string[];
  logprob: number[];
  refLogprob: number[];
  ratio: number[];
  advantage: number;
  pgCoef: number[];
  klCoef: number[];
  coef: number[];
  clipped: boolean[];
}

/**
 * The per-token aggregation weight w of the loss (loss = Σ w·ℓ), for a row of
 * `rowTokens` masked tokens: seq-mean-token-mean 1/(B·n_b), token-mean
 * 1/Σm (DAPO), seq-mean-token-sum-norm 1/(B·normLength) (Dr. GRPO); as
 * src/kernels/loss/reference.ts aggregationWeights.
 */
export function aggregationWeight(
  aggregation: PolicyAggregation,
  batchRows: number,
  rowTokens: number,
  batchTokens: number,
  normLength: number,
): number {
  if (aggregation === "seq-mean-token-mean") return rowTokens > 0 ? 1 / (batchRows * rowTokens) : 0;
  if (aggregation === "token-mean") return batchTokens > 0 ? 1 / batchTokens : 0;
  return 1 / (batchRows * normLength);
}

/**
 * Token weights of one rollout: for each masked token t, with w the
 * aggregation weight, A the advantage, x = clamp(logπ_ref − logπ, ±20):
 *   pgCoef = w·ρ·A where the unclipped branch is the min (ρ = 1 on-policy), else 0
 *   klCoef = −w·β_loss·(1 − eˣ) where neither k3 clamp is active, else 0
 *   coef   = pgCoef + klCoef  = −∂loss/∂logπ(t)
 * β_loss = 0 where the estimator folds KL into the reward (REINFORCE++,
 * estimator-table `klInReward`): the KL then acts through A. Source:
 * docs/reward-spec.md §1 (PPO eq. 7, GRPO eq. 3, k3 as verl low_var_kl).
 * Arrays are [n] for the rollout's n masked tokens.
 * @throws Error when the arrays differ in length.
 */
export function rolloutTokenWeights(args: {
  logprob: readonly number[];
  refLogprob: readonly number[];
  advantage: number;
  weight: number;
  beta: number;
  clipEps: number;
  klInReward: boolean;
}): Pick<RolloutTokenWeights, "ratio" | "pgCoef" | "klCoef" | "coef" | "clipped"> {
  const { logprob, refLogprob, advantage: A, weight: w, clipEps } = args;
  if (refLogprob.length !== logprob.length)
    throw new Error(
      `rolloutTokenWeights: ${logprob.length} logprobs but ${refLogprob.length} reference logprobs`,
    );
  const beta = args.klInReward ? 0 : args.beta;
  const out = {
    ratio: [] as number[],
    pgCoef: [] as number[],
    klCoef: [] as number[],
    coef: [] as number[],
    clipped: [] as boolean[],
  };
  for (let t = 0; t < logprob.length; t++) {
    const ratio = 1; // on-policy: logπ_old is the update's own forward
    const rc = Math.min(Math.max(ratio, 1 - clipEps), 1 + clipEps);
    const unclipped = ratio * A;
    const clippedV = rc * A;
    const pg = unclipped <= clippedV ? w * ratio * A : 0;
    const xr = refLogprob[t] - logprob[t];
    const x = Math.min(Math.max(xr, -20), 20);
    const k3r = Math.exp(x) - x - 1;
    const active = beta > 0 && Math.abs(xr) <= 20 && Math.abs(k3r) <= 10;
    const kl = active ? w * beta * (Math.exp(x) - 1) : 0;
    out.ratio.push(ratio);
    out.pgCoef.push(pg);
    out.klCoef.push(kl);
    out.coef.push(pg + kl);
    out.clipped.push(clippedV < unclipped);
  }
  return out;
}

/**
 * Every rollout's token weights of a kept group, given the reference
 * policy's logprobs of its response tokens `refLogprobs` [G, maxNew]
 * (aligned with `kept.responseIds`); `vocab` maps a token id to its text.
 * Tokens past a row's length (after EOS) are not in the loss and are left out.
 */
export function groupTokenWeights(
  kept: SampleTokens,
  refLogprobs: ArrayLike<number>,
  vocab: readonly string[],
): RolloutTokenWeights[] {
  const G = kept.lengths.length;
  const M = kept.responseIds.length / G;
  const klInReward = estimatorEntry(kept.estimator).klInReward;
  return Array.from({ length: G }, (_, i) => {
    const n = kept.lengths[i];
    const ids = Array.from(kept.responseIds.subarray(i * M, i * M + n));
    const logprob = Array.from(kept.logprobs.subarray(i * M, i * M + n));
    const refLogprob = Array.from({ length: n }, (_, t) => refLogprobs[i * M + t]);
    const weight = aggregationWeight(
      kept.aggregation,
      kept.batchRows,
      n,
      kept.batchTokens,
      kept.normLength,
    );
    return {
      tokens: ids.map((id) => vocab[id] ?? `<${id}>`),
      logprob,
      refLogprob,
      advantage: kept.advantages[i],
      ...rolloutTokenWeights({
        logprob,
        refLogprob,
        advantage: kept.advantages[i],
        weight,
        beta: kept.beta,
        clipEps: kept.clipEps,
        klInReward,
      }),
    };
  });
}
