/**
 * SCS's checkpoint protocol (SCS App. A: "we save a checkpoint every 10
 * steps and select the one with the highest average score"): among a
 * variant's held-out evals at steps that are multiples of `every` (step 0,
 * the cold start, excluded), the one with the highest `key` (Acc); ties go to
 * the earlier step. The lab selects on the held-out eval it reports, as the
 * paper selects on its benchmarks, so the figure is optimistic next to the
 * last step's (docs/reward-spec.md §4.3).
 */
import type { MetricRow } from "../run/run-types";

/** Checkpoint spacing of SCS App. A. */
const SCS_CHECKPOINT_EVERY = 10;

/**
 * `bestEval(rows, variant, seed, every = 10, key = "acc")`: the best eval
 * row's step and values, or null when no eval falls on a multiple of
 * `every`. `seed` undefined reads a single-seed run's rows (no seed field).
 * @throws Error when `every` is not a positive integer.
 */
export function bestEval(
  rows: readonly MetricRow[],
  variant: string,
  seed: number | undefined,
  every = SCS_CHECKPOINT_EVERY,
  key = "acc",
): { step: number; values: MetricRow["values"] } | null {
  if (!Number.isInteger(every) || every < 1)
    throw new Error(`bestEval: every must be a positive integer, got ${every}`);
  let best: MetricRow | null = null;
  for (const r of rows) {
    if (r.kind !== "eval" || r.variant !== variant || r.seed !== seed) continue;
    if (r.step === 0 || r.step % every !== 0) continue;
    const v = r.values[key];
    if (typeof v !== "number" || !Number.isFinite(v)) continue;
    if (
      best === null ||
      v > (best.values[key] as number) ||
      (v === best.values[key] && r.step < best.step)
    )
      best = r;
  }
  return best ? { step: best.step, values: best.values } : null;
}
