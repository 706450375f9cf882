/**
 * The band around a held-out metric at each eval step, which the guided
 * view's callouts compare (./callouts.ts) and the overview charts shade:
 *   - several seeds: the 95 % Student-t interval of the mean over the seeds
 *     present at that step (src/experiments/seed-stats.ts, the charts' seed
 *     band), where at least two seeds have the step;
 *   - one seed (or a step only one seed has reached): the 95 % Wilson score
 *     interval of a proportion over the run's held-out prompts (one answer
 *     each, Experiment.evalSize), for metrics whose unit is a fraction.
 * Lab choice (2026-12-03), decided before any callout was computed on a
 * run: the Wilson interval for one seed, so a one-seed run on the page gets
 * callouts too; for IncR, whose denominator leaves out answers without a
 * final box, evalSize is an upper bound of n and the band is a little narrow.
 * Pure: tested in Node.
 */
import type { MetricRow } from "../../run/run-types";
import { aggregateCurves } from "../../experiments/seed-stats";
import { metricDef } from "../../settings/metric-table";

/** Where a band comes from: the spread over seeds, or the held-out sample of one seed. */
export type BandKind = "seeds" | "sampling";

/** A metric's value and band at one eval step. */
export interface BandPoint {
  step: number;
  /** Mean over the seeds present (one seed: its value), the metric's unit. */
  mean: number;
  lo: number;
  hi: number;
  /** Seeds present at this step. */
  n: number;
  kind: BandKind;
}

/** z of a two-sided 95 % normal interval. */
const Z95 = 1.959963984540054;

/**
 * The 95 % Wilson score interval of a proportion p observed on n trials.
 * Source: E. B. Wilson (1927), "Probable inference, the law of succession,
 * and statistical inference", JASA 22, eq. for the score interval.
 * @throws Error when p is outside [0, 1] or n is not a positive integer.
 */
export function wilsonInterval(p: number, n: number): [number, number] {
  if (!(p >= 0 && p <= 1)) throw new Error(`wilsonInterval: p = ${p} is not in [0, 1]`);
  if (!Number.isInteger(n) || n < 1) throw new Error(`wilsonInterval: n = ${n} is not a count`);
  const z2 = Z95 * Z95;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** True when the metric table says `key` is a share in [0, 1]. */
export function isFraction(key: string): boolean {
  return metricDef(key)?.unit === "fraction";
}

/**
 * The band of metric `key` at every eval step of one variant's eval rows
 * (several seeds or one), in step order. Steps without the metric are left
 * out; a one-seed step of a non-fraction metric gets no band (left out too).
 * @param evalSize held-out prompts per eval (Experiment.evalSize), the Wilson n.
 */
export function metricBands(
  rows: readonly MetricRow[],
  key: string,
  evalSize: number,
): BandPoint[] {
  const picked = rows.filter((r) => r.kind === "eval" && Number.isFinite(r.values[key]));
  if (picked.length === 0) return [];
  const curve =
    aggregateCurves(
      picked.map((r) => ({ ...r, variant: "v" })),
      { kind: "eval", metric: key },
    ).get("v") ?? [];
  const fraction = isFraction(key);
  const out: BandPoint[] = [];
  for (const p of curve) {
    if (p.n >= 2) {
      out.push({ step: p.step, mean: p.mean, lo: p.lo, hi: p.hi, n: p.n, kind: "seeds" });
    } else if (fraction && p.mean >= 0 && p.mean <= 1) {
      const [lo, hi] = wilsonInterval(p.mean, evalSize);
      out.push({ step: p.step, mean: p.mean, lo, hi, n: 1, kind: "sampling" });
    }
  }
  return out;
}

/** True when two bands share at least one value. */
export function bandsOverlap(a: Pick<BandPoint, "lo" | "hi">, b: Pick<BandPoint, "lo" | "hi">) {
  return a.lo <= b.hi && b.lo <= a.hi;
}
