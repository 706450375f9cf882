/**
 * The page half of "runs over seeds, compare runs, fork", in Node: the seed
 * list (panel text, URL, schema), seed-averaged chart series with their 95 %
 * band, the config differences that name overlaid runs, series styles and
 * names of forks and overlays, fork keys, and the store actions.
 */
import { describe, expect, it } from "vitest";
import type { MetricRow } from "../../src/run/run-types";
import { DEFAULT_EXPERIMENT, parseExperiment } from "../../src/settings/experiment";
import {
  bandOverflows,
  buildChart,
  buildSeedSeries,
  chartToCsv,
  hasSeveralSeeds,
  seriesExtent,
} from "../../src/ui/lib/chart-data";
import { configDiff, describeChanges, joinDiff, shortNumber } from "../../src/ui/lib/config-diff";
import { attrKey, overlayKey, parseOverlayKey, seriesStyle } from "../../src/ui/lib/series-meta";
import { variantColor, variantLabel } from "../../src/settings/variant-meta";
import { baseVariant, forkKey, parseForkKey } from "../../src/settings/fork-key";
import {
  decodeExperiment,
  encodeExperiment,
  nonDefaultSettings,
  parseSeedsText,
} from "../../src/ui/lib/url-state";
import { seedsFromText } from "../../src/ui/components/experiment/ModelSection";
import { createLabStore } from "../../src/store/lab-store";
import { appendMetrics, emptyMetrics } from "../../src/store/run-data";
import { rowsBySeries } from "../../src/ui/components/charts/ChartsPanel";
import { summarizeSeeds } from "../../src/experiments/seed-stats";
import type { TrainerCommand } from "../../src/workers/protocol";

const row = (
  variant: string,
  step: number,
  value: number,
  seed?: number,
  kind: "train" | "eval" = "eval",
): MetricRow => ({
  variant,
  step,
  time: step * 2 + (seed ?? 0) * 0.1,
  kind,
  values: { rcAcc: value },
  ...(seed === undefined ? {} : { seed }),
});

describe("seed list", () => {
  it("reads commas or spaces, refuses repeats and non-integers, and leaves range and count to the schema", () => {
    expect(parseSeedsText("1,2, 3")).toEqual([1, 2, 3]);
    expect(parseSeedsText("4 5")).toEqual([4, 5]);
    expect(parseSeedsText("  ")).toBeUndefined();
    expect(() => parseSeedsText("1,1")).toThrow(/seed 1 appears twice/);
    expect(() => parseSeedsText("1,x")).toThrow(/'x'/);
    expect(seedsFromText("1,2,3")).toEqual({ seeds: [1, 2, 3] });
    expect(seedsFromText("7")).toEqual({ seeds: undefined, seed: 7 }); // one seed = a plain single run
    expect(seedsFromText("")).toEqual({ seeds: undefined });
    expect(seedsFromText("1,2,3,4,5,6,7,8,9")).toMatchObject({
      error: expect.stringMatching(/seeds:/),
    });
    expect(seedsFromText("1,2,3000000000")).toMatchObject({
      error: expect.stringMatching(/seeds:/),
    });
  });

  it("round-trips through the URL as seeds=1,2,3 and shows in the runs table's settings", () => {
    const exp = parseExperiment({ seeds: [1, 2, 3] });
    const hash = encodeExperiment(exp);
    expect(hash).toBe("v=1&seed=1&seeds=1,2,3");
    expect(decodeExperiment(hash)).toEqual({ experiment: exp, error: null });
    expect(nonDefaultSettings(exp)).toContainEqual(["seeds", "1,2,3"]);
    expect(encodeExperiment(DEFAULT_EXPERIMENT)).toBe("v=1&seed=1");
    expect(decodeExperiment("v=1&seeds=1,1").error).toMatch(/appears twice/);
    expect(decodeExperiment("v=1&seeds=1,2,3,4,5,6,7,8,9").error).toMatch(/seeds/);
  });
});

