/**
 * Statistics over seeds: a per-seed number (say, final RC-Acc of a variant
 * minus the baseline's, one value per training seed) summarised as a mean
 * with a two-sided 95 % Student-t interval, a verdict on whether that
 * interval supports a paper's claimed direction, and per-step curves of a
 * metric averaged over seeds.
 *
 * Units: whatever the inputs are in (the functions never rescale); every
 * output number is in the input's unit. Steps are RL steps (MetricRow.step).
 *
 * Formulas:
 *   mean   x̄ = Σ xᵢ / n                                   (textbook)
 *   sd     s = √( Σ (xᵢ − x̄)² / (n − 1) )                  (sample sd, Bessel's correction; textbook)
 *   ci95   x̄ ± t_{0.975, n−1} · s / √n                    (Student's t interval for a mean,
 *                                                           e.g. NIST/SEMATECH e-Handbook §7.2.2.1)
 *   t_{0.975, n−1} from jStat.studentt.inv (npm `jstat` 1.9.6).
 *   MDE    (t_{1−α/2, n−1} + t_{1−β, n−1}) · s / √n      (minimum detectable effect of the paired
 *                                                           t-test at n, two-sided level α, power 1 − β)
 *   N      smallest n ≥ 2 with n ≥ (t_{1−α/2, n−1} + t_{1−β, n−1})² · (s/δ)²
 *                                                          (seeds an effect δ needs; both from the
 *                                                           sample-size formula of the one-sample / paired
 *                                                           t-test, NIST/SEMATECH e-Handbook §7.2.2.2
 *                                                           "Sample sizes required"; α = 0.05, β = 0.2)
 *   IUT    a claim of several paired comparisons holds only when each does (intersection–union
 *          test: Berger 1982; Berger & Hsu 1996, Statistical Science 11(4)); each at level α gives
 *          the whole test level α.
 * Treating seeds as independent draws and their values as roughly normal is
 * what the t interval assumes; with few seeds it is the usual choice (lab
 * choice), not a guarantee.
 */
import jStat from "jstat";
import type { MetricRow } from "../run/run-types";

/** Mean, sample sd and 95 % Student-t interval of one number per seed. */
export interface SeedSummary {
  /** Number of seeds (≥ 1). */
  n: number;
  /** Arithmetic mean over seeds, in the input's unit. */
  mean: number;
  /**
   * Sample standard deviation (divisor n − 1), in the input's unit. For n = 1
   * it is undefined mathematically; reported as 0 (lab choice) so that the
   * summary stays finite and JSON-safe. Read it together with n.
   */
  sd: number;
  /**
   * Two-sided 95 % Student-t interval [lo, hi] for the mean over seeds. For
   * n = 1 there is no interval: it is [mean, mean] (lab choice), and
   * `verdict` answers "inconclusive" for it.
   */
  ci95: [number, number];
  /** The input values, copied, in input order. */
  perSeed: number[];
}

/** Outcome of checking a paper's claimed direction against a seed interval. */
export type SeedVerdict = "reproduced" | "not reproduced" | "inconclusive";

/**
 * Mean, sample sd (n − 1) and two-sided 95 % Student-t interval
 * mean ± t_{0.975, n−1} · sd / √n over the given per-seed values (formulas
 * in the module comment). n = 1 gives sd 0 and ci95 [mean, mean]: one seed
 * gives no interval.
 * @param perSeed one finite number per seed, any unit; length n ≥ 1.
 * @throws Error when `perSeed` is empty, or naming the first index whose
 *   value is not a finite number (NaN, ±Infinity, or not a number).
 */
export function summarizeSeeds(perSeed: number[]): SeedSummary {
  if (perSeed.length === 0) throw new Error("summarizeSeeds: no values (need at least one seed)");
  for (let i = 0; i < perSeed.length; i++) {
    const v = perSeed[i];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new Error(`summarizeSeeds: perSeed[${i}] is ${String(v)}, not a finite number`);
    }
  }
  const values = perSeed.slice();
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { n, mean, sd: 0, ci95: [mean, mean], perSeed: values };
  const ss = values.reduce((a, x) => a + (x - mean) * (x - mean), 0);
  const sd = Math.sqrt(ss / (n - 1));
  const t = studentT975(n - 1);
  const half = (t * sd) / Math.sqrt(n);
  return { n, mean, sd, ci95: [mean - half, mean + half], perSeed: values };
}

/**
 * t_{0.975, dof}: the 97.5 % quantile of Student's t (two-sided 95 %), from
 * jStat.studentt.inv.
 * @throws Error when jstat returns a non-finite or non-positive value (a
 *   guard on the dependency; it does not happen for dof ≥ 1).
 */
function studentT975(dof: number): number {
  const t = jStat.studentt.inv(0.975, dof);
  if (!Number.isFinite(t) || t <= 0)
    throw new Error(`seed-stats: jstat gave t_{0.975, ${dof}} = ${t}`);
  return t;
}

