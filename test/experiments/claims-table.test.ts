/**
 * The claims table's per-seed figures on hand-made metric rows: SCS's and
 * ACRE's claims read their scenario runs' held-out Acc, lucky-guess rate,
 * OSCR and CACR (a claim of parts takes the minimum of its parts); the
 * stability claim reads the default judge's σ_b.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_AUDITOR } from "../../src/rewards/auditor-judge";
import { CLAIMS, selectClaims } from "../../src/experiments/claims";
import type { MetricRow } from "../../src/run/run-types";

const evalRow = (variant: string, seed: number, step: number, values: Record<string, number>) =>
  ({ variant, seed, step, time: 0, kind: "eval", values }) as MetricRow;

// The SCS scenario's rows (RLOO as "rlvr", full SCS, and the two ablation arms' labels) and
// the ACRE scenario's (GRPO as "rlvr", ACRE): in the claims they come from separate runs.
const scsRows: MetricRow[] = [
  evalRow("rlvr", 1, 0, { acc: 0.7, luckyGuess: 0.15 }),
  evalRow("rlvr", 1, 20, { acc: 0.75, luckyGuess: 0.12 }),
  evalRow("scs", 1, 0, { acc: 0.7, luckyGuess: 0.15 }),
  evalRow("scs", 1, 20, { acc: 0.8, luckyGuess: 0.1 }),
  evalRow("scs-tr", 1, 20, { acc: 0.78 }),
  evalRow("scs-vp", 1, 20, { acc: 0.74 }),
];
const acreRows: MetricRow[] = [
  evalRow("rlvr", 1, 0, { oscr: 0.35, cacr: 0.9 }),
  evalRow("rlvr", 1, 20, { oscr: 0.4, cacr: 0.88 }),
  evalRow("acre", 1, 0, { oscr: 0.35, cacr: 0.9 }),
  evalRow("acre", 1, 20, { oscr: 0.6, cacr: 0.93 }),
];
const scs = { rows: scsRows, stability: new Map() };
const acre = { rows: acreRows, stability: new Map() };

describe("claims table", () => {
  it("every claim runs in the lab now (none is 'not runnable')", () => {
    for (const c of CLAIMS) {
      expect(c.notRunnable, c.id).toBeUndefined();
      expect(typeof c.perSeed, c.id).toBe("function");
    }
  });

  it("scs-gain: Acc up (0.80 − 0.75) and lucky guesses down (0.12 − 0.10); the figure is the smaller", () => {
    const [c] = selectClaims(["scs-gain"]);
    expect(c.runs).toEqual(["scs"]);
    expect(c.parts!.map((p) => p.perSeed(scs, 1))).toEqual([
      expect.closeTo(0.05, 12),
      expect.closeTo(0.02, 12),
    ]);
    expect(c.perSeed!(scs, 1)).toBeCloseTo(0.02, 12);
    expect(() => c.perSeed!(scs, 2)).toThrow(/no eval of scs \(seed 2\)/);
  });

  it("scs-ablation: each arm between RLOO and full SCS; VP only (0.74) is below RLOO (0.75)", () => {
    const [c] = selectClaims(["scs-ablation"]);
    expect(c.runs).toEqual(["scs", "scs-tr-only", "scs-vp-only"]);
    // TR − RLOO, SCS − TR, VP − RLOO, SCS − VP
    expect(c.parts!.map((p) => p.perSeed(scs, 1))).toEqual([
      expect.closeTo(0.03, 12),
      expect.closeTo(0.02, 12),
      expect.closeTo(-0.01, 12),
      expect.closeTo(0.06, 12),
    ]);
    expect(c.perSeed!(scs, 1)).toBeCloseTo(-0.01, 12);
  });

  it("acre-oscr: GRPO over the cold start (0.40 − 0.35) and ACRE over GRPO (0.60 − 0.40)", () => {
    const [c] = selectClaims(["acre-oscr"]);
    expect(c.runs).toEqual(["acre"]);
    expect(c.parts!.map((p) => p.perSeed(acre, 1))).toEqual([
      expect.closeTo(0.05, 12),
      expect.closeTo(0.2, 12),
    ]);
    expect(c.perSeed!(acre, 1)).toBeCloseTo(0.05, 12);
  });

  it("acre-cacr: final CACR of ACRE minus GRPO (0.93 − 0.88)", () => {
    const [c] = selectClaims(["acre-cacr"]);
    expect(c.parts).toBeUndefined();
    expect(c.perSeed!(acre, 1)).toBeCloseTo(0.05, 12);
  });

  it("quotes each SCS / ACRE claim's figure from the table it cites", () => {
    const fig = (id: string) => selectClaims([id])[0].paper_figure;
    expect(fig("scs-gain")).toMatch(/Table 2: RLOO 57\.8 → 65\.5/);
    expect(fig("scs-gain")).toMatch(/Table 3: .*25\.0 → 21\.2/);
    expect(fig("scs-ablation")).toMatch(/Table 4 .*57\.8.*63\.0.*62\.8.*65\.5/);
    expect(fig("acre-oscr")).toMatch(
      /Table 2.*5\.9 \/ 31\.4 \/ 12\.5.*10\.4 \/ 49\.8 \/ 25\.6.*17\.3 \/ 74\.6 \/ 29\.6/,
    );
    expect(fig("acre-cacr")).toMatch(/Table 1.*81\.3 .*87\.5.*79\.7 → 82\.8/);
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
