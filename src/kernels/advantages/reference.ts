/**
 * Advantage estimators, CPU reference (docs/reward-spec.md §1; test/fixtures/README.md,
 * contract `groupAdvantages`). float64, two-pass variance. The GPU advantage
 * kernel is checked against this file, so it depends on nothing but the
 * estimator table's names (src/settings/estimator-table.ts).
 */
import { ESTIMATOR_NAMES, type EstimatorName, type StdKind } from "../../settings/estimator-table";

const STD_KINDS: readonly StdKind[] = ["sample", "population"];

/** Library default std kind: unbiased (n−1). Lab choice, as verl (docs/reward-spec.md §1). */
const DEFAULT_STD: StdKind = "sample";
/** Library default ε_A. Lab choice, as verl (docs/reward-spec.md §1). */
const DEFAULT_EPS = 1e-6;

/** GRPO-stable constants (StructReward eq. 11): clip ±3, σ + 1e-8, skip σ < 1e-4. */
export const GRPO_STABLE = { clip: 3, eps: 1e-8, minStd: 1e-4 } as const;

export interface GroupAdvantagesArgs {
  /** Flat array of consecutive groups; NaN/±Infinity/null/undefined = unscorable. */
  rewards: ReadonlyArray<number | null | undefined>;
  /** Rollouts per group, integer ≥ 1; rewards.length must be a multiple. */
  groupSize: number;
  estimator: EstimatorName;
  /** ε_A ≥ 0, finite. Default 1e-6 (lab choice, as verl). Ignored by rloo and grpo-stable. */
  eps?: number;
  /** "sample" (n−1, default) or "population" (n). Ignored by rloo. */
  std?: StdKind;
}

export interface AdvantageStats {
  advantages: number[];
  /** Groups whose finite rewards are all equal (or < 2 finite): metric frac_reward_zero_std. */
  zeroStdGroups: number;
  fracZeroStd: number;
  /** Rollouts with a non-finite or missing reward: metric frac_unscorable. */
  unscorable: number;
  fracUnscorable: number;
}

export function isScorable(r: number | null | undefined): r is number {
  return typeof r === "number" && Number.isFinite(r);
}

interface Moments {
  count: number;
  mean: number;
  std: number;
  allEqual: boolean;
}

/** Two-pass mean and std over the finite values (never E[x²] − E[x]²). */
function moments(
  values: ArrayLike<number | null | undefined>,
  from: number,
  to: number,
  kind: StdKind,
): Moments {
  let count = 0;
  let sum = 0;
  let first = NaN;
  let allEqual = true;
  for (let i = from; i < to; i++) {
    const r = values[i];
    if (!isScorable(r)) continue;
    if (count === 0) first = r;
    else if (r !== first) allEqual = false;
    count++;
    sum += r;
  }
  if (count === 0) return { count, mean: 0, std: 0, allEqual: true };
  const mean = allEqual ? first : sum / count;
  let ss = 0;
  for (let i = from; i < to; i++) {
    const r = values[i];
    if (!isScorable(r)) continue;
    ss += (r - mean) * (r - mean);
  }
  const denom = kind === "population" ? count : count - 1;
  const std = denom > 0 ? Math.sqrt(ss / denom) : 0;
  return { count, mean, std, allEqual };
}

function validate(args: GroupAdvantagesArgs): { eps: number; std: StdKind } {
  const { rewards, groupSize, estimator } = args;
  const eps = args.eps ?? DEFAULT_EPS;
  const std = args.std ?? DEFAULT_STD;
  if (!Array.isArray(rewards)) throw new Error("groupAdvantages: rewards must be an array");
  if (typeof groupSize !== "number" || !Number.isInteger(groupSize) || groupSize < 1) {
    throw new Error(
      `groupAdvantages: groupSize must be an integer >= 1 (got ${String(groupSize)})`,
    );
  }
  if (rewards.length % groupSize !== 0) {
    throw new Error(
      `groupAdvantages: rewards.length ${rewards.length} is not a multiple of groupSize ${groupSize}`,
    );
  }
  if (!(ESTIMATOR_NAMES as readonly string[]).includes(estimator)) {
    throw new Error(`groupAdvantages: unknown estimator ${JSON.stringify(estimator)}`);
  }
  if (!(STD_KINDS as readonly string[]).includes(std)) {
    throw new Error(`groupAdvantages: unknown std ${JSON.stringify(std)}`);
  }
  if (typeof eps !== "number" || !Number.isFinite(eps) || eps < 0) {
    throw new Error(`groupAdvantages: eps must be a finite number >= 0 (got ${String(eps)})`);
  }
  return { eps, std };
}

