/**
 * What the credit chart ("what each variant pays for") plots: per variant and
 * rollout class, one line over the training steps of the class's mean
 * advantage, mean reward or share (the RL step's `credit/<class>/<measure>`
 * values, src/settings/metric-table.ts). A class with no rollout at a step
 * has a NaN (or, after JSON, null) value there: that step has no point, not
 * a zero. Rows of several seeds give per step the mean over the seeds where
 * the class occurred and its 95 % Student-t interval (src/experiments/seed-stats.ts,
 * the band the other charts draw), where at least two seeds have it.
 * Pure: tested on recorded rows (test/ui/credit-data.test.ts).
 */
import type { MetricRow } from "../../run/run-types";
import { aggregateCurves } from "../../experiments/seed-stats";
import { hasSeveralSeeds, niceTicks } from "./chart-data";

/** What the chart's y axis shows for each class. */
export type CreditMeasure = "advantage" | "reward" | "share";

/** A rollout class as the chart names it (the metric table's rollout classes). */
export interface CreditClass {
  key: string;
  label: string;
  definition: string;
}

/** The metric row key of a class's measure: `credit/<class>/<measure>`. */
function valueKey(cls: string, measure: CreditMeasure): string {
  return `credit/${cls}/${measure}`;
}

/** One step of a credit line. */
interface CreditPoint {
  step: number;
  /** Mean over the seeds where the class occurred (one seed: its value), the measure's unit. */
  value: number;
  /** 95 % Student-t interval of the mean over seeds; absent with one seed. */
  band?: [number, number];
  /** Seeds with a value at this step. */
  n: number;
}

/** One line: a variant's values of one class, in step order. */
export interface CreditLine {
  variant: string;
  cls: string;
  points: CreditPoint[];
  /** Every training step of the variant (any seed), ascending: where the line breaks between its points. */
  steps: number[];
}

/** A point as the chart draws it: x = step; y null where the line breaks. */
export interface GapPoint {
  x: number;
  /** Null at a step of the variant where the class had no rollout. */
  y: number | null;
  band?: [number, number];
  n: number;
}

/**
 * A line's points with a null at each of the variant's steps, between its
 * first and last point, where the class had no rollout: the chart breaks the
 * line there instead of drawing it across the step.
 */
export function gapPoints(l: CreditLine): GapPoint[] {
  const at = new Map(l.points.map((p) => [p.step, p]));
  const first = l.points[0]?.step ?? 0;
  const last = l.points[l.points.length - 1]?.step ?? 0;
  return l.steps
    .filter((s) => s >= first && s <= last)
    .map((s) => {
      const p = at.get(s);
      return p ? { x: s, y: p.value, band: p.band, n: p.n } : { x: s, y: null, n: 0 };
    });
}

/** A finite number in a row (a class empty at a step is NaN, or null once written as JSON). */
const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/**
 * The credit lines of a run: for every variant (in the given order) and
 * class (in `classes`' order), the points of `credit/<class>/<measure>` at
 * the steps where the class occurred. A (variant, class) pair with no point
 * has no line. Linear in the rows times the classes (and the steps' sort).
 * @param rowsByVariant each variant's training rows (MetricRow kind "train"), any seeds.
 */
export function buildCreditLines(
  rowsByVariant: Readonly<Record<string, readonly MetricRow[]>>,
  classes: readonly Pick<CreditClass, "key">[],
  measure: CreditMeasure,
): CreditLine[] {
  const out: CreditLine[] = [];
  for (const [variant, all] of Object.entries(rowsByVariant)) {
    const rows = all.filter((r) => r.kind === "train");
    const seeds = hasSeveralSeeds(rows);
    const steps = Array.from(new Set(rows.map((r) => r.step))).sort((a, b) => a - b);
    for (const c of classes) {
      const key = valueKey(c.key, measure);
      const picked = rows.filter((r) => finite(r.values[key]));
      if (picked.length === 0) continue;
      let points: CreditPoint[];
      if (seeds) {
        const curve =
          aggregateCurves(
            picked.map((r) => ({ ...r, variant: "v" })),
            { kind: "train", metric: key },
          ).get("v") ?? [];
        points = curve.map((p) => ({
          step: p.step,
          value: p.mean,
          n: p.n,
          ...(p.n >= 2 ? { band: [p.lo, p.hi] as [number, number] } : {}),
        }));
      } else {
        points = picked
          .map((r) => ({ step: r.step, value: r.values[key], n: 1 }))
          .sort((a, b) => a.step - b.step);
      }
      out.push({ variant, cls: c.key, points, steps });
    }
  }
  return out;
}

/** True when some training row carries a credit value (a run or recording made before them has none). */
export function hasCreditMetrics(rowsByVariant: Readonly<Record<string, readonly MetricRow[]>>) {
  for (const rows of Object.values(rowsByVariant))
    for (const r of rows)
      if (r.kind === "train") for (const k in r.values) if (k.startsWith("credit/")) return true;
  return false;
}

/**
 * A class's rollout-weighted mean of a measure over a variant's steps (and
 * seeds): Σ share·value / Σ share over the rows where the class occurred,
 * i.e. the mean over all its rollouts, since every step of a variant has the
 * same number of rollouts (batchPrompts × groupSize). Null when the class
 * never occurred. `rollouts` is Σ share (in steps' worth of rollouts).
 * @param rows one variant's training rows, any seeds.
 */
export function pooledCredit(
  rows: readonly MetricRow[],
  cls: string,
  measure: Exclude<CreditMeasure, "share">,
): { value: number; share: number; steps: number } | null {
  const shareKey = valueKey(cls, "share");
  const key = valueKey(cls, measure);
  let w = 0;
  let sum = 0;
  let steps = 0;
  for (const r of rows) {
    if (r.kind !== "train") continue;
    const s = r.values[shareKey];
    const v = r.values[key];
    steps++;
    if (!finite(s) || !finite(v) || s <= 0) continue;
    w += s;
    sum += s * v;
  }
  return w > 0 ? { value: sum / w, share: w / steps, steps } : null;
}

/**
 * The credit chart's axes from its lines' points (gapPoints): x from 0 to the
 * last step (at least 1); y [0, 1] for shares, else from the seed means only,
 * 0 always shown. A seed band is not read: a class with one or two rollouts in
 * some seed has a t band of ±10 or more, which would flatten every line to 0;
 * the chart cuts such a band at its edge (lab choice, 2026-12-06).
 */
export function creditAxes(
  points: readonly (readonly GapPoint[])[],
  measure: CreditMeasure,
): { x: ReturnType<typeof niceTicks>; y: ReturnType<typeof niceTicks> } {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  let xMax = 1;
  for (const line of points)
    for (const p of line) {
      if (p.y === null) continue;
      lo = Math.min(lo, p.y);
      hi = Math.max(hi, p.y);
      xMax = Math.max(xMax, p.x);
    }
  const y =
    measure === "share"
      ? niceTicks(0, 1, 5)
      : Number.isFinite(lo)
        ? niceTicks(Math.min(lo, 0), Math.max(hi, 0), 5)
        : niceTicks(-1, 1, 5);
  return { x: niceTicks(0, xMax, 6), y };
}
