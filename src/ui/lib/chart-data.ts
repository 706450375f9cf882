/**
 * Turns metric rows into what one chart plots: per variant, the points of one
 * metric key (x = step or wall time), the raw value and its debiased EMA,
 * downsampled to at most `maxPoints` per line. Pure: the CSV export and the
 * chart use the very same points.
 */
import type { MetricRow, Marker } from "../../run/run-types";
import { debiasedEma } from "./ema";
import { lttbIndices } from "./downsample";
import { toCsv } from "./csv";
import { aggregateCurves } from "../../experiments/seed-stats";
import { wilsonInterval } from "./bands";

export type XAxisKind = "step" | "time";

export interface PlotPoint {
  /** The x value plotted (step or seconds). */
  x: number;
  step: number;
  time: number;
  raw: number;
  smooth: number;
  /**
   * Seed-averaged points only (rows of several seeds at this step): `raw` is
   * the mean over seeds, `smooth` its EMA, `band` = [lo, hi] the 95 %
   * Student-t interval of the mean (src/experiments/seed-stats.ts, not smoothed) and
   * `n` the number of seeds present.
   */
  band?: [number, number];
  n?: number;
}

export interface SeriesOptions {
  smoothing: number;
  xAxis: XAxisKind;
  maxPoints: number;
  /**
   * One-seed series of a share in [0, 1]: give each point the 95 % Wilson
   * interval over this many held-out answers as its band (./bands.ts; the
   * overview's sampling band). Absent: one-seed points have no band.
   */
  samplingN?: number;
}

export const MAX_POINTS_PER_LINE = 500;

/** Points of one variant's line for `key` (rows in arrival order). */
export function buildSeries(
  rows: readonly MetricRow[],
  key: string,
  opts: SeriesOptions,
): PlotPoint[] {
  const picked = rows.filter((r) => Number.isFinite(r.values[key]));
  // Rows arrive in step order; sort only when they do not (cheap check, long runs).
  if (picked.some((r, i) => i > 0 && r.step < picked[i - 1].step))
    picked.sort((a, b) => a.step - b.step || a.time - b.time);
  const raw = picked.map((r) => r.values[key]);
  const smooth = debiasedEma(raw, opts.smoothing);
  const xs = picked.map((r) => (opts.xAxis === "step" ? r.step : r.time));
  const idx = lttbIndices(xs, raw, opts.maxPoints);
  const n = opts.samplingN;
  return idx.map((i) => {
    const p: PlotPoint = {
      x: xs[i],
      step: picked[i].step,
      time: picked[i].time,
      raw: raw[i],
      smooth: smooth[i],
    };
    if (n !== undefined && raw[i] >= 0 && raw[i] <= 1) {
      p.band = wilsonInterval(raw[i], n);
      p.n = 1;
    }
    return p;
  });
}

/** True when the rows come from more than one seed (MetricRow.seed; rows without one count as one seed). */
export function hasSeveralSeeds(rows: readonly MetricRow[]): boolean {
  for (let i = 1; i < rows.length; i++) if (rows[i].seed !== rows[0].seed) return true;
  return false;
}

/**
 * Points of one variant's seed-averaged line for `key`: per step, the mean
 * over the seeds that have the metric there (aggregateCurves of
 * src/experiments/seed-stats.ts), its debiased EMA, the 95 % t-interval as `band` and
 * n. x = step, or the mean wall time of that step's rows. Downsampled like
 * buildSeries.
 * @param rows one variant's rows of one kind, several seeds (MetricRow.seed).
 */
export function buildSeedSeries(
  rows: readonly MetricRow[],
  key: string,
  opts: SeriesOptions,
): PlotPoint[] {
  const picked = rows.filter((r) => Number.isFinite(r.values[key]));
  if (picked.length === 0) return [];
  // One variant key for all rows: aggregateCurves groups by variant.
  const kind = picked[0].kind;
  const curve =
    aggregateCurves(
      picked.map((r) => ({ ...r, variant: "v", kind })),
      { kind, metric: key },
    ).get("v") ?? [];
  const time = new Map<number, { sum: number; n: number }>();
  for (const r of picked) {
    const t = time.get(r.step) ?? { sum: 0, n: 0 };
    t.sum += r.time;
    t.n += 1;
    time.set(r.step, t);
  }
  const raw = curve.map((p) => p.mean);
  const smooth = debiasedEma(raw, opts.smoothing);
  const times = curve.map((p) => {
    const t = time.get(p.step)!;
    return t.sum / t.n;
  });
  const xs = curve.map((p, i) => (opts.xAxis === "step" ? p.step : times[i]));
  const idx = lttbIndices(xs, raw, opts.maxPoints);
  return idx.map((i) => ({
    x: xs[i],
    step: curve[i].step,
    time: times[i],
    raw: raw[i],
    smooth: smooth[i],
    band: [curve[i].lo, curve[i].hi],
    n: curve[i].n,
  }));
}

/**
 * All series of one chart: per key, a seed-averaged line with its band
 * (buildSeedSeries) when the key's rows carry several seeds, else the raw +
 * EMA line of buildSeries (a single-seed run, as before). Keys whose rows
 * lack the metric are left out.
 */
