import { describe, expect, it } from "vitest";
import type { MetricRow } from "../../src/run/run-types";
import {
  buildChart,
  buildSeries,
  chartToCsv,
  flatDomain,
  markerX,
} from "../../src/ui/lib/chart-data";
import { exportRunJson } from "../../src/ui/lib/export-json";
import { toCsv } from "../../src/ui/lib/csv";
import { appendMetrics, emptyMetrics } from "../../src/store/run-data";
import { DEFAULT_EXPERIMENT } from "../../src/settings/experiment";
import { imageToRgba } from "../../src/ui/lib/image";
import { metricMeta, sortMetricKeys } from "../../src/ui/lib/metric-meta";

const row = (
  variant: string,
  step: number,
  values: Record<string, number>,
  kind: "train" | "eval" = "train",
): MetricRow => ({
  variant,
  step,
  time: step * 0.5,
  kind,
  values,
});

describe("chart series", () => {
  it("plots raw and debiased EMA per point, sorted by step, skipping rows without the key", () => {
    const rows = [row("grr", 2, { kl: 2 }), row("grr", 1, { kl: 1 }), row("grr", 3, { other: 5 })];
    const s = buildSeries(rows, "kl", { smoothing: 0.6, xAxis: "step", maxPoints: 500 });
    expect(s.map((p) => p.x)).toEqual([1, 2]);
    expect(s[0].smooth).toBeCloseTo(1);
    expect(s[1].smooth).toBeCloseTo(1.625);
    expect(
      buildSeries(rows, "kl", { smoothing: 0, xAxis: "time", maxPoints: 500 }).map((p) => p.x),
    ).toEqual([0.5, 1]);
  });

  it("downsamples a long run to at most 500 points per line", () => {
    const rows = Array.from({ length: 20000 }, (_, i) =>
      row("rlvr", i, { reward_mean: Math.sin(i) }),
    );
    const chart = buildChart({ rlvr: rows, grr: [] }, "reward_mean", {
      smoothing: 0.6,
      xAxis: "step",
      maxPoints: 500,
    });
    expect(chart.rlvr.length).toBe(500);
    expect(chart.grr).toBeUndefined();
  });

  it("exports exactly the plotted points as CSV", () => {
    const rows = [row("grr", 1, { rcAcc: 0.5 }), row("grr", 2, { rcAcc: 0.75 })];
    const series = buildChart({ grr: rows }, "rcAcc", {
      smoothing: 0,
      xAxis: "step",
      maxPoints: 500,
    });
    expect(chartToCsv("rcAcc", series, 0)).toBe(
      "variant,step,time_s,rcAcc,rcAcc_smoothed_ema0\ngrr,1,0.5,0.5,0.5\ngrr,2,1,0.75,0.75\n",
    );
  });

  it("quotes CSV cells that need it", () => {
    expect(toCsv(["a", "b"], [['x,"y"', NaN]])).toBe('a,b\n"x,""y""",\n');
  });

  it("places a marker on the wall-time axis at the variant's first row at or after its step", () => {
    const rows = [row("grr", 1, {}), row("grr", 4, {}), row("grr", 6, {})];
    expect(markerX({ variant: "grr", step: 3, label: "λ" }, rows, "time")).toBe(2);
    expect(markerX({ variant: "grr", step: 3, label: "λ" }, rows, "step")).toBe(3);
    expect(markerX({ variant: "grr", step: 9, label: "λ" }, rows, "time")).toBeNull();
  });

  it("exports all rows (not downsampled) as JSON with the experiment", () => {
    const m = appendMetrics(emptyMetrics(), [
      row("grr", 1, { kl: 1 }),
      row("grr", 1, { acc: 0.5 }, "eval"),
    ]);
    const j = JSON.parse(exportRunJson(DEFAULT_EXPERIMENT, m));
    expect(j.rows).toHaveLength(2);
    expect(j.experiment.seed).toBe(1);
  });
});

describe("metric titles", () => {
  it("puts RC-Acc first and recognizes keys loosely", () => {
    expect(sortMetricKeys(["kl", "acc", "zzz", "rcAcc", "incR"])).toEqual([
      "rcAcc",
      "acc",
      "incR",
      "kl",
      "zzz",
    ]);
    expect(metricMeta("rc_acc").title).toBe("RC-Acc (primary)");
    expect(metricMeta("frac_reward_zero_std").title).toBe("Zero-std groups");
    expect(metricMeta("components/r_rank").title).toBe("r_rank (GRR)");
    expect(metricMeta("mystery").title).toBe("mystery");
  });
});

describe("image to canvas pixels", () => {
  it("converts grayscale and RGB float images to RGBA bytes, clamping", () => {
    expect(Array.from(imageToRgba(new Float32Array([0, 1, 2, NaN]), 2, 2, 1))).toEqual([
      0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255,
    ]);
    expect(Array.from(imageToRgba(new Float32Array([1, 0.5, 0]), 1, 1, 3))).toEqual([
      255, 128, 0, 255,
    ]);
    expect(() => imageToRgba(new Float32Array(3), 2, 2, 1)).toThrow(/3 values/);
  });
});

describe("y range of a flat metric", () => {
  it("pads a (nearly) constant series and leaves a varying one to the chart", () => {
    const p = (raw: number) => ({ x: 0, step: 0, time: 0, raw, smooth: raw });
    const d = flatDomain({ a: [p(0.05), p(0.05 + 1e-12)] })!;
    expect(d[0]).toBeCloseTo(0.04);
    expect(d[1]).toBeCloseTo(0.06);
    expect(flatDomain({ a: [p(0), p(1)] })).toBeNull();
  });
});
