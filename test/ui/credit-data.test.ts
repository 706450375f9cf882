// The credit chart's lines (src/ui/lib/credit-data.ts) on hand-written
// training rows that follow the RL step's credit keys: one line per variant
// and class that occurred, no point (not 0) at a step where the class was
// empty (NaN in memory, null once written as JSON), the mean over seeds with
// its 95 % t band, and the rollout-weighted pooled mean the guide reads.
import { describe, expect, it } from "vitest";
import { ROLLOUT_CLASSES } from "../../src/settings/credit-table";
import type { MetricRow } from "../../src/run/run-types";
import { recordedCreditRows } from "../support/credit-rows";
import {
  buildCreditLines,
  creditAxes,
  type GapPoint,
  gapPoints,
  hasCreditMetrics,
  pooledCredit,
} from "../../src/ui/lib/credit-data";

const CLASSES = [{ key: "faithful-right" }, { key: "flawed-right" }, { key: "no-answer" }];

/** One training row: class → [share, reward, advantage] (NaN: empty class). */
function row(
  variant: string,
  step: number,
  cls: Record<string, [number, number, number]>,
  seed?: number,
): MetricRow {
  const values: Record<string, number> = { reward_mean: 0.5 };
  for (const [c, [s, r, a]] of Object.entries(cls)) {
    values[`credit/${c}/share`] = s;
    values[`credit/${c}/reward`] = r;
    values[`credit/${c}/advantage`] = a;
  }
  return {
    variant,
    step,
    time: step,
    kind: "train",
    values,
    ...(seed !== undefined ? { seed } : {}),
  };
}

const oneSeed: Record<string, MetricRow[]> = {
  rlvr: [
    row("rlvr", 1, {
      "faithful-right": [0.5, 1, 0.4],
      "flawed-right": [0.25, 1, 0.4],
      "no-answer": [0, Number.NaN, Number.NaN],
    }),
    row("rlvr", 2, {
      "faithful-right": [0.75, 1, 0.2],
      "flawed-right": [0, Number.NaN, Number.NaN],
      "no-answer": [0, Number.NaN, Number.NaN],
    }),
    row("rlvr", 3, {
      "faithful-right": [0.25, 1, 0.6],
      "flawed-right": [0.5, 1, 0.6],
      "no-answer": [0, Number.NaN, Number.NaN],
    }),
  ],
  scs: [
    row("scs", 1, {
      "faithful-right": [0.5, 1.5, 0.8],
      "flawed-right": [0.25, 0.5, -0.3],
      "no-answer": [0.25, 0, -1.1],
    }),
  ],
};

describe("credit lines", () => {
  it("draws one line per variant and class that occurred, with no point where the class was empty", () => {
    const lines = buildCreditLines(oneSeed, CLASSES, "advantage");
    expect(lines.map((l) => `${l.variant}/${l.cls}`)).toEqual([
      "rlvr/faithful-right",
      "rlvr/flawed-right",
      "scs/faithful-right",
      "scs/flawed-right",
      "scs/no-answer",
    ]);
    const flawed = lines.find((l) => l.variant === "rlvr" && l.cls === "flawed-right")!;
    // Step 2 had no flawed-right rollout: no point there, not 0.
    expect(flawed.points.map((p) => [p.step, p.value])).toEqual([
      [1, 0.4],
      [3, 0.6],
    ]);
    expect(flawed.points[0].band).toBeUndefined();
    // Drawn with a break at step 2, not a segment from step 1 to 3.
    expect(flawed.steps).toEqual([1, 2, 3]);
    expect(gapPoints(flawed).map((p) => [p.x, p.y])).toEqual([
      [1, 0.4],
      [2, null],
      [3, 0.6],
    ]);
  });

  it("reads a class empty in a row written as JSON (null) as no point", () => {
    const json = JSON.parse(JSON.stringify(oneSeed)) as Record<string, MetricRow[]>;
    expect(json.rlvr[1].values["credit/flawed-right/advantage"]).toBeNull();
    const lines = buildCreditLines(json, CLASSES, "reward");
    expect(
      lines
        .find((l) => l.variant === "rlvr" && l.cls === "flawed-right")!
        .points.map((p) => p.step),
    ).toEqual([1, 3]);
    expect(hasCreditMetrics(json)).toBe(true);
    expect(
      hasCreditMetrics({
        rlvr: [{ variant: "rlvr", step: 1, time: 1, kind: "train", values: { reward_mean: 1 } }],
      }),
    ).toBe(false);
  });

  it("averages over the seeds where the class occurred, with the 95 % t band from two seeds", () => {
    const rows = {
      grr: [
        row("grr", 1, { "flawed-right": [0.25, 1, 0.2] }, 31),
        row("grr", 1, { "flawed-right": [0.5, 1, 0.6] }, 32),
        row("grr", 1, { "flawed-right": [0, Number.NaN, Number.NaN] }, 33),
        row("grr", 2, { "flawed-right": [0.25, 1, -0.5] }, 31),
      ],
    };
    const [line] = buildCreditLines(rows, [{ key: "flawed-right" }], "advantage");
    // Step 1: seeds 31 and 32 (33 had none): mean 0.4, sd = 0.2828…, t(0.975, 1) = 12.706…
    // half-width = 12.7062 · 0.28284 / √2 = 2.5412.
    expect(line.points[0].step).toBe(1);
    expect(line.points[0].n).toBe(2);
    expect(line.points[0].value).toBeCloseTo(0.4, 12);
    expect(line.points[0].band![0]).toBeCloseTo(0.4 - 2.54124, 4);
    expect(line.points[0].band![1]).toBeCloseTo(0.4 + 2.54124, 4);
    // Step 2: one seed, no band.
    expect(line.points[1]).toEqual({ step: 2, value: -0.5, n: 1 });
  });

  it("pools a class's mean over its rollouts, weighting each step by the class's share", () => {
    // RLVR's flawed-right rollouts: step 1 share 0.25 at 0.4, step 3 share 0.5 at 0.6:
    // (0.25·0.4 + 0.5·0.6) / 0.75 = 0.4/0.75 = 0.5333…; share over 3 steps = 0.75/3 = 0.25.
    const p = pooledCredit(oneSeed.rlvr, "flawed-right", "advantage")!;
    expect(p.value).toBeCloseTo(0.4 / 0.75, 12);
    expect(p.share).toBeCloseTo(0.25, 12);
    expect(p.steps).toBe(3);
    // Faithful right: (0.5·0.4 + 0.75·0.2 + 0.25·0.6) / 1.5 = 0.5/1.5.
    expect(pooledCredit(oneSeed.rlvr, "faithful-right", "advantage")!.value).toBeCloseTo(1 / 3, 12);
    expect(pooledCredit(oneSeed.rlvr, "no-answer", "advantage")).toBeNull();
  });
});