describe("seed-averaged chart series", () => {
  const rows = [
    row("grr", 0, 0.5, 1),
    row("grr", 0, 0.7, 2),
    row("grr", 5, 0.6, 1),
    row("grr", 5, 0.8, 2),
    row("grr", 5, 0.9, 3),
  ];

  it("draws the mean with its 95 % t-interval as the band and n, one point per step", () => {
    expect(hasSeveralSeeds(rows)).toBe(true);
    const s = buildSeedSeries(rows, "rcAcc", { smoothing: 0, xAxis: "step", maxPoints: 500 });
    expect(s.map((p) => [p.step, p.n])).toEqual([
      [0, 2],
      [5, 3],
    ]);
    const want = summarizeSeeds([0.6, 0.8, 0.9]);
    expect(s[1].raw).toBeCloseTo(want.mean, 12);
    expect(s[1].smooth).toBeCloseTo(want.mean, 12);
    expect(s[1].band![0]).toBeCloseTo(want.ci95[0], 12);
    expect(s[1].band![1]).toBeCloseTo(want.ci95[1], 12);
    // Wall-time x: the mean time of that step's rows.
    expect(
      buildSeedSeries(rows, "rcAcc", { smoothing: 0, xAxis: "time", maxPoints: 500 })[1].x,
    ).toBeCloseTo(10.2, 12);
    // The y range covers the lines and the bands, but a band (n = 2: t = 12.7) only up to one line range beyond the lines.
    const lineLo = 0.6;
    const lineHi = want.mean;
    const y = seriesExtent({ grr: s }).y;
    expect(s[0].band![1]).toBeGreaterThan(1.5);
    expect(y[0]).toBeCloseTo(lineLo - (lineHi - lineLo), 12);
    expect(y[1]).toBeCloseTo(lineHi + (lineHi - lineLo), 12);
    expect(bandOverflows({ grr: s }, [y[0], y[1]])).toBe(true);
    // A band inside the lines' reach widens the range to exactly its ends.
    const narrow = [
      { ...s[1], band: [0.7, 0.8] as [number, number] },
      { ...s[1], x: 6, raw: 0.5, smooth: 0.5, band: [0.45, 0.55] as [number, number] },
    ];
    expect(seriesExtent({ grr: narrow }).y).toEqual([0.45, 0.8]);
    expect(bandOverflows({ grr: narrow }, [0.45, 0.8])).toBe(false);
  });

  it("smooths the mean line with the EMA (band unsmoothed) and leaves single-seed series as before", () => {
    const s = buildSeedSeries(rows, "rcAcc", { smoothing: 0.6, xAxis: "step", maxPoints: 500 });
    expect(s[1].smooth).not.toBeCloseTo(s[1].raw, 6);
    const single = [row("rlvr", 1, 1), row("rlvr", 2, 2)];
    const chart = buildChart({ grr: rows, rlvr: single }, "rcAcc", {
      smoothing: 0.6,
      xAxis: "step",
      maxPoints: 500,
    });
    expect(chart.grr[0].band).toBeDefined();
    expect(chart.rlvr.map((p) => [p.raw, p.band])).toEqual([
      [1, undefined],
      [2, undefined],
    ]);
    expect(chart.rlvr[1].smooth).toBeCloseTo(1.625, 12);
    // Rows of one seed (Experiment.seeds of length 1) are a plain line too.
    expect(
      buildChart({ a: [row("a", 1, 1, 4), row("a", 2, 2, 4)] }, "rcAcc", {
        smoothing: 0,
        xAxis: "step",
        maxPoints: 500,
      }).a[0].band,
    ).toBeUndefined();
  });

  it("adds the interval and n to the CSV only when a series has a band", () => {
    const csv = chartToCsv(
      "rcAcc",
      buildChart({ grr: rows.slice(0, 2) }, "rcAcc", {
        smoothing: 0,
        xAxis: "step",
        maxPoints: 500,
      }),
      0,
    );
    expect(csv.split("\n")[0]).toBe(
      "variant,step,time_s,rcAcc,rcAcc_smoothed_ema0,rcAcc_ci95_lo,rcAcc_ci95_hi,n_seeds",
    );
    expect(csv.split("\n")[1]).toMatch(/^grr,0,0\.15\d*,0\.6,0\.6,-?[\d.]+,[\d.]+,2$/);
  });
});