/**
 * Whether a seed interval supports a paper's claimed direction of an effect
 * (lab choice: an effect counts only when the whole 95 % interval agrees).
 *
 * For direction 1 (the paper claims the quantity is positive):
 *   "reproduced"      lo > 0   (whole interval strictly above 0)
 *   "not reproduced"  hi ≤ 0   (whole interval at or below 0; an interval
 *                              touching 0 from below, e.g. [−0.2, 0], counts
 *                              as not reproduced, and so does [0, 0])
 *   "inconclusive"    lo ≤ 0 < hi (straddles 0, or starts at 0: [0, 0.3])
 * For direction −1 the mirror image: reproduced when hi < 0, not reproduced
 * when lo ≥ 0, inconclusive otherwise.
 * With n = 1 (no interval) the verdict is always "inconclusive". With n ≥ 2
 * and all values equal (sd 0) the interval is the single point `mean` and the
 * rules above apply to it.
 * @param summary from summarizeSeeds.
 * @param direction 1 when the paper claims the quantity > 0, −1 when < 0.
 * @throws Error when direction is neither 1 nor −1 (a runtime guard for
 *   untyped callers, e.g. values read from JSON).
 */
export function verdict(summary: SeedSummary, direction: 1 | -1): SeedVerdict {
  if (direction !== 1 && direction !== -1)
    throw new Error(`verdict: direction must be 1 or -1, got ${String(direction)}`);
  if (summary.n < 2) return "inconclusive";
  // Flip to direction 1: the paper's side is then "> 0".
  const lo = direction === 1 ? summary.ci95[0] : -summary.ci95[1];
  const hi = direction === 1 ? summary.ci95[1] : -summary.ci95[0];
  if (lo > 0) return "reproduced";
  if (hi <= 0) return "not reproduced";
  return "inconclusive";
}

/** One step of a seed-averaged curve. */
export interface CurvePoint {
  /** RL step (MetricRow.step). */
  step: number;
  /** Mean of the metric over the seeds present at this step, metric's unit. */
  mean: number;
  /** Lower end of the 95 % Student-t interval (= mean when n = 1). */
  lo: number;
  /** Upper end of the 95 % Student-t interval (= mean when n = 1). */
  hi: number;
  /** Number of seeds present at this step. */
  n: number;
  /**
   * The per-seed values, sorted by seed; a row without `seed` (single-seed
   * run) is reported with seed `null`.
   */
  perSeed: { seed: number | null; value: number }[];
}

/**
 * Seed-averaged curves of one metric: for each variant, for each step, the
 * summarizeSeeds of the metric over the seeds whose row of the given kind
 * has that metric at that step. Points are sorted by step ascending; the map
 * keeps variants in order of first appearance among the used rows.
 *
 * Rows of the other kind and rows whose `values` lack the metric are
 * skipped. Rows without `seed` count as one seed (seed `null` in perSeed).
 * A step present for only some seeds gets a point over those seeds (n
 * smaller there); n = 1 gives lo = hi = mean.
 * @param rows metric rows of any variants, kinds and seeds, in any order.
 * @param opts.kind which rows to use ("train" every step, "eval" every E steps).
 * @param opts.metric key of MetricRow.values, e.g. "rcAcc".
 * @returns variant → points, each as CurvePoint.
 * @throws Error when two used rows share variant, step and seed (the same
 *   seed would count twice), or when a used value is not finite (the error
 *   names variant, step and seed).
 */
export function aggregateCurves(
  rows: MetricRow[],
  opts: { kind: "train" | "eval"; metric: string },
): Map<string, CurvePoint[]> {
  // variant → step → seed key → value
  const byVariant = new Map<string, Map<number, Map<number | null, number>>>();
  for (const r of rows) {
    if (r.kind !== opts.kind) continue;
    if (!Object.hasOwn(r.values, opts.metric)) continue;
    const value = r.values[opts.metric];
    if (value === undefined) continue;
    const seed = r.seed ?? null;
    const where = `variant ${r.variant}, step ${r.step}, seed ${seed ?? "(none)"}`;
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new Error(
        `aggregateCurves: ${opts.metric} is ${String(value)} at ${where}, not a finite number`,
      );
    }
    let steps = byVariant.get(r.variant);
    if (!steps) {
      steps = new Map();
      byVariant.set(r.variant, steps);
    }
    let seeds = steps.get(r.step);
    if (!seeds) {
      seeds = new Map();
      steps.set(r.step, seeds);
    }
    if (seeds.has(seed))
      throw new Error(`aggregateCurves: two ${opts.kind} rows with ${opts.metric} at ${where}`);
    seeds.set(seed, value);
  }
  const out = new Map<string, CurvePoint[]>();
  for (const [variant, steps] of byVariant) {
    const points: CurvePoint[] = [];
    for (const step of [...steps.keys()].sort((a, b) => a - b)) {
      const perSeed = [...steps.get(step)!.entries()]
        .map(([seed, value]) => ({ seed, value }))
        .sort((a, b) => (a.seed ?? -Infinity) - (b.seed ?? -Infinity));
      const s = summarizeSeeds(perSeed.map((p) => p.value));
      points.push({ step, mean: s.mean, lo: s.ci95[0], hi: s.ci95[1], n: s.n, perSeed });
    }
    out.set(variant, points);
  }
  return out;
}

