/** SCS App. A's checkpoint protocol (best of every 10 steps by held-out Acc) on hand-made eval rows. */
import { describe, expect, it } from "vitest";
import { bestEval } from "../../src/experiments/best-checkpoint";
import { finalMetrics } from "../../src/cli/lab-sweep";
import type { MetricRow } from "../../src/run/run-types";

/** The part of lab's per-variant JSON these checks read. */
interface LabJson {
  final: Record<string, number>;
  best_every_10: {
    protocol: string;
    step?: number;
    steps?: Record<string, number>;
    values: Record<string, number>;
    per_seed?: Record<string, Record<string, number>>;
  };
}

const row = (step: number, acc: number, seed?: number, variant = "scs"): MetricRow => ({
  variant,
  step,
  time: step,
  kind: "eval",
  values: { acc, luckyGuess: step / 100 },
  ...(seed !== undefined && { seed }),
});

describe("bestEval (SCS App. A)", () => {
  it("takes the highest Acc among steps that are multiples of 10, not step 0 or step 5", () => {
    const rows = [
      row(0, 0.99),
      row(5, 0.95),
      row(10, 0.6),
      row(15, 0.9),
      row(20, 0.7),
      row(30, 0.65),
    ];
    expect(bestEval(rows, "scs", undefined)).toEqual({
      step: 20,
      values: { acc: 0.7, luckyGuess: 0.2 },
    });
    // A tie goes to the earlier checkpoint.
    expect(bestEval([row(10, 0.7), row(20, 0.7)], "scs", undefined)?.step).toBe(10);
    expect(bestEval([row(0, 0.5), row(5, 0.6)], "scs", undefined)).toBeNull();
    expect(() => bestEval(rows, "scs", undefined, 0)).toThrow(/every/);
  });

  it("lab's JSON prints it beside the final eval, per seed and as the seeds' mean", () => {
    const rows = [
      row(0, 0.5, 1),
      row(10, 0.8, 1),
      row(20, 0.6, 1),
      row(0, 0.5, 2),
      row(10, 0.55, 2),
      row(20, 0.7, 2),
      row(20, 0.99, 2, "scs-baseline"),
    ];
    const m = finalMetrics(rows, "scs", [1, 2]) as LabJson;
    expect(m.final.acc).toBeCloseTo(0.65, 12);
    expect(m.best_every_10.steps).toEqual({ "1": 10, "2": 20 });
    expect(m.best_every_10.values.acc).toBeCloseTo(0.75, 12);
    expect(m.best_every_10.per_seed?.["1"].luckyGuess).toBe(0.1);
    expect(m.best_every_10.protocol).toMatch(/SCS App\. A/);
    const single = finalMetrics(
      [row(0, 0.5), row(10, 0.8), row(20, 0.6)],
      "scs",
      undefined,
    ) as LabJson;
    expect(single.final.acc).toBe(0.6);
    expect(single.best_every_10.step).toBe(10);
    expect(single.best_every_10.values.acc).toBe(0.8);
  });
});
