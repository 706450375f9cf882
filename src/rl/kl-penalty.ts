/**
 * The KL penalty of the estimators that put it in the reward (REINFORCE++ and
 * its baseline form, src/settings/estimator-table.ts `klInReward`): folded
 * into each rollout's reward before the advantage kernel runs.
 */
import { isScorable } from "../kernels/advantages/reference";

/**
 * Folds a k1 KL penalty into rollout rewards before REINFORCE++ whitening:
 * `r_i − β·Σ_t (logπ_old − logπ_ref)` (docs/reward-spec.md §1; TRL RLOO, OpenRLHF).
 * `klSums[i]` is the per-rollout token sum; β ≥ 0. Non-finite stays non-finite.
 */
export function foldKlIntoRewards({
  rewards,
  klSums,
  beta,
}: {
  rewards: ReadonlyArray<number | null | undefined>;
  klSums: ReadonlyArray<number>;
  beta: number;
}): (number | null)[] {
  if (!Number.isFinite(beta) || beta < 0)
    throw new Error("foldKlIntoRewards: beta must be a finite number >= 0");
  if (klSums.length !== rewards.length)
    throw new Error("foldKlIntoRewards: klSums must have the length of rewards");
  return rewards.map((r, i) => (isScorable(r) ? r - beta * klSums[i] : null));
}