describe("config differences (legend names of overlaid runs)", () => {
  const cur = parseExperiment({ variants: [{ name: "rlvr" }, { name: "grr" }] });

  it("lists what the other run changed, run-wide first, then the variant's weights", () => {
    const other = parseExperiment({
      algorithm: { lr: 1e-4 },
      variants: [{ name: "rlvr" }, { name: "grr", weights: { lambda: 2 } }],
    });
    expect(configDiff(cur, other, "grr")).toEqual(["lr 1e-4", "λ 2"]);
    expect(configDiff(cur, other, "rlvr")).toEqual(["lr 1e-4"]);
    expect(configDiff(cur, other)).toEqual(["lr 1e-4"]);
    expect(configDiff(cur, cur, "grr")).toEqual([]);
  });

  it("names seeds, seed lists, judge noise and a variant the current run does not train (against its defaults)", () => {
    const other = parseExperiment({
      seed: 3,
      seeds: [1, 2],
      algorithm: { groupSize: 4 },
      variants: [{ name: "pointwise-gr", judge: { sigmaB: 0.3 } }],
    });
    expect(configDiff(cur, other, "pointwise-gr")).toEqual([
      "seed 3",
      "seeds 1,2",
      "G 4",
      "σ_b 0.3",
    ]);
    expect(configDiff(other, cur)).toEqual(["seed 1", "seeds –", "G 8"]);
  });

  it("formats numbers and long lists shortly", () => {
    expect([
      shortNumber(0.0001),
      shortNumber(3e-5),
      shortNumber(2),
      shortNumber(0.123456),
      shortNumber(0),
    ]).toEqual(["1e-4", "3e-5", "2", "0.123", "0"]);
    expect(describeChanges({ lambda: 2, sigmaJ: 0.1, mapping: "edn" })).toEqual([
      "λ 2",
      "σ_j 0.1",
      "mapping edn",
    ]);
    expect(joinDiff(["a", "b", "c", "d", "e", "f"])).toBe("a, b, c, d, +2 more");
  });
});

