/**
 * The claims table on hand-made metric rows: each claim's paired
 * comparisons (docs/reward-spec.md §2), the arms they read, the cold start,
 * the early and the last eval; SCS's and ACRE's claims read their scenario
 * runs' held-out Acc, lucky-guess rate, OSCR and CACR; the stability claim
 * reads the run's judge's σ_b; every claim cites a table or section with its
 * numbers.
 */
import { describe, expect, it } from "vitest";
import { JUDGE_DEFAULTS, judgeSettings } from "../../src/rewards/judges";
import { CLAIMS, comparisonsOf, selectClaims } from "../../src/experiments/claims";
import type { MetricRow } from "../../src/run/run-types";

const evalRow = (variant: string, seed: number, step: number, values: Record<string, number>) =>
  ({ variant, seed, step, time: 0, kind: "eval", values }) as MetricRow;

/** Three evals (0, 10, 20) of an arm under seed 1. */
const arm = (variant: string, metric: string, v: [number, number, number]) =>
  [0, 10, 20].map((step, i) => evalRow(variant, 1, step, { [metric]: v[i] }));

const perSeed = (id: string, r: MetricRow[]) =>
  comparisonsOf(selectClaims([id])[0]).map((k) => k.perSeed({ rows: r, stability: new Map() }, 1));