describe("credit lines on recorded rows", () => {
  // test/fixtures/credit-scs-paper.jsonl: a real scs-paper run, 3 steps; no rollout had no
  // answer, was index-bound or faithful-wrong at any step, so those keys are absent.
  const rows = recordedCreditRows();

  it("has a line per variant for the three classes that occurred, three steps each", () => {
    const lines = buildCreditLines(rows, ROLLOUT_CLASSES, "advantage");
    expect(lines.map((l) => `${l.variant}/${l.cls}/${l.points.length}`)).toEqual([
      "rlvr/unsupported/3",
      "rlvr/flawed-right/3",
      "rlvr/faithful-right/3",
      "scs/unsupported/3",
      "scs/flawed-right/3",
      "scs/faithful-right/3",
    ]);
    const flawed = lines.find((l) => l.variant === "scs" && l.cls === "flawed-right")!;
    expect(flawed.points.map((p) => p.value)).toEqual([
      0.535714328289032, 0.25, 0.2738095447421074,
    ]);
    // Share: every class of both variants, 0 where empty; each step's shares sum to 1.
    const share = buildCreditLines(rows, ROLLOUT_CLASSES, "share");
    expect(share.length).toBe(2 * ROLLOUT_CLASSES.length);
    for (const v of ["rlvr", "scs"])
      for (const step of [1, 2, 3]) {
        const sum = share
          .filter((l) => l.variant === v)
          .reduce((a, l) => a + l.points.find((p) => p.step === step)!.value, 0);
        expect(sum).toBeCloseTo(1, 9);
      }
  });
});

describe("creditAxes", () => {
  it("follows the seed means, not a class's wide band, and always shows 0", () => {
    // Means in [−0.6, 0.9]; one point of a sparse class has a band of ±14.
    const points: GapPoint[][] = [
      [
        { x: 1, y: 0.9, band: [0.5, 1.3] as [number, number], n: 4 },
        { x: 2, y: 0.4, n: 1 },
      ],
      [
        { x: 1, y: -0.6, band: [-14.6, 13.4] as [number, number], n: 2 },
        { x: 3, y: null, n: 0 },
      ],
    ];
    const { x, y } = creditAxes(points, "advantage");
    expect(y.domain[0]).toBeGreaterThanOrEqual(-1);
    expect(y.domain[0]).toBeLessThanOrEqual(-0.6);
    expect(y.domain[1]).toBeGreaterThanOrEqual(0.9);
    expect(y.domain[1]).toBeLessThanOrEqual(1);
    expect(x.domain[1]).toBeGreaterThanOrEqual(2); // the last step with a point
    // Shares always on [0, 1]; no point at all: [−1, 1] for the others.
    expect(creditAxes(points, "share").y.domain).toEqual([0, 1]);
    expect(creditAxes([], "reward").y.domain).toEqual([-1, 1]);
  });
});