describe("fork keys and series styles", () => {
  it("formats and parses fork keys, including a fork of a fork and a second fork at the same step", () => {
    expect(forkKey("grr", 12)).toBe("grr@fork12");
    expect(forkKey("grr", 12, 2)).toBe("grr@fork12.2");
    expect(parseForkKey("grr@fork12.2")).toEqual({ base: "grr", parent: "grr", step: 12, n: 2 });
    expect(parseForkKey("grr@fork12@fork20")).toEqual({
      base: "grr",
      parent: "grr@fork12",
      step: 20,
      n: 1,
    });
    expect(parseForkKey("grr")).toBeNull();
    expect(baseVariant("structreward@fork3")).toBe("structreward");
    expect(() => forkKey("grr", -1)).toThrow(/step/);
  });

  it("gives a fork its parent's colour, dashed, named with its step and change; an overlay dotted with the run and its differences", () => {
    const current = parseExperiment({});
    const markers = [
      {
        variant: "grr@fork12",
        step: 12,
        label: "fork of grr: lambda=2",
        fork: { parent: "grr", changes: { lambda: 2 } },
      },
    ];
    const overlays = [
      {
        id: "r2",
        label: "run 2",
        experiment: parseExperiment({
          algorithm: { lr: 1e-4 },
          variants: [{ name: "rlvr" }, { name: "grr", weights: { lambda: 2 } }],
        }),
      },
    ];
    const ctx = { current, markers, overlays };
    expect(seriesStyle("grr", ctx)).toEqual({
      kind: "variant",
      color: variantColor("grr"),
      opacity: 1,
      label: "GRR",
    });
    expect(seriesStyle("grr@fork12", ctx)).toMatchObject({
      kind: "fork",
      color: variantColor("grr"),
      dash: "6 3",
      label: "GRR fork@12 · λ 2",
    });
    expect(seriesStyle(overlayKey("r2", "grr"), ctx)).toMatchObject({
      kind: "overlay",
      color: variantColor("grr"),
      label: "GRR · run 2 · lr 1e-4, λ 2",
    });
    expect(seriesStyle(overlayKey("r2", "rlvr"), ctx).label).toBe("RLVR · run 2 · lr 1e-4");
    expect(seriesStyle(overlayKey("r9", "rlvr"), ctx).label).toBe("RLVR · r9 · same settings");
    expect(parseOverlayKey("s1abc-x/grr@fork3")).toEqual({
      overlayId: "s1abc-x",
      variant: "grr@fork3",
    });
    expect(parseOverlayKey("grr@fork3")).toBeNull();
    expect(variantColor("grr@fork12")).toBe(variantColor("grr"));
    expect(variantLabel("grr@fork12.2")).toBe("GRR fork@12.2");
    expect(attrKey("r2/grr@fork12")).toBe("r2_grr_fork12");
  });

  it("collects the rows of the shown run and of every overlay under their series keys", () => {
    const live = appendMetrics(emptyMetrics(), [row("grr", 1, 0.5), row("grr@fork1", 1, 0.5)]);
    const old = appendMetrics(emptyMetrics(), [
      row("grr", 1, 0.4),
      row("rlvr", 1, 0.3, undefined, "train"),
    ]);
    const evalRows = rowsBySeries(live, [{ id: "r1", metrics: old }], "eval");
    expect(Object.keys(evalRows)).toEqual(["grr", "grr@fork1", "r1/grr", "r1/rlvr"]);
    expect(evalRows["r1/grr"].map((r) => r.values.rcAcc)).toEqual([0.4]);
    expect(evalRows["r1/rlvr"]).toEqual([]);
  });
});

describe("store: fork, overlays, re-seed of a multi-seed run", () => {
  function setup(exp = DEFAULT_EXPERIMENT) {
    const sent: TrainerCommand[] = [];
    const store = createLabStore({ experiment: exp });
    store.getState().attachTrainer({ send: (c) => sent.push(c) });
    return { store, sent };
  }

  it("sends a fork command with the weights; refuses before the run exists", () => {
    const { store, sent } = setup();
    store.getState().fork("grr", { lambda: 2 });
    expect(sent).toEqual([]);
    expect(store.getState().errors[0].message).toMatch(/Nothing to fork/);
    store.getState().init();
    store.getState().fork("grr", { lambda: 2 });
    expect(sent.at(-1)).toEqual({
      type: "fork",
      variant: "grr",
      weights: { lambda: 2 },
      judge: undefined,
    });
  });

  it("adds, replaces and removes overlays by id", () => {
    const { store } = setup();
    const o = { id: "r1", label: "run 1", experiment: DEFAULT_EXPERIMENT, metrics: emptyMetrics() };
    store.getState().addOverlay(o);
    store.getState().addOverlay({ ...o, label: "run 1 again" });
    store.getState().addOverlay({ ...o, id: "s9" });
    expect(store.getState().overlays.map((x) => [x.id, x.label])).toEqual([
      ["r1", "run 1 again"],
      ["s9", "run 1"],
    ]);
    store.getState().removeOverlay("r1");
    store.getState().removeOverlay("nope");
    expect(store.getState().overlays.map((x) => x.id)).toEqual(["s9"]);
  });

  it("re-seeds a multi-seed run with as many fresh seeds, by init (a seed list cannot be re-seeded in place)", () => {
    const { store, sent } = setup(parseExperiment({ seeds: [1, 2, 3] }));
    store.getState().init();
    store.getState().reseed(42);
    const seeds = store.getState().experiment.seeds!;
    expect(seeds).toHaveLength(3);
    expect(seeds[0]).toBe(42);
    expect(new Set(seeds).size).toBe(3);
    expect(sent.at(-1)).toMatchObject({ type: "init", experiment: { seeds } });
  });
});
