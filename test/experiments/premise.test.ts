/** The premise check's criterion (docs/reward-spec.md §4.3) on hand-made eval rows, with hand-computed Wilson bands. */
import { describe, expect, it } from "vitest";
import { premiseCheck, wilson95 } from "../../src/experiments/premise";
import type { MetricRow } from "../../src/run/run-types";

/** An eval row of the baseline arm. */
const row = (seed: number, step: number, acc: number, luckyGuess: number): MetricRow => ({
  variant: "scs-baseline",
  step,
  time: step,
  kind: "eval",
  values: { acc, luckyGuess },
  seed,
});

describe("wilson95", () => {
  it("matches hand computations", () => {
    // p = 10/40: centre (0.25 + z²/80)/(1 + z²/40), half-width z/(1 + z²/40)·√(p(1−p)/40 + z²/6400).
    const [lo, hi] = wilson95(10, 40);
    expect(lo).toBeCloseTo(0.141871186, 8);
    expect(hi).toBeCloseTo(0.401939614, 8);
    expect(wilson95(0, 20)[0]).toBe(0);
    expect(wilson95(0, 20)[1]).toBeCloseTo(0.161125158, 8);
    expect(wilson95(0, 0)).toEqual([0, 1]);
  });
  it("names a bad count", () => {
    expect(() => wilson95(5, 4)).toThrow(/successes/);
    expect(() => wilson95(1, 2.5)).toThrow(/\bn\b/);
  });
});

describe("premiseCheck", () => {
  it("holds on a seed whose last rate stays at or above the step-0 band's lower end", () => {
    // evalSize 100: seed 1 has 80 right answers at step 0, 20 of them lucky (0.25):
    // band [0.1681, 0.3548]; last 0.20 ≥ 0.1681 holds. Seed 2: 80 right, 0.25 at step 0, last 0.15 < 0.1681.
    const rows = [
      row(1, 0, 0.8, 0.25),
      row(1, 5, 0.82, 0.3),
      row(1, 10, 0.85, 0.2),
      row(2, 0, 0.8, 0.25),
      row(2, 10, 0.9, 0.15),
      // Another variant's rows are not read.
      { ...row(2, 10, 0.9, 0.9), variant: "scs" },
    ];
    const c = premiseCheck(rows, "scs-baseline", [1, 2], 100);
    expect(c.seeds[0].step0.n).toBe(80);
    expect(c.seeds[0].step0.band[0]).toBeCloseTo(0.168062319, 8);
    expect(c.seeds[0].trajectory).toEqual([
      { step: 5, rate: 0.3 },
      { step: 10, rate: 0.2 },
    ]);
    expect(c.seeds[0].last).toEqual({ step: 10, rate: 0.2 });
    expect(c.seeds[0].holds).toBe(true);
    expect(c.seeds[1].last.rate).toBe(0.15);
    expect(c.seeds[1].holds).toBe(false);
    expect(c.holds).toBe(false);
    expect(premiseCheck(rows, "scs-baseline", [1], 100).holds).toBe(true);
  });
  it("names a seed without a step-0 or a later eval", () => {
    expect(() => premiseCheck([row(1, 5, 0.8, 0.2)], "scs-baseline", [1], 100)).toThrow(
      /seed 1 has no step-0/,
    );
    expect(() => premiseCheck([row(1, 0, 0.8, 0.2)], "scs-baseline", [1], 100)).toThrow(
      /seed 1 has no eval after step 0/,
    );
  });
});
