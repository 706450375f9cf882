// Statistics over seeds: mean, sample sd, 95 % Student-t interval, the
// verdict on a claimed direction, and seed-averaged curves. Expected values
// are computed by hand below; the t quantiles come from closed forms
// (Student's t quantile for ν = 1, 2, 4; e.g. Hill 1970, or the table in
// Wikipedia "Student's t-distribution"), not from jstat.
import { describe, expect, it } from "vitest";
import {
  aggregateCurves,
  intersectionUnionVerdict,
  minDetectableEffect,
  seedsNeeded,
  summarizeSeeds,
  verdict,
  type SeedSummary,
} from "../../src/experiments/seed-stats";
import type { MetricRow } from "../../src/run/run-types";

const p = 0.975;
// ν = 1: t = tan(π (p − 1/2)) = 12.7062047361747
const t1 = Math.tan(Math.PI * (p - 0.5));
// ν = 2: t = (2p − 1) / √(2 p (1 − p)) = 0.95 / √0.04875 = 4.302652729749...
const t2 = (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
// ν = 4: α = 4p(1 − p), q = cos(arccos(√α)/3)/√α, t = 2√(q − 1) = 2.776445105...
const alpha = 4 * p * (1 - p);
const t4 = 2 * Math.sqrt(Math.cos(Math.acos(Math.sqrt(alpha)) / 3) / Math.sqrt(alpha) - 1);

const summary = (mean: number, lo: number, hi: number, n = 3): SeedSummary => ({
  n,
  mean,
  sd: 1,
  ci95: [lo, hi],
  perSeed: [],
});

describe("summarizeSeeds", () => {
  it("checks the closed-form t quantiles against table values", () => {
    expect(t1).toBeCloseTo(12.7062047, 6);
    expect(t2).toBeCloseTo(4.3026527, 6);
    expect(t4).toBeCloseTo(2.7764451, 6);
  });

  it("[1, 2, 3]: mean 2, sd 1, half-width t_{0.975,2}·1/√3 = 4.302652729/1.7320508 = 2.4841377", () => {
    const s = summarizeSeeds([1, 2, 3]);
    expect(s.n).toBe(3);
    expect(s.mean).toBe(2); // (1 + 2 + 3) / 3
    expect(s.sd).toBeCloseTo(1, 12); // √((1 + 0 + 1) / 2)
    const half = (t2 * 1) / Math.sqrt(3);
    expect(half).toBeCloseTo(2.4841377, 6);
    expect(s.ci95[0]).toBeCloseTo(2 - half, 8); // −0.4841377
    expect(s.ci95[1]).toBeCloseTo(2 + half, 8); // 4.4841377
    expect(s.perSeed).toEqual([1, 2, 3]);
  });

  it("[0.1, 0.3]: mean 0.2, sd √0.02, half-width t_{0.975,1}·√0.02/√2 = 12.7062047·0.1 = 1.27062047", () => {
    const s = summarizeSeeds([0.1, 0.3]);
    expect(s.mean).toBeCloseTo(0.2, 12); // 0.4 / 2
    expect(s.sd).toBeCloseTo(Math.sqrt(0.02), 12); // √((0.01 + 0.01) / 1) = 0.1414214
    const half = (t1 * Math.sqrt(0.02)) / Math.sqrt(2); // = t1 · 0.1
    expect(half).toBeCloseTo(1.27062047, 7);
    expect(s.ci95[0]).toBeCloseTo(0.2 - 1.27062047, 7); // −1.07062047
    expect(s.ci95[1]).toBeCloseTo(0.2 + 1.27062047, 7); // 1.47062047
  });

  it("5 seeds [0.02, 0.05, 0.03, 0.06, 0.04]: mean 0.04, sd √(0.001/4), half-width t_{0.975,4}·sd/√5 = 0.0196324", () => {
    const s = summarizeSeeds([0.02, 0.05, 0.03, 0.06, 0.04]);
    expect(s.n).toBe(5);
    expect(s.mean).toBeCloseTo(0.04, 12); // 0.2 / 5
    // deviations −0.02, 0.01, −0.01, 0.02, 0 → Σd² = 0.0004 + 0.0001 + 0.0001 + 0.0004 = 0.001
    expect(s.sd).toBeCloseTo(Math.sqrt(0.001 / 4), 12); // 0.0158114
    const half = (t4 * Math.sqrt(0.00025)) / Math.sqrt(5); // 2.7764451 · 0.00707107
    expect(half).toBeCloseTo(0.0196324, 6);
    expect(s.ci95[0]).toBeCloseTo(0.04 - half, 8); // 0.0203676
    expect(s.ci95[1]).toBeCloseTo(0.04 + half, 8); // 0.0596324
    expect(verdict(s, 1)).toBe("reproduced");
    expect(verdict(s, -1)).toBe("not reproduced");
  });

  it("equal values: sd 0 and a point interval", () => {
    const s = summarizeSeeds([0.5, 0.5, 0.5]);
    expect(s.sd).toBe(0);
    expect(s.ci95).toEqual([0.5, 0.5]);
  });

  it("n = 1: sd 0, ci95 [mean, mean], verdict inconclusive whatever the sign", () => {
    const s = summarizeSeeds([0.7]);
    expect(s).toEqual({ n: 1, mean: 0.7, sd: 0, ci95: [0.7, 0.7], perSeed: [0.7] });
    expect(verdict(s, 1)).toBe("inconclusive");
    expect(verdict(s, -1)).toBe("inconclusive");
    expect(verdict(summarizeSeeds([-3]), 1)).toBe("inconclusive");
  });

  it("does not keep a reference to the input", () => {
    const xs = [1, 2];
    const s = summarizeSeeds(xs);
    xs[0] = 100;
    expect(s.perSeed).toEqual([1, 2]);
  });

  it("throws on empty input and names the index of a non-finite value", () => {
    expect(() => summarizeSeeds([])).toThrow(/no values/);
    expect(() => summarizeSeeds([1, NaN, 3])).toThrow(/perSeed\[1\] is NaN/);
    expect(() => summarizeSeeds([1, 2, Infinity])).toThrow(/perSeed\[2\] is Infinity/);
    expect(() => summarizeSeeds([-Infinity])).toThrow(/perSeed\[0\]/);
    expect(() => summarizeSeeds([1, "2" as unknown as number])).toThrow(
      /perSeed\[1\] is 2, not a finite number/,
    );
  });
});

describe("verdict", () => {
  it("direction 1: lo > 0 reproduced, hi ≤ 0 not reproduced, otherwise inconclusive", () => {
    expect(verdict(summary(1, 0.1, 2), 1)).toBe("reproduced");
    expect(verdict(summary(-1, -2, -0.1), 1)).toBe("not reproduced");
    expect(verdict(summary(-0.1, -0.2, 0), 1)).toBe("not reproduced"); // touches 0 from below
    expect(verdict(summary(0, 0, 0), 1)).toBe("not reproduced"); // point at 0
    expect(verdict(summary(0.1, -0.1, 0.3), 1)).toBe("inconclusive"); // straddles
    expect(verdict(summary(0.1, 0, 0.2), 1)).toBe("inconclusive"); // starts at 0
  });

  it("direction −1: hi < 0 reproduced, lo ≥ 0 not reproduced, otherwise inconclusive", () => {
    expect(verdict(summary(-1, -2, -0.1), -1)).toBe("reproduced");
    expect(verdict(summary(1, 0.1, 2), -1)).toBe("not reproduced");
    expect(verdict(summary(0.1, 0, 0.2), -1)).toBe("not reproduced"); // touches 0 from above
    expect(verdict(summary(0, 0, 0), -1)).toBe("not reproduced");
    expect(verdict(summary(0.1, -0.1, 0.3), -1)).toBe("inconclusive");
    expect(verdict(summary(-0.1, -0.2, 0), -1)).toBe("inconclusive"); // ends at 0
  });

  it("[1, 2, 3] straddles 0 (lo = 2 − 2.484 < 0): inconclusive both ways", () => {
    const s = summarizeSeeds([1, 2, 3]);
    expect(verdict(s, 1)).toBe("inconclusive");
    expect(verdict(s, -1)).toBe("inconclusive");
  });

  it("rejects a direction other than ±1", () => {
    expect(() => verdict(summary(1, 0.1, 2), 0 as unknown as 1)).toThrow(
      /direction must be 1 or -1/,
    );
  });
});

describe("aggregateCurves", () => {
  const row = (
    variant: string,
    step: number,
    kind: "train" | "eval",
    values: Record<string, number>,
    seed?: number,
  ): MetricRow =>
    seed === undefined
      ? { variant, step, time: 0, kind, values }
      : { variant, step, time: 0, kind, values, seed };

  const rows: MetricRow[] = [
    // grr, seeds 1 and 2, eval rows given out of step order
    row("grr", 10, "eval", { rcAcc: 0.6 }, 2),
    row("grr", 0, "eval", { rcAcc: 0.2 }, 1),
    row("grr", 0, "eval", { rcAcc: 0.4 }, 2),
    row("grr", 10, "eval", { rcAcc: 0.5 }, 1),
    row("grr", 20, "eval", { rcAcc: 0.9 }, 1), // seed 2 lacks step 20
    row("grr", 20, "eval", { acc: 0.8 }, 2), // lacks rcAcc: skipped
    row("grr", 10, "train", { rcAcc: 99 }, 1), // other kind: skipped
    // rlvr, no seed (single-seed run): one seed
    row("rlvr", 10, "eval", { rcAcc: 0.3 }),
    row("rlvr", 0, "eval", { rcAcc: 0.25 }),
  ];

  it("groups by variant and step, sorted by step, with mean and t interval over the seeds present", () => {
    const curves = aggregateCurves(rows, { kind: "eval", metric: "rcAcc" });
    expect([...curves.keys()]).toEqual(["grr", "rlvr"]);
    const grr = curves.get("grr")!;
    expect(grr.map((p) => p.step)).toEqual([0, 10, 20]);
    expect(grr.map((p) => p.n)).toEqual([2, 2, 1]);
    // step 0: [0.2, 0.4] → mean 0.3, sd √0.02, half-width t1·√0.02/√2 = 1.27062047
    expect(grr[0].mean).toBeCloseTo(0.3, 12);
    expect(grr[0].lo).toBeCloseTo(0.3 - 1.27062047, 7);
    expect(grr[0].hi).toBeCloseTo(0.3 + 1.27062047, 7);
    expect(grr[0].perSeed).toEqual([
      { seed: 1, value: 0.2 },
      { seed: 2, value: 0.4 },
    ]);
    // step 10: [0.5, 0.6] (sorted by seed) → mean 0.55, sd √0.005, half-width t1·√0.005/√2 = t1·0.05 = 0.63531024
    expect(grr[1].mean).toBeCloseTo(0.55, 12);
    expect(grr[1].hi - grr[1].mean).toBeCloseTo(0.63531024, 7);
    expect(grr[1].perSeed).toEqual([
      { seed: 1, value: 0.5 },
      { seed: 2, value: 0.6 },
    ]);
    // step 20: only seed 1 has rcAcc → n 1, lo = hi = mean
    expect(grr[2]).toEqual({
      step: 20,
      mean: 0.9,
      lo: 0.9,
      hi: 0.9,
      n: 1,
      perSeed: [{ seed: 1, value: 0.9 }],
    });
    const rlvr = curves.get("rlvr")!;
    expect(rlvr).toEqual([
      { step: 0, mean: 0.25, lo: 0.25, hi: 0.25, n: 1, perSeed: [{ seed: null, value: 0.25 }] },
      { step: 10, mean: 0.3, lo: 0.3, hi: 0.3, n: 1, perSeed: [{ seed: null, value: 0.3 }] },
    ]);
  });

  it("uses only rows of the requested kind and drops variants without the metric", () => {
    const train = aggregateCurves(rows, { kind: "train", metric: "rcAcc" });
    expect([...train.keys()]).toEqual(["grr"]);
    expect(train.get("grr")).toEqual([
      { step: 10, mean: 99, lo: 99, hi: 99, n: 1, perSeed: [{ seed: 1, value: 99 }] },
    ]);
    expect(aggregateCurves(rows, { kind: "eval", metric: "nope" }).size).toBe(0);
    expect(aggregateCurves([], { kind: "eval", metric: "rcAcc" }).size).toBe(0);
  });

  it("throws on a duplicate (variant, step, seed) and on a non-finite value, naming where", () => {
    const dup = [
      row("grr", 5, "eval", { rcAcc: 0.1 }, 3),
      row("grr", 5, "eval", { rcAcc: 0.2 }, 3),
    ];
    expect(() => aggregateCurves(dup, { kind: "eval", metric: "rcAcc" })).toThrow(
      /variant grr, step 5, seed 3/,
    );
    const nan = [row("rlvr", 7, "train", { loss: NaN })];
    expect(() => aggregateCurves(nan, { kind: "train", metric: "loss" })).toThrow(
      /loss is NaN at variant rlvr, step 7, seed \(none\)/,
    );
  });
});

describe("power: minimum detectable effect and seeds needed (NIST e-Handbook §7.2.2.2)", () => {
  // ν = 2 closed form t_p = (2p − 1)/√(2p(1 − p)): t_0.975 = 4.302653, t_0.80 = 0.6/√0.32 = 1.060660.
  const t80nu2 = 0.6 / Math.sqrt(0.32);

  it("MDE = (t_0.975 + t_0.80) · sd / √n, by hand at n = 3 and from the t table at n = 10", () => {
    expect(t80nu2).toBeCloseTo(1.06066, 5);
    // n = 3, sd 0.03: (4.302653 + 1.060660) · 0.03 / √3 = 0.092895
    expect(minDetectableEffect({ n: 3, sd: 0.03 })).toBeCloseTo(
      ((t2 + t80nu2) * 0.03) / Math.sqrt(3),
      10,
    );
    expect(minDetectableEffect({ n: 3, sd: 0.03 })).toBeCloseTo(0.092895, 5);
    // n = 10 (ν = 9, table: t_0.975 = 2.262, t_0.80 = 0.883), sd 0.05: 3.145 · 0.05 / 3.1623 = 0.0497
    expect(minDetectableEffect({ n: 10, sd: 0.05 })).toBeCloseTo(0.0497, 3);
    expect(minDetectableEffect({ n: 1, sd: 0 })).toBe(Infinity);
    expect(minDetectableEffect({ n: 5, sd: 0 })).toBe(0);
  });

  it("seeds needed: the smallest n with n ≥ (t_0.975,n−1 + t_0.80,n−1)² (sd/δ)²", () => {
    // sd 0.03, δ 0.024 (GRR's 2.4-point lead), (sd/δ)² = 1.5625. Table values:
    // n = 14 (ν 13): (2.160 + 0.870)² · 1.5625 = 14.35 > 14; n = 15 (ν 14): (2.145 + 0.868)² · 1.5625 = 14.18 ≤ 15.
    expect(seedsNeeded({ sd: 0.03, effect: 0.024 })).toBe(15);
    expect(seedsNeeded({ sd: 0.03, effect: -0.024 })).toBe(15); // the sign of δ does not matter
    // sd = δ: n = 10 (ν 9): (2.262 + 0.883)² = 9.89 ≤ 10; n = 9 (ν 8): (2.306 + 0.889)² = 10.21 > 9.
    expect(seedsNeeded({ sd: 0.05, effect: 0.05 })).toBe(10);
    expect(seedsNeeded({ sd: 0, effect: 0.01 })).toBe(2);
    expect(seedsNeeded({ sd: 0.01, effect: 0 })).toBe(Infinity);
    expect(seedsNeeded({ sd: 1, effect: 1e-4, max: 1000 })).toBe(Infinity);
    // Consistent with the MDE: at the N needed the MDE is at most δ, one seed fewer it is more.
    const n = seedsNeeded({ sd: 0.03, effect: 0.024 });
    expect(minDetectableEffect({ n, sd: 0.03 })).toBeLessThanOrEqual(0.024);
    expect(minDetectableEffect({ n: n - 1, sd: 0.03 })).toBeGreaterThan(0.024);
  });

  it("refuses bad inputs, naming them", () => {
    expect(() => minDetectableEffect({ n: 0, sd: 1 })).toThrow(/n must be/);
    expect(() => minDetectableEffect({ n: 3, sd: -1 })).toThrow(/sd must be/);
    expect(() => minDetectableEffect({ n: 3, sd: 1, power: 0.2 })).toThrow(/power/);
    expect(() => seedsNeeded({ sd: Number.NaN, effect: 1 })).toThrow(/sd must be/);
    expect(() => seedsNeeded({ sd: 1, effect: Number.NaN })).toThrow(/effect must be/);
  });
});

describe("intersection–union verdict (Berger 1982)", () => {
  it("reproduced only when every comparison is; not reproduced when any is", () => {
    expect(intersectionUnionVerdict(["reproduced", "reproduced"])).toBe("reproduced");
    expect(intersectionUnionVerdict(["reproduced", "inconclusive"])).toBe("inconclusive");
    expect(intersectionUnionVerdict(["inconclusive", "not reproduced"])).toBe("not reproduced");
    expect(intersectionUnionVerdict(["reproduced", "not reproduced"])).toBe("not reproduced");
    expect(intersectionUnionVerdict([])).toBe("inconclusive");
  });

  it("judges each paired difference, not the difference against the larger baseline", () => {
    // GRR − RLVR and GRR − pointwise GR per seed (worked by hand, 3 seeds, t = 4.302653):
    // d1 = 0.10, 0.12, 0.14: mean 0.12, sd 0.02, half-width 4.302653 · 0.02/√3 = 0.0497 → [0.0703, 0.1697] reproduced;
    // d2 = 0.01, 0.03, 0.05: mean 0.03, sd 0.02 → [−0.0197, 0.0797] inconclusive.
    const d1 = summarizeSeeds([0.1, 0.12, 0.14]);
    const d2 = summarizeSeeds([0.01, 0.03, 0.05]);
    expect(d1.ci95[0]).toBeCloseTo(0.12 - (t2 * 0.02) / Math.sqrt(3), 10);
    expect(d2.ci95[0]).toBeCloseTo(-0.01968, 5);
    const each = [verdict(d1, 1), verdict(d2, 1)];
    expect(each).toEqual(["reproduced", "inconclusive"]);
    expect(intersectionUnionVerdict(each)).toBe("inconclusive");
  });
});