// The faint-digit SCS scenario's rows (RLOO + format as "scs-baseline", full SCS, and the two
// ablation arms' labels) and the ACRE scenario's (GRPO as "rlvr", ACRE): in the claims they
// come from separate runs. The baseline's best eval of every 10 steps is step 10 (0.78), SCS's 20.
const scsRows: MetricRow[] = [
  evalRow("scs-baseline", 1, 0, { acc: 0.7, luckyGuess: 0.15 }),
  evalRow("scs-baseline", 1, 10, { acc: 0.78, luckyGuess: 0.11 }),
  evalRow("scs-baseline", 1, 20, { acc: 0.75, luckyGuess: 0.12 }),
  evalRow("scs", 1, 0, { acc: 0.7, luckyGuess: 0.15 }),
  evalRow("scs", 1, 10, { acc: 0.76, luckyGuess: 0.13 }),
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
  it("every claim runs in the lab now (none is 'not runnable') and has a comparison", () => {
    for (const c of CLAIMS) {
      expect(c.notRunnable, c.id).toBeUndefined();
      expect(comparisonsOf(c).length, c.id).toBeGreaterThan(0);
    }
  });

  it("every claim's paper_figure is non-empty and names a table or section", () => {
    for (const c of CLAIMS) {
      expect(c.paper_figure.trim().length, c.id).toBeGreaterThan(10);
      expect(c.paper_figure, c.id).toMatch(/\b(Table|Tab\.|Fig\.|App\.|Abstract)|§\s?\d/);
      // An effect claim quotes the paper's numbers, not only its words; a mechanism claim
      // (what the reward pays, steps 1–5) quotes the paper's sentence.
      if (c.rlSteps === undefined) expect(c.paper_figure, c.id).toMatch(/\d+(\.\d+)?/);
      else expect(c.paper_figure, c.id).toMatch(/“[^”]{20,}”/);
    }
  });

  it("rlvr-drift: RLVR's final IncR minus its cold-start IncR", () => {
    expect(perSeed("rlvr-drift", arm("rlvr", "incR", [0.3, 0.4, 0.55]))).toEqual([0.55 - 0.3]);
  });

  it("grr-rcacc: GRR against RLVR and against pointwise GR, each paired on its own", () => {
    const r = [
      ...arm("rlvr", "rcAcc", [0.5, 0.45, 0.4]),
      ...arm("pointwise-gr", "rcAcc", [0.5, 0.55, 0.58]),
      ...arm("grr", "rcAcc", [0.5, 0.56, 0.6]),
    ];
    const [vsRlvr, vsPointwise] = perSeed("grr-rcacc", r);
    expect(vsRlvr).toBeCloseTo(0.2, 12);
    expect(vsPointwise).toBeCloseTo(0.02, 12);
    const [a, b] = comparisonsOf(selectClaims(["grr-rcacc"])[0]);
    expect([a.paperEffect, b.paperEffect]).toEqual([0.073, 0.024]);
    // The per-step series: the same difference at every eval.
    expect([...b.perStep!({ rows: r, stability: new Map() }, 1).entries()]).toEqual([
      [0, 0],
      [10, 0.56 - 0.55],
      [20, 0.6 - 0.58],
    ]);
  });

  it("prm-shift: PRM − RLVR at the first eval, step 10 (paper side > 0), and at the last eval (paper side < 0)", () => {
    const r = [
      ...arm("rlvr", "rcAcc", [0.5, 0.52, 0.45]),
      ...arm("prm", "rcAcc", [0.5, 0.58, 0.41]),
    ];
    const [early, late] = perSeed("prm-shift", r);
    expect(early).toBeCloseTo(0.06, 12);
    expect(late).toBeCloseTo(-0.04, 12);
    const [e, l] = comparisonsOf(selectClaims(["prm-shift"])[0]);
    expect([e.direction, l.direction]).toEqual([1, -1]);
    expect([e.paperEffect, l.paperEffect]).toEqual([null, -0.006]);
    expect(selectClaims(["prm-shift"])[0].variants).toEqual(["rlvr", "prm", "pointwise-gr", "grr"]);
  });

  it("structreward-gain: Acc over the cold start, and RC-Acc over RLVR (the lab's addition)", () => {
    const r = [
      ...[0, 10, 20].map((step, i) =>
        evalRow("structreward", 1, step, { acc: [0.7, 0.8, 0.85][i], rcAcc: [0.5, 0.6, 0.65][i] }),
      ),
      ...arm("rlvr", "rcAcc", [0.5, 0.45, 0.4]),
    ];
    const [vsStart, vsRlvr] = perSeed("structreward-gain", r);
    expect(vsStart).toBeCloseTo(0.15, 12);
    expect(vsRlvr).toBeCloseTo(0.25, 12);
  });

  it("structreward-ablation: the aux arm (its own run, rows relabelled) minus StructReward at defaults", () => {
    const c = selectClaims(["structreward-ablation"])[0];
    expect(c.arms).toEqual([
      {
        key: "structreward+aux",
        variant: "structreward",
        weights: { recycle: "on", hardNegatives: "on" },
      },
    ]);
    const r = [
      ...arm("structreward", "acc", [0.7, 0.8, 0.82]),
      ...arm("structreward+aux", "acc", [0.7, 0.81, 0.85]),
    ];
    expect(perSeed("structreward-ablation", r)[0]).toBeCloseTo(0.03, 12);
  });

  it("scs-gain: Acc up (0.80 − 0.75) and lucky guesses down (0.10 − 0.12), each paired on its own, each beside its best of every 10 steps", () => {
    const [c] = selectClaims(["scs-gain"]);
    expect(c.runs).toEqual(["scs-faint"]);
    expect(c.variants).toEqual(["scs-baseline", "scs"]);
    const [acc, accBest, lucky, luckyBest] = comparisonsOf(c);
    expect(acc.perSeed(scs, 1)).toBeCloseTo(0.05, 12);
    // Lower is the paper's side: SCS − RLOO = 0.10 − 0.12.
    expect(lucky.perSeed(scs, 1)).toBeCloseTo(-0.02, 12);
    // SCS App. A: each arm at its best Acc of steps 10, 20: 0.80 (step 20) − 0.78 (step 10),
    // and the lucky-guess rate read there: 0.10 − 0.11.
    expect(accBest.perSeed(scs, 1)).toBeCloseTo(0.02, 12);
    expect(luckyBest.perSeed(scs, 1)).toBeCloseTo(-0.01, 12);
    expect([acc.beside, accBest.beside, lucky.beside, luckyBest.beside]).toEqual([
      undefined,
      true,
      undefined,
      true,
    ]);
    expect([acc.direction, lucky.direction]).toEqual([1, -1]);
    expect([acc.paperEffect, lucky.paperEffect]).toEqual([0.077, -0.038]);
    expect(() => acc.perSeed(scs, 2)).toThrow(/no eval of scs \(seed 2\)/);
    expect(c.premise).toMatch(/^premise held/);
  });

  it("scs-ablation: each arm between RLOO and full SCS; VP only (0.74) is below RLOO (0.75)", () => {
    const [c] = selectClaims(["scs-ablation"]);
    expect(c.runs).toEqual(["scs-faint", "scs-faint-tr-only", "scs-faint-vp-only"]);
    // TR − RLOO, SCS − TR, VP − RLOO, SCS − VP, each at the last eval and at the best of
    // every 10 steps (RLOO's best is 0.78 at step 10, SCS's 0.80 at step 20).
    expect(comparisonsOf(c).map((k) => k.perSeed(scs, 1))).toEqual([
      expect.closeTo(0.03, 12),
      expect.closeTo(0, 12),
      expect.closeTo(0.02, 12),
      expect.closeTo(0.02, 12),
      expect.closeTo(-0.01, 12),
      expect.closeTo(-0.04, 12),
      expect.closeTo(0.06, 12),
      expect.closeTo(0.06, 12),
    ]);
  });

  it("acre-oscr: GRPO over the cold start (0.40 − 0.35) and ACRE over GRPO (0.60 − 0.40)", () => {
    const [c] = selectClaims(["acre-oscr"]);
    expect(c.runs).toEqual(["acre"]);
    expect(comparisonsOf(c).map((k) => k.perSeed(acre, 1))).toEqual([
      expect.closeTo(0.05, 12),
      expect.closeTo(0.2, 12),
    ]);
  });

  it("acre-cacr: final CACR of ACRE minus GRPO (0.93 − 0.88)", () => {
    const [c] = selectClaims(["acre-cacr"]);
    expect(comparisonsOf(c).map((k) => k.perSeed(acre, 1))).toEqual([expect.closeTo(0.05, 12)]);
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

  it("a missing eval is an error naming the arm, the seed and the step", () => {
    expect(() => perSeed("prm-shift", arm("rlvr", "rcAcc", [0.5, 0.5, 0.5]))).toThrow(
      /no eval of prm \(seed 1\) after the cold start/,
    );
  });

  it("groupwise-stability reads the point at the run's judge's default σ_b, not another σ_b", () => {
    const [c] = selectClaims(["groupwise-stability"]);
    const [k] = comparisonsOf(c);
    const d = JUDGE_DEFAULTS["text-auditor"];
    const at = (sigmaB: number, pointwise: number) => ({
      sigmaB,
      sigmaJ: d.sigmaJ,
      delta: d.delta,
      pointwise,
      groupwise: 0.016,
    });
    expect(d.sigmaB).not.toBe(0.17);
    const others = [0.1, 0.2, 0.3].filter((b) => b !== d.sigmaB).map((b) => at(b, 0.009));
    const stability = new Map([[1, [...others, at(d.sigmaB, 0.026), at(0.17, 0.03)]]]);
    expect(k.perSeed({ rows: [], stability }, 1)).toBeCloseTo(0.026 - 0.016, 12);
    const oracle = judgeSettings({ name: "oracle-auditor" }); // σ_b 0.17
    expect(k.perSeed({ rows: [], stability, judge: oracle }, 1)).toBeCloseTo(0.03 - 0.016, 12);
    const without = new Map([[1, others]]);
    expect(() => k.perSeed({ rows: [], stability: without }, 1)).toThrow(
      new RegExp(`no stability point with sigmaB ${d.sigmaB} for seed 1`),
    );
  });
});