/** Two-sided level α and power of the sample-size figures (docs/reward-spec.md §2, decided 2026-12-03). */
const POWER_DEFAULTS = { alpha: 0.05, power: 0.8 } as const;

/** t quantile of Student's t with `dof` degrees of freedom (jStat.studentt.inv). */
function tQuantile(p: number, dof: number): number {
  const t = jStat.studentt.inv(p, dof);
  if (!Number.isFinite(t)) throw new Error(`seed-stats: jstat gave t_{${p}, ${dof}} = ${t}`);
  return t;
}

function checkPower(alpha: number, power: number): void {
  if (!(alpha > 0 && alpha < 1)) throw new Error(`alpha must be in (0, 1), got ${String(alpha)}`);
  if (!(power > 0.5 && power < 1))
    throw new Error(`power must be in (0.5, 1), got ${String(power)}`);
}

/**
 * Minimum detectable effect of a paired t-test on n per-seed differences
 * with sample sd `sd`: (t_{1−α/2, n−1} + t_{power, n−1}) · sd / √n
 * (NIST/SEMATECH e-Handbook §7.2.2.2; module comment). Same unit as sd.
 * Infinity for n < 2 (no sd, no test). Worked value: n = 3, sd = 0.03 →
 * (4.303 + 1.061) · 0.03 / √3 = 0.0929.
 * @throws Error when n is not an integer ≥ 1, sd is negative or not
 *   finite, or α / power are out of range.
 */
export function minDetectableEffect({
  n,
  sd,
  alpha = POWER_DEFAULTS.alpha,
  power = POWER_DEFAULTS.power,
}: {
  n: number;
  sd: number;
  alpha?: number;
  power?: number;
}): number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`n must be an integer >= 1, got ${String(n)}`);
  if (!(Number.isFinite(sd) && sd >= 0))
    throw new Error(`sd must be a finite number >= 0, got ${String(sd)}`);
  checkPower(alpha, power);
  if (n < 2) return Number.POSITIVE_INFINITY;
  return ((tQuantile(1 - alpha / 2, n - 1) + tQuantile(power, n - 1)) * sd) / Math.sqrt(n);
}

/**
 * Seeds a paired t-test needs to detect an effect `effect` (two-sided α,
 * the given power) when the per-seed sd is `sd`: the smallest n ≥ 2 with
 * n ≥ (t_{1−α/2, n−1} + t_{power, n−1})² · (sd/effect)² (NIST/SEMATECH
 * e-Handbook §7.2.2.2). 2 when sd is 0; Infinity when effect is 0 or more
 * than `max` seeds would be needed. Worked value: sd 0.03, effect 0.024 →
 * 15 (n = 14: (2.160 + 0.870)² · 1.5625 = 14.35 > 14; n = 15: (2.145 +
 * 0.868)² · 1.5625 = 14.18 ≤ 15).
 * @throws Error when sd or effect is not finite, sd is negative, or α /
 *   power are out of range.
 */
export function seedsNeeded({
  sd,
  effect,
  alpha = POWER_DEFAULTS.alpha,
  power = POWER_DEFAULTS.power,
  max = 100_000,
}: {
  sd: number;
  effect: number;
  alpha?: number;
  power?: number;
  max?: number;
}): number {
  if (!(Number.isFinite(sd) && sd >= 0))
    throw new Error(`sd must be a finite number >= 0, got ${String(sd)}`);
  if (!Number.isFinite(effect)) throw new Error(`effect must be finite, got ${String(effect)}`);
  checkPower(alpha, power);
  if (sd === 0) return 2;
  if (effect === 0) return Number.POSITIVE_INFINITY;
  const ratio = (sd / effect) ** 2;
  const need = (n: number) =>
    (tQuantile(1 - alpha / 2, n - 1) + tQuantile(power, n - 1)) ** 2 * ratio <= n;
  // need(n) is monotone in n (the left side falls, n rises): bisect on [2, max].
  if (!need(max)) return Number.POSITIVE_INFINITY;
  let lo = 2;
  let hi = max;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (need(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The intersection–union verdict of a claim made of several paired
 * comparisons (Berger 1982): "reproduced" when every comparison is,
 * "not reproduced" when any is, else "inconclusive". An empty list is
 * "inconclusive".
 */
export function intersectionUnionVerdict(verdicts: readonly SeedVerdict[]): SeedVerdict {
  if (verdicts.length === 0) return "inconclusive";
  if (verdicts.includes("not reproduced")) return "not reproduced";
  return verdicts.every((v) => v === "reproduced") ? "reproduced" : "inconclusive";
}
