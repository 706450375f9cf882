/**
 * The claims table's per-seed figures on hand-made metric rows: SCS's and
 * ACRE's claims read a multiple-choice run's final held-out Acc and OSCR;
 * the stability claim reads the default judge's σ_b.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_AUDITOR } from "../../src/rewards/auditor-judge";
import { CLAIMS, selectClaims } from "../../src/experiments/claims";
import type { MetricRow } from "../../src/run/run-types";

const evalRow = (variant: string, seed: number, step: number, values: Record<string, number>) =>
  ({ variant, seed, step, time: 0, kind: "eval", values }) as MetricRow;

const rows: MetricRow[] = [
  evalRow("rlvr", 1, 0, { acc: 0.9, oscr: 0.95 }),
  evalRow("rlvr", 1, 20, { acc: 0.8, oscr: 0.7 }),
  evalRow("scs", 1, 0, { acc: 0.9, oscr: 0.95 }),
  evalRow("scs", 1, 20, { acc: 0.875, oscr: 0.8 }),
  evalRow("acre", 1, 0, { acc: 0.9, oscr: 0.95 }),
  evalRow("acre", 1, 20, { acc: 0.85, oscr: 0.9 }),
];
const inputs = { rows, stability: new Map() };

describe("claims table", () => {
  it("every claim runs in the lab now (none is 'not runnable')", () => {
    for (const c of CLAIMS) {
      expect(c.notRunnable, c.id).toBeUndefined();
      expect(typeof c.perSeed, c.id).toBe("function");
    }
  });

  it("scs-gain and acre-oscr: final Acc and OSCR differences on a multiple-choice run", () => {
    const [scs, acre] = selectClaims(["scs-gain", "acre-oscr"]);
    expect(scs.task).toBe("multiple-choice");
    expect(acre.task).toBe("multiple-choice");
    expect(scs.perSeed!(inputs, 1)).toBeCloseTo(0.075, 12);
    expect(acre.perSeed!(inputs, 1)).toBeCloseTo(0.2, 12);
    expect(() => acre.perSeed!(inputs, 2)).toThrow(/no eval of acre \(seed 2\)/);
  });

  it("groupwise-stability reads the point at the lab's default judge noise, not another σ_b", () => {
    const [c] = selectClaims(["groupwise-stability"]);
    const at = (sigmaB: number, pointwise: number) => ({
      sigmaB,
      sigmaJ: DEFAULT_AUDITOR.sigmaJ,
      delta: DEFAULT_AUDITOR.delta,
      pointwise,
      groupwise: 0.016,
    });
    const stability = new Map([
      [1, [at(0, 0.009), at(0.1, 0.014), at(DEFAULT_AUDITOR.sigmaB, 0.026)]],
    ]);
    expect(c.perSeed!({ rows: [], stability }, 1)).toBeCloseTo(0.026 - 0.016, 12);
    const without = new Map([[1, [at(0, 0.009), at(0.1, 0.014)]]]);
    expect(() => c.perSeed!({ rows: [], stability: without }, 1)).toThrow(
      new RegExp(`no stability point with sigmaB ${DEFAULT_AUDITOR.sigmaB} for seed 1`),
    );
  });
});