export function buildChart(
  rowsByVariant: Readonly<Record<string, readonly MetricRow[]>>,
  key: string,
  opts: SeriesOptions,
): Record<string, PlotPoint[]> {
  const out: Record<string, PlotPoint[]> = {};
  for (const [variant, rows] of Object.entries(rowsByVariant)) {
    const s = hasSeveralSeeds(rows)
      ? buildSeedSeries(rows, key, opts)
      : buildSeries(rows, key, opts);
    if (s.length > 0) out[variant] = s;
  }
  return out;
}

/** x position of a marker on the chosen axis (wall time: the variant's row at or after the marker step). */
export function markerX(
  marker: Marker,
  rows: readonly MetricRow[],
  xAxis: XAxisKind,
): number | null {
  if (xAxis === "step") return marker.step;
  let best: MetricRow | null = null;
  for (const r of rows) if (r.step >= marker.step && (!best || r.step < best.step)) best = r;
  return best ? best.time : null;
}

/**
 * CSV of exactly the plotted points of a chart: one line per point. When a
 * series is seed-averaged, `key` is the mean over seeds and three columns
 * follow: the 95 % interval's ends and the number of seeds n (empty for
 * single-seed series).
 */
export function chartToCsv(
  key: string,
  series: Readonly<Record<string, PlotPoint[]>>,
  smoothing: number,
): string {
  const banded = Object.values(series).some((pts) => pts.some((p) => p.band));
  const rows: unknown[][] = [];
  for (const [variant, pts] of Object.entries(series)) {
    for (const p of pts) {
      const base = [variant, p.step, p.time, p.raw, p.smooth];
      rows.push(banded ? [...base, p.band?.[0] ?? "", p.band?.[1] ?? "", p.n ?? ""] : base);
    }
  }
  const head = ["variant", "step", "time_s", key, `${key}_smoothed_ema${smoothing}`];
  return toCsv(banded ? [...head, `${key}_ci95_lo`, `${key}_ci95_hi`, "n_seeds"] : head, rows);
}

/** A fixed y range around a (nearly) constant metric, so float jitter does not become the whole axis. */
export function flatDomain(series: Record<string, PlotPoint[]>): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const pts of Object.values(series))
    for (const p of pts)
      for (const v of [p.raw, p.smooth])
        if (Number.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
  if (!Number.isFinite(lo) || hi - lo > 1e-6 * Math.max(1, Math.abs(hi))) return null;
  // One "unit" either side, on round numbers so the ticks are round too.
  const unit = 10 ** Math.floor(Math.log10(Math.max(Math.abs(hi), 0.1))) / 10;
  const r = (v: number) => Number((Math.round(v / unit) * unit).toPrecision(12));
  return [r(lo) - unit, r(hi) + unit];
}

/**
 * Round ticks covering [lo, hi] (about `count` of them) and the domain they
 * span. Charts pass these explicitly so recharts never measures tick labels
 * in the DOM (a forced layout per chart per redraw).
 */
export function niceTicks(
  lo: number,
  hi: number,
  count = 5,
): { domain: [number, number]; ticks: number[] } {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return { domain: [0, 1], ticks: [0, 0.5, 1] };
  if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) {
    const pad = Math.abs(hi) > 0 ? Math.abs(hi) * 0.1 : 0.1;
    return niceTicks(lo - pad, hi + pad, count);
  }
  const raw = (hi - lo) / Math.max(1, count - 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const start = Math.floor(lo / step) * step;
  const end = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let v = start; v <= end + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return { domain: [ticks[0], ticks[ticks.length - 1]], ticks };
}

/**
 * Range of the x values and of the plotted y values over all series: the
 * lines (raw and smoothed) always, a seed band only up to one line range
 * beyond the lines (at least 10 % of their magnitude; lab choice). With two
 * or three seeds a t-interval can be many times wider than the curves, and
 * an axis fitted to it would flatten every line; the chart clips such a
 * band at the edge instead (the tooltip gives the full interval).
 */
export function seriesExtent(series: Record<string, PlotPoint[]>): {
  x: [number, number];
  y: [number, number];
} {
  let x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity;
  for (const pts of Object.values(series))
    for (const p of pts) {
      x0 = Math.min(x0, p.x);
      x1 = Math.max(x1, p.x);
      for (const v of [p.raw, p.smooth])
        if (Number.isFinite(v)) {
          y0 = Math.min(y0, v);
          y1 = Math.max(y1, v);
        }
    }
  if (Number.isFinite(y0)) {
    const pad = Math.max(y1 - y0, 0.1 * Math.max(Math.abs(y0), Math.abs(y1)), 1e-9);
    const [l0, l1] = [y0 - pad, y1 + pad];
    for (const pts of Object.values(series))
      for (const p of pts)
        if (p.band) {
          if (Number.isFinite(p.band[0])) y0 = Math.min(y0, Math.max(p.band[0], l0));
          if (Number.isFinite(p.band[1])) y1 = Math.max(y1, Math.min(p.band[1], l1));
        }
  }
  return { x: [x0, x1], y: [y0, y1] };
}

/** True when some band reaches outside `domain` (the chart must then clip it: YAxis allowDataOverflow). */
export function bandOverflows(
  series: Record<string, PlotPoint[]>,
  domain: readonly [number, number],
): boolean {
  for (const pts of Object.values(series))
    for (const p of pts)
      if (p.band && (p.band[0] < domain[0] || p.band[1] > domain[1])) return true;
  return false;
}
