// The callouts' bands: the 95 % Wilson interval of one seed's held-out
// answers (worked values), and the seed band over several seeds (Student t).
import { describe, expect, it } from "vitest";
import { bandsOverlap, metricBands, wilsonInterval } from "../../src/ui/lib/bands";
import type { MetricRow } from "../../src/run/run-types";

const row = (step: number, incR: number, seed?: number): MetricRow => ({
  variant: "rlvr",
  step,
  time: step,
  kind: "eval",
  values: { incR, reward_mean: incR },
  ...(seed !== undefined ? { seed } : {}),
});

describe("bands", () => {
  it("Wilson interval: 50 of 100 is [0.4038, 0.5962]; 0 of 10 reaches 0.2775", () => {
    const [lo, hi] = wilsonInterval(0.5, 100);
    expect(lo).toBeCloseTo(0.40383, 4);
    expect(hi).toBeCloseTo(0.59617, 4);
    const [z0, z1] = wilsonInterval(0, 10);
    expect(z0).toBe(0);
    expect(z1).toBeCloseTo(0.27754, 4);
    expect(() => wilsonInterval(1.2, 10)).toThrow(/p = 1.2 is not in \[0, 1\]/);
    expect(() => wilsonInterval(0.5, 0)).toThrow(/n = 0 is not a count/);
  });

  it("one seed: the Wilson band over evalSize answers, only for fractions", () => {
    const pts = metricBands([row(0, 0.5), row(5, 0.25)], "incR", 100);
    expect(pts.map((p) => [p.step, p.kind, p.n])).toEqual([
      [0, "sampling", 1],
      [5, "sampling", 1],
    ]);
    expect(pts[0].lo).toBeCloseTo(0.40383, 4);
    // reward_mean is in reward units: no sampling band.
    expect(metricBands([row(0, 0.5)], "reward_mean", 100)).toEqual([]);
  });

  it("three seeds: the Student-t interval of the mean (t(2) = 4.303)", () => {
    const rows = [row(0, 0.3, 1), row(0, 0.4, 2), row(0, 0.5, 3)];
    const [p] = metricBands(rows, "incR", 128);
    expect(p.kind).toBe("seeds");
    expect(p.n).toBe(3);
    expect(p.mean).toBeCloseTo(0.4, 12);
    // sd 0.1, se 0.1/√3, half-width 4.3027 · 0.057735 = 0.24841
    expect(p.hi - p.mean).toBeCloseTo(0.24841, 4);
    expect(p.mean - p.lo).toBeCloseTo(0.24841, 4);
  });

  it("overlap is inclusive at the ends", () => {
    expect(bandsOverlap({ lo: 0, hi: 0.5 }, { lo: 0.5, hi: 1 })).toBe(true);
    expect(bandsOverlap({ lo: 0, hi: 0.49 }, { lo: 0.5, hi: 1 })).toBe(false);
  });
});
