/**
 * The premise check of a paper's scenario (docs/results.md, 2026-12-06): on
 * the outcome-only baseline arm alone, does the flaw the paper fixes stay?
 * Per seed, the flaw rate's step-0 band is p0 ± z·√(p0(1 − p0)/n) (n: the
 * held-out answers it is a share of); the premise holds on a seed when the
 * flaw rate at the last eval and its mean over the evals after step 0 are
 * both at or above the band's lower edge (direction "rises": its upper
 * edge, a flaw the baseline is to learn), and, where a step-0 gap is given
 * (two forms' accuracies), that gap is within its tolerance: the baseline
 * then has no reason to leave the flaw and does not leave it. It holds on
 * the scenario when it holds on every seed. Lab criterion; pure, CPU.
 */
import type { MetricRow } from "../run/run-types";

/** What the check reads from the eval rows. */
export interface PremiseCriterion {
  /** Eval key of the flaw rate, a share of `n` answers (e.g. "boundRate"). */
  metric: string;
  /** Answers the rate is a share of (the held-out prompts evaluated). */
  n: number;
  /** Normal quantile of the band: 1.96 for 95 % (lab choice). */
  z: number;
  /**
   * Step 0's "no reason to leave": |values[a] − values[b]| ≤ tolerance at the
   * step-0 eval (e.g. accBound vs accFree within 0.10); absent: not checked.
   */
  gap?: { a: string; b: string; tolerance: number };
  /**
   * "keeps" (default): the flaw stays at or above the band's lower edge (a flaw the cold start has);
   * "rises": at or above its upper edge (a flaw outcome-only RL is to teach, e.g. a position prior).
   */
  direction?: "keeps" | "rises";
}

/** The check on one seed. */
export interface PremiseSeed {
  seed: number;
  /** Flaw rate at step 0 and its band [low, high]. */
  p0: number;
  band: [number, number];
  /** Flaw rate at the last eval, its step, and the mean over the evals after step 0. */
  final: number;
  finalStep: number;
  meanAfter: number;
  /** |a − b| at step 0 when a gap is checked (NaN when a side is missing), else null. */
  gap0: number | null;
  holds: boolean;
}

/**
 * The premise check of `criterion` on the eval rows of one variant, keyed by
 * seed (`rows` of a single-seed run carry no seed: pass them under it).
 * @throws Error naming the seed when it has no step-0 eval with the metric,
 *   no eval after step 0, or when n or z is not positive.
 */
export function premiseCheck(
  rowsBySeed: ReadonlyMap<number, readonly MetricRow[]>,
  criterion: PremiseCriterion,
): { seeds: PremiseSeed[]; holds: boolean } {
  if (!(criterion.n > 0) || !(criterion.z > 0))
    throw new Error(`premiseCheck: n and z must be positive, got ${criterion.n}, ${criterion.z}`);
  const seeds = [...rowsBySeed].map(([seed, rows]): PremiseSeed => {
    const evals = rows
      .filter((r) => r.kind === "eval" && Number.isFinite(r.values[criterion.metric]))
      .sort((x, y) => x.step - y.step);
    const start = evals.find((r) => r.step === 0);
    const later = evals.filter((r) => r.step > 0);
    if (!start)
      throw new Error(`premiseCheck: seed ${seed} has no step-0 eval of ${criterion.metric}`);
    if (later.length === 0)
      throw new Error(`premiseCheck: seed ${seed} has no eval of ${criterion.metric} after step 0`);
    const p0 = start.values[criterion.metric];
    const half = criterion.z * Math.sqrt((p0 * (1 - p0)) / criterion.n);
    const band: [number, number] = [p0 - half, p0 + half];
    const last = later[later.length - 1];
    const meanAfter = later.reduce((s, r) => s + r.values[criterion.metric], 0) / later.length;
    const g = criterion.gap;
    const gap0 = g
      ? Math.abs((start.values[g.a] ?? Number.NaN) - (start.values[g.b] ?? Number.NaN))
      : null;
    const gapOk = !g || (gap0 !== null && gap0 <= g.tolerance);
    const final = last.values[criterion.metric];
    const edge = criterion.direction === "rises" ? band[1] : band[0];
    return {
      seed,
      p0,
      band,
      final,
      finalStep: last.step,
      meanAfter,
      gap0,
      holds: gapOk && final >= edge && meanAfter >= edge,
    };
  });
  return { seeds, holds: seeds.length > 0 && seeds.every((s) => s.holds) };
}

/** The check as printed: one line per seed, then the verdict. */
export function formatPremise(
  result: { seeds: PremiseSeed[]; holds: boolean },
  criterion: PremiseCriterion,
): string {
  const f = (x: number) => x.toFixed(3);
  const lines = result.seeds.map(
    (s) =>
      `seed ${s.seed}: ${criterion.metric} step 0 ${f(s.p0)} (band ${f(s.band[0])}–${f(s.band[1])}), ` +
      `step ${s.finalStep} ${f(s.final)}, mean after step 0 ${f(s.meanAfter)}` +
      (criterion.gap && s.gap0 !== null
        ? `, |${criterion.gap.a} − ${criterion.gap.b}| at step 0 ${f(s.gap0)} (tolerance ${criterion.gap.tolerance})`
        : "") +
      `${criterion.direction === "rises" ? " (must reach the band's upper edge)" : ""}: ${s.holds ? "holds" : "does not hold"}`,
  );
  return `${lines.join("\n")}\npremise ${result.holds ? "holds" : "does not hold"} on seeds ${result.seeds.map((s) => s.seed).join(", ")}`;
}
