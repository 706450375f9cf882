// The premise check's arithmetic (src/experiments/premise-band.ts) on hand-made
// eval rows: the step-0 band, the last eval and the mean after step 0 against
// the band's lower edge, and the step-0 gap between the two forms' accuracies.
import { describe, expect, it } from "vitest";
import { formatPremise, premiseCheck } from "../../src/experiments/premise-band";
import type { MetricRow } from "../../src/run/run-types";

const row = (step: number, values: Record<string, number>): MetricRow => ({
  variant: "acre-baseline",
  step,
  time: step,
  kind: "eval",
  values,
});
const CRIT = {
  metric: "boundRate",
  n: 100,
  z: 2,
  gap: { a: "accBound", b: "accFree", tolerance: 0.1 },
};

describe("premiseCheck", () => {
  it("holds when the flaw stays at or above the step-0 band's lower edge (hand-computed)", () => {
    // p0 0.8: half width 2·√(0.8·0.2/100) = 0.08, band 0.72–0.88.
    const kept = [
      row(0, { boundRate: 0.8, accBound: 0.9, accFree: 0.85 }),
      row(5, { boundRate: 0.74 }),
      row(10, { boundRate: 0.9 }),
    ];
    // Falls: the last eval 0.7 is below 0.72 (mean after step 0 0.75 is not).
    const falls = [
      row(0, { boundRate: 0.8, accBound: 0.9, accFree: 0.85 }),
      row(5, { boundRate: 0.8 }),
      row(10, { boundRate: 0.7 }),
    ];
    // Kept but the forms were not equally right at step 0: 0.9 vs 0.7.
    const gap = [
      row(0, { boundRate: 0.8, accBound: 0.9, accFree: 0.7 }),
      row(5, { boundRate: 0.85 }),
    ];
    const r = premiseCheck(
      new Map([
        [1, kept],
        [2, falls],
        [3, gap],
      ]),
      CRIT,
    );
    const [a, b, c] = r.seeds;
    expect(a.band[0]).toBeCloseTo(0.72, 12);
    expect(a.band[1]).toBeCloseTo(0.88, 12);
    expect(a.meanAfter).toBeCloseTo(0.82, 12);
    expect(a.final).toBe(0.9);
    expect(a.finalStep).toBe(10);
    expect(a.gap0).toBeCloseTo(0.05, 12);
    expect(a.holds).toBe(true);
    expect(b.meanAfter).toBeCloseTo(0.75, 12);
    expect(b.holds).toBe(false);
    expect(c.gap0).toBeCloseTo(0.2, 12);
    expect(c.holds).toBe(false);
    expect(r.holds).toBe(false);
    expect(premiseCheck(new Map([[1, kept]]), CRIT).holds).toBe(true);
    expect(formatPremise(r, CRIT)).toMatch(
      /seed 1: boundRate step 0 0\.800 \(band 0\.720–0\.880\), step 10 0\.900, mean after step 0 0\.820, \|accBound − accFree\| at step 0 0\.050 \(tolerance 0\.1\): holds/,
    );
    expect(formatPremise(r, CRIT)).toMatch(/premise does not hold on seeds 1, 2, 3$/);
  });

  it("with direction 'rises', holds only at or above the band's upper edge (a prior to be learned)", () => {
    // p0 0.25, n 100, z 2: half width 2·√(0.25·0.75/100) = 0.0866, band 0.1634–0.3366.
    const crit = { metric: "topLetterShare", n: 100, z: 2, direction: "rises" as const };
    const learned = [
      row(0, { topLetterShare: 0.25 }),
      row(5, { topLetterShare: 0.34 }),
      row(10, { topLetterShare: 0.4 }),
    ];
    // Mean after step 0 0.35 ≥ 0.3366, but the last eval 0.33 is not.
    const lastBelow = [
      row(0, { topLetterShare: 0.25 }),
      row(5, { topLetterShare: 0.37 }),
      row(10, { topLetterShare: 0.33 }),
    ];
    // Stays at chance: the "keeps" reading would hold, "rises" does not.
    const flat = [
      row(0, { topLetterShare: 0.25 }),
      row(5, { topLetterShare: 0.26 }),
      row(10, { topLetterShare: 0.24 }),
    ];
    const r = premiseCheck(
      new Map([
        [1, learned],
        [2, lastBelow],
        [3, flat],
      ]),
      crit,
    );
    expect(r.seeds[0].band[1]).toBeCloseTo(0.25 + 2 * Math.sqrt(0.1875 / 100), 12);
    expect(r.seeds.map((x) => x.holds)).toEqual([true, false, false]);
    expect(r.holds).toBe(false);
    expect(premiseCheck(new Map([[3, flat]]), { ...crit, direction: "keeps" }).holds).toBe(true);
    expect(formatPremise(r, crit)).toContain("(must reach the band's upper edge): holds");
  });

  it("names the seed that has no step-0 eval or nothing after it", () => {
    expect(() => premiseCheck(new Map([[7, [row(5, { boundRate: 0.5 })]]]), CRIT)).toThrow(
      /seed 7 has no step-0 eval of boundRate/,
    );
    expect(() => premiseCheck(new Map([[8, [row(0, { boundRate: 0.5 })]]]), CRIT)).toThrow(
      /seed 8 has no eval of boundRate after step 0/,
    );
    expect(() => premiseCheck(new Map(), { ...CRIT, n: 0 })).toThrow(/n and z must be positive/);
  });
});