/** (x − mean)/(std + eps) over all finite values of `values` (REINFORCE++ batch whitening). */
function whitenBatch(
  values: ArrayLike<number | null | undefined>,
  out: number[],
  kind: StdKind,
  eps: number,
): void {
  const m = moments(values, 0, values.length, kind);
  for (let i = 0; i < values.length; i++) {
    const r = values[i];
    out[i] = !isScorable(r) || m.count < 2 || m.allEqual ? 0 : (r - m.mean) / (m.std + eps);
  }
}

/**
 * Advantages plus the zero-std / unscorable counts the trainer reports.
 * Formulas: grpo `(r−μ)/(σ+ε)` (GRR App. A, ACRE eq. 5); rloo
 * `r − mean of the others` (SCS §3.1); reinforce++ batch whitening (SCS §3.1);
 * reinforce++-baseline group-mean subtraction then batch whitening (SCS §3.1,
 * verl); grpo-stable `clip((r−μ)/(σ+1e-8), ±3)`, group skipped when σ < 1e-4
 * (StructReward eq. 11). Throws on invalid config (message names the field).
 */
export function groupAdvantageStats(args: GroupAdvantagesArgs): AdvantageStats {
  const { eps, std } = validate(args);
  const { rewards, groupSize, estimator } = args;
  const n = rewards.length;
  const out = new Array<number>(n).fill(0);
  const groups = n / groupSize;
  let zeroStdGroups = 0;
  let unscorable = 0;
  for (let i = 0; i < n; i++) if (!isScorable(rewards[i])) unscorable++;
  const baseline =
    estimator === "reinforce++-baseline" ? new Array<number | null>(n).fill(null) : null;

  for (let g = 0; g < groups; g++) {
    const from = g * groupSize;
    const to = from + groupSize;
    const m = moments(rewards, from, to, std);
    const degenerate = m.count < 2 || m.allEqual;
    if (degenerate) zeroStdGroups++;
    if (estimator === "reinforce++") continue;
    for (let i = from; i < to; i++) {
      const r = rewards[i];
      if (!isScorable(r)) continue;
      if (estimator === "grpo") out[i] = degenerate ? 0 : (r - m.mean) / (m.std + eps);
      else if (estimator === "grpo-stable") {
        if (degenerate || m.std < GRPO_STABLE.minStd) out[i] = 0;
        else {
          const a = (r - m.mean) / (m.std + GRPO_STABLE.eps);
          out[i] = Math.max(-GRPO_STABLE.clip, Math.min(GRPO_STABLE.clip, a));
        }
      } else if (estimator === "rloo") {
        // r − (sum − r)/(k − 1), written as k/(k−1)·(r − μ) to avoid cancellation.
        out[i] = degenerate ? 0 : (m.count / (m.count - 1)) * (r - m.mean);
      } else if (baseline) baseline[i] = degenerate ? 0 : r - m.mean;
    }
  }
  if (estimator === "reinforce++") whitenBatch(rewards, out, std, eps);
  if (baseline) whitenBatch(baseline, out, std, eps);
  for (let i = 0; i < n; i++) if (!Number.isFinite(out[i])) out[i] = 0; // contract 9: finite only
  return {
    advantages: out,
    zeroStdGroups,
    fracZeroStd: groups > 0 ? zeroStdGroups / groups : 0,
    unscorable,
    fracUnscorable: n > 0 ? unscorable / n : 0,
  };
}

/**
 * `groupAdvantages({rewards, groupSize, estimator, eps = 1e-6, std = "sample"})`:
 * one advantage per reward, same length, finite only. Unscorable rewards
 * (NaN, ±Infinity, null, undefined) are left out of every statistic and get 0.
 * Methods: "grpo" | "rloo" | "reinforce++" | "reinforce++-baseline" (cases
 * README contract) and "grpo-stable" (StructReward eq. 11, lab extension).
 * Throws an Error naming the field for an invalid groupSize, length, estimator,
 * std or eps. Empty rewards give [].
 */
export function groupAdvantages(args: GroupAdvantagesArgs): number[] {
  return groupAdvantageStats(args).advantages;
}
