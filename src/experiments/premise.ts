/**
 * The premise check of a paper's scenario (docs/reward-spec.md §4.3): on the
 * outcome-only baseline arm alone, does its flaw rate stay up over the
 * horizon? Per seed, the step-0 band is the 95 % Wilson interval of the
 * step-0 rate over its denominator (for the lucky-guess rate: the step-0
 * right answers); the premise holds on a seed when the rate at the last eval
 * is not below the band's lower end, and for the scenario when it holds on
 * every seed (criterion decided 2026-12-06, before the first baseline run).
 */
import type { MetricRow } from "../run/run-types";

/** z of a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

/**
 * `wilson95(successes, n)`: the 95 % Wilson score interval of a proportion
 * (Wilson 1927), [lo, hi] ⊂ [0, 1]; [0, 1] when n = 0.
 * @throws Error when n is not a non-negative integer or successes is outside [0, n].
 */
export function wilson95(successes: number, n: number): [number, number] {
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`wilson95: n must be an integer >= 0, got ${n}`);
  if (!(successes >= 0 && successes <= n))
    throw new Error(`wilson95: successes must be in [0, ${n}], got ${successes}`);
  if (n === 0) return [0, 1];
  const p = successes / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** What the check reads: the flaw-rate metric and the metric whose count is its denominator. */
export interface PremiseMetric {
  /** Eval key of the flaw rate (a share of `denominator`'s count), e.g. `luckyGuess`. */
  rate: string;
  /** Eval key whose value × evalSize is the rate's denominator (`acc`: the right answers); null: evalSize itself. */
  denominator: string | null;
}

/** The SCS premise's flaw rate: lucky guesses per right answer (docs/reward-spec.md §4.2–4.3). */
export const SCS_PREMISE_METRIC: PremiseMetric = { rate: "luckyGuess", denominator: "acc" };

/** One seed's check. */
export interface PremiseSeed {
  seed: number;
  /** The rate at step 0, its denominator count and its 95 % Wilson band. */
  step0: { rate: number; n: number; band: [number, number] };
  /** The rate at every eval after step 0, in step order. */
  trajectory: { step: number; rate: number }[];
  /** The rate at the last eval. */
  last: { step: number; rate: number };
  /** last.rate ≥ step0.band[0]. */
  holds: boolean;
}

/**
 * `premiseCheck(rows, variant, seeds, evalSize, metric)`: the check over the
 * eval rows of `variant` (rows with `seed` when several seeds ran; a
 * single-seed run's rows have none and take seeds[0]).
 * @returns per seed and `holds` (every seed holds).
 * @throws Error naming the seed when it has no step-0 eval, no later eval, or
 *   lacks the metric.
 */
export function premiseCheck(
  rows: readonly MetricRow[],
  variant: string,
  seeds: readonly number[],
  evalSize: number,
  metric: PremiseMetric = SCS_PREMISE_METRIC,
): { seeds: PremiseSeed[]; holds: boolean } {
  const single = seeds.length === 1 && rows.every((r) => r.seed === undefined);
  const perSeed = seeds.map((seed): PremiseSeed => {
    const evals = rows
      .filter(
        (r) => r.kind === "eval" && r.variant === variant && (single ? true : r.seed === seed),
      )
      .sort((a, b) => a.step - b.step);
    const metricOf = (r: MetricRow, key: string) => {
      const v = r.values[key];
      if (typeof v !== "number" || !Number.isFinite(v))
        throw new Error(`premise: seed ${seed} step ${r.step} has no ${key}`);
      return v;
    };
    const first = evals.find((r) => r.step === 0);
    if (!first) throw new Error(`premise: seed ${seed} has no step-0 eval of ${variant}`);
    const later = evals.filter((r) => r.step > 0);
    if (later.length === 0) throw new Error(`premise: seed ${seed} has no eval after step 0`);
    const rate0 = metricOf(first, metric.rate);
    const n = Math.round(
      metric.denominator === null ? evalSize : metricOf(first, metric.denominator) * evalSize,
    );
    const band = wilson95(Math.min(n, Math.round(rate0 * n)), n);
    const trajectory = later.map((r) => ({ step: r.step, rate: metricOf(r, metric.rate) }));
    const last = trajectory[trajectory.length - 1];
    return { seed, step0: { rate: rate0, n, band }, trajectory, last, holds: last.rate >= band[0] };
  });
  return { seeds: perSeed, holds: perSeed.every((s) => s.holds) };
}
