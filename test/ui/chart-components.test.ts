/**
 * The chart components draw what they are handed (docs/design.md, UI): the
 * toolbar, a metric chart and the marker list rendered to HTML
 * (react-dom/server, no browser) from props alone. The store module is
 * replaced by one that throws on first use, so a component that read the
 * store would fail here.
 */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import type { MetricRow } from "../../src/run/run-types";
import { DEFAULT_EXPERIMENT } from "../../src/settings/experiment";
import { variantLabel } from "../../src/settings/variant-meta";
import type { MetricsData } from "../../src/store/run-data";
import { buildChart } from "../../src/ui/lib/chart-data";

vi.mock("../../src/store", () => {
  throw new Error("a chart component read the store");
});
const { ChartToolbar } = await import("../../src/ui/components/charts/ChartToolbar");
const { MetricChart } = await import("../../src/ui/components/charts/MetricChart");
const { MarkerList } = await import("../../src/ui/components/charts/MarkerList");

const row = (variant: string, step: number, acc: number): MetricRow => ({
  variant,
  step,
  time: step * 2,
  kind: "eval",
  values: { acc },
});

const metrics: MetricsData = {
  byVariant: { grr: { train: [], eval: [row("grr", 5, 0.5), row("grr", 10, 0.75)] } },
  keys: { train: [], eval: ["acc"] },
  markers: [
    { variant: "grr", step: 3, label: "lambda=2" },
    { variant: "rlvr", step: 7, label: "update skipped", fault: "update-skipped" },
  ],
  version: 1,
};

const noActions = {
  setSmoothing: () => {},
  setXAxis: () => {},
  setZoomToData: () => {},
  overlayRecording: () => {},
  exportJson: () => {},
};

function toolbar(over: Partial<Parameters<typeof ChartToolbar>[0]> = {}): string {
  return renderToStaticMarkup(
    createElement(ChartToolbar, {
      metrics,
      current: DEFAULT_EXPERIMENT,
      variantNames: ["rlvr", "grr"],
      smoothing: 0.37,
      xAxis: "time",
      zoomToData: true,
      overlayPreset: null,
      actions: noActions,
      ...over,
    }),
  );
}

describe("ChartToolbar draws the settings it is handed", () => {
  it("names in its legend each variant handed, with rows or not yet, in that order", () => {
    const html = toolbar();
    const legend = [...html.matchAll(/data-series="([^"]+)"/g)].map((m) => m[1]);
    expect(legend).toEqual(["rlvr", "grr"]);
    expect(html).toContain(variantLabel("rlvr"));
    expect(html).toContain(variantLabel("grr"));
  });

  it("shows the smoothing, x axis and rate axis handed to it", () => {
    const html = toolbar();
    expect(html).toContain('value="0.37"');
    expect(html).toMatch(/aria-pressed="true"[^>]*>Wall time</);
    expect(html).toMatch(/aria-pressed="false"[^>]*>Step</);
    expect(html).toMatch(/aria-pressed="true"[^>]*>Zoom to data</);
    const unzoomed = toolbar({ xAxis: "step", zoomToData: false });
    expect(unzoomed).toMatch(/aria-pressed="true"[^>]*>Step</);
    expect(unzoomed).toMatch(/aria-pressed="true"[^>]*>0 to 1</);
  });

  it("offers the recording overlay only for a preset handed, and says when it is drawn", () => {
    expect(toolbar()).not.toContain("overlay-recording");
    expect(toolbar({ overlayPreset: "drift" })).toContain(">Overlay recording<");
    const overlaid = toolbar({
      overlayPreset: "drift",
      overlays: [{ id: "rec:drift", label: "recording", experiment: DEFAULT_EXPERIMENT, metrics }],
    });
    expect(overlaid).toMatch(/disabled=""[^>]*>Recording overlaid</);
  });
});

describe("MetricChart and MarkerList draw what they are handed", () => {
  it("a chart's data attributes carry the handed series: points, total, first step, last point", () => {
    const rows = { grr: metrics.byVariant.grr.eval };
    const series = buildChart(rows, "acc", { smoothing: 0, xAxis: "step", maxPoints: 100 });
    const html = renderToStaticMarkup(
      createElement(MetricChart, {
        metricKey: "acc",
        testId: "acc",
        kind: "eval",
        series,
        totals: { grr: 7 },
        rowsByVariant: rows,
        markers: metrics.markers,
        xAxis: "step",
        smoothing: 0,
        focus: null,
      }),
    );
    expect(html).toContain('data-testid="chart-acc"');
    expect(html).toContain('data-points-grr="2"');
    expect(html).toContain('data-total-grr="7"');
    expect(html).toContain('data-first-step-grr="5"');
    expect(html).toContain('data-last-grr="10:0.75"');
  });

  it("the marker list gives each marker's sign, step, variant and label", () => {
    const html = renderToStaticMarkup(createElement(MarkerList, { markers: metrics.markers }));
    expect(html).toContain(`⚑</span> step 3 · ${variantLabel("grr")}: lambda=2`);
    expect(html).toContain(`⚠</span> step 7 · ${variantLabel("rlvr")}: update skipped`);
    expect(renderToStaticMarkup(createElement(MarkerList, { markers: [] }))).toBe("");
  });
});
