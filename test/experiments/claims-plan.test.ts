/**
 * The claims report's plan, judging and plot on hand-made rows
 * (docs/reward-spec.md §2 "How the claims are judged"): which runs train
 * which arms, rows of an arm with other weights under its key, each
 * comparison's MDE and seeds needed, the intersection–union verdict, and the
 * judged paired difference beside the arms' curves.
 */
import { describe, expect, it } from "vitest";
import { selectClaims } from "../../src/experiments/claims";
import { claimInputs, planRuns, relabel, sigmaBSweep } from "../../src/experiments/claims-plan";
import { judgeClaim } from "../../src/experiments/claims-judge";
import { plotFor } from "../../src/experiments/claims-plots";
import { judgeSettings } from "../../src/rewards/judges";
import type { MetricRow } from "../../src/run/run-types";

const evalRow = (variant: string, seed: number, step: number, values: Record<string, number>) =>
  ({ variant, seed, step, time: 0, kind: "eval", values }) as MetricRow;

describe("planRuns", () => {
  it("one run per task of the variants at their defaults; an arm with other weights in a run of its own", () => {
    const plans = planRuns(
      selectClaims(["structreward-ablation", "grr-rcacc", "scs-gain", "groupwise-stability"]),
    );
    expect(plans.map((p) => [p.key, p.task, p.arms.map((a) => a.key), p.stability])).toEqual([
      ["default", "default", ["rlvr", "grr", "pointwise-gr", "structreward"], true],
      ["default-2", "default", ["structreward+aux"], false],
      ["scs-faint", "scs-faint", ["scs-baseline", "scs"], false],
    ]);
    expect(plans[2].preset).toEqual({ name: "scs-faint" });
    // The SCS ablation arms: the preset's one variant under the arm's label, sharing SCS's cold start.
    expect(
      planRuns(selectClaims(["scs-ablation"])).map((p) => [p.key, p.task, p.arms, p.preset]),
    ).toEqual([
      [
        "scs-faint",
        "scs-faint",
        [
          { key: "scs-baseline", variant: "scs-baseline", weights: {} },
          { key: "scs", variant: "scs", weights: {} },
        ],
        { name: "scs-faint" },
      ],
      [
        "scs-faint-tr-only",
        "scs-faint",
        [{ key: "scs-tr", variant: "scs", weights: {} }],
        { name: "scs-faint-tr-only", only: "scs" },
      ],
      [
        "scs-faint-vp-only",
        "scs-faint",
        [{ key: "scs-vp", variant: "scs", weights: {} }],
        { name: "scs-faint-vp-only", only: "scs" },
      ],
    ]);
    expect(plans[1].arms[0]).toEqual({
      key: "structreward+aux",
      variant: "structreward",
      weights: { recycle: "on", hardNegatives: "on" },
    });
    // The stability claim alone still gets its (arm-less) run.
    expect(planRuns(selectClaims(["groupwise-stability"]))).toEqual([
      { key: "default", task: "default", arms: [], stability: true },
    ]);
  });

  it("relabels an arm's rows with its key and gathers a claim's rows from every run of its task", () => {
    const arms = [
      { key: "structreward+aux", variant: "structreward" as const, weights: { recycle: "on" } },
    ];
    const rows = relabel(
      [evalRow("structreward", 1, 0, { acc: 0.5 }), evalRow("rlvr", 1, 0, { acc: 0.4 })],
      arms,
    );
    expect(rows.map((r) => r.variant)).toEqual(["structreward+aux", "rlvr"]);
    const claims = selectClaims(["structreward-ablation"]);
    const plans = planRuns(claims);
    const byPlan = new Map([
      ["default", { rows: [evalRow("structreward", 1, 20, { acc: 0.8 })], stability: new Map() }],
      [
        "default-2",
        { rows: [evalRow("structreward+aux", 1, 20, { acc: 0.85 })], stability: new Map() },
      ],
    ]);
    const inputs = claimInputs(claims[0], plans, byPlan, judgeSettings());
    expect(inputs.rows).toHaveLength(2);
    expect(inputs.judge?.name).toBe("text-auditor");
  });

  it("σ_b sweep of the stability plot: 0, 0.1, 0.2 and the judge's default, once each", () => {
    expect(sigmaBSweep(judgeSettings({ name: "text-auditor" }))).toEqual([0, 0.1, 0.2]);
    expect(sigmaBSweep(judgeSettings({ name: "oracle-auditor" }))).toEqual([0, 0.1, 0.17, 0.2]);
  });
});

describe("judgeClaim", () => {
  // grr-rcacc on three seeds: GRR − RLVR = 0.10, 0.12, 0.14 (reproduced); GRR − pointwise GR =
  // 0.01, 0.03, 0.05 (inconclusive): the claim is inconclusive (intersection–union).
  const rows: MetricRow[] = [1, 2, 3].flatMap((seed, i) => [
    evalRow("rlvr", seed, 20, { rcAcc: 0.5 }),
    evalRow("pointwise-gr", seed, 20, { rcAcc: 0.59 }),
    evalRow("grr", seed, 20, { rcAcc: 0.6 + 0.02 * i }),
  ]);
  // pointwise GR at 0.59 each seed: GRR − pointwise = 0.01, 0.03, 0.05.
  const [c] = selectClaims(["grr-rcacc"]);
  const r = judgeClaim(c, { rows, stability: new Map() }, [1, 2, 3], "cmd");

  it("judges each comparison on its own, with MDE at N and the N its paper effect needs", () => {
    expect(r.comparisons!.map((k) => k.verdict)).toEqual(["reproduced", "inconclusive"]);
    expect(r.verdict).toBe("inconclusive");
    const [a, b] = r.comparisons!;
    expect(a.mean).toBeCloseTo(0.12, 12);
    expect(b.mean).toBeCloseTo(0.03, 12);
    expect(a.sd).toBeCloseTo(0.02, 12);
    // MDE at n = 3, sd 0.02: (4.302653 + 1.060660) · 0.02 / √3 = 0.061930
    expect(a.mde!).toBeCloseTo(0.06193, 5);
    // δ 0.073 with sd 0.02: (sd/δ)² = 0.0751; n = 3: (4.303 + 1.061)² · 0.0751 = 2.16 ≤ 3; n = 2: (12.71 + 1.376)² · 0.0751 = 14.9 > 2.
    expect(a.n_needed).toBe(3);
    // δ 0.024 with sd 0.02: (sd/δ)² = 0.694; n = 8 (ν 7): (2.365 + 0.896)² · 0.694 = 7.38 ≤ 8; n = 7 (ν 6): (2.447 + 0.906)² · 0.694 = 7.81 > 7.
    expect(b.n_needed).toBe(8);
    expect(r.decidable).toBe("no"); // 8 > 3 seeds
    expect(r.lab).toEqual({ mean: a.mean, ci95: a.ci95, per_seed: a.per_seed });
  });

  it("a reproduced claim is decided even where its paper effect would need more seeds", () => {
    const [d] = selectClaims(["rlvr-drift"]);
    // IncR rises by 0.198, 0.208, 0.123 (sd 0.0464): reproduced; δ 0.13 would need 4 seeds.
    const drift = [0.198, 0.208, 0.123].flatMap((x, i) => [
      evalRow("rlvr", i + 1, 0, { incR: 0.3 }),
      evalRow("rlvr", i + 1, 20, { incR: 0.3 + x }),
    ]);
    const out = judgeClaim(d, { rows: drift, stability: new Map() }, [1, 2, 3], "cmd");
    expect(out.verdict).toBe("reproduced");
    expect(out.comparisons![0].n_needed).toBe(4);
    expect(out.decidable).toBe("yes");
  });

  it("a claim of one comparison without a paper effect: decidability unknown", () => {
    const [scs] = selectClaims(["scs-gain"]);
    // scs-gain's Acc comparison, as if the paper gave no number.
    const s = { ...scs, comparisons: [{ ...scs.comparisons![0], paperEffect: null }] };
    const mc = [1, 2].flatMap((seed) => [
      evalRow("scs-baseline", seed, 20, { acc: 0.8 }),
      evalRow("scs", seed, 20, { acc: 0.8 + 0.01 * seed }),
    ]);
    const out = judgeClaim(s, { rows: mc, stability: new Map() }, [1, 2], "cmd");
    expect(out.comparisons).toHaveLength(1);
    expect(out.comparisons![0].n_needed).toBeNull();
    expect(out.decidable).toBe("unknown");
  });
});

describe("judgeClaim with a comparison printed beside", () => {
  it("SCS App. A's best checkpoint has its own verdict but does not decide the claim", () => {
    const [scs] = selectClaims(["scs-gain"]);
    // Last eval: SCS − baseline Acc 0.01, 0.03, 0.05 (inconclusive at n 3, sd 0.02);
    // lucky-guess 0.10 − 0.20 each seed (sd 0: reproduced on the lower side).
    // Best of every 10 steps: the baseline's best Acc is at step 10 (0.9), SCS's at 20:
    // SCS − baseline = −0.09, −0.07, −0.05 (not reproduced), and its lucky-guess rate read there.
    const rows: MetricRow[] = [1, 2, 3].flatMap((seed, i) => [
      evalRow("scs-baseline", seed, 10, { acc: 0.9, luckyGuess: 0.3 }),
      evalRow("scs-baseline", seed, 20, { acc: 0.8, luckyGuess: 0.2 }),
      evalRow("scs", seed, 10, { acc: 0.7, luckyGuess: 0.1 }),
      evalRow("scs", seed, 20, { acc: 0.81 + 0.02 * i, luckyGuess: 0.1 }),
    ]);
    const out = judgeClaim(scs, { rows, stability: new Map() }, [1, 2, 3], "cmd");
    expect(out.comparisons!.map((k) => [k.verdict, k.beside ?? false])).toEqual([
      ["inconclusive", false],
      ["not reproduced", true],
      ["reproduced", false],
      ["reproduced", true],
    ]);
    expect(out.comparisons![1].mean).toBeCloseTo(-0.07, 12);
    // Lucky-guess at each arm's best step: 0.1 (SCS, step 20) − 0.3 (baseline, step 10).
    expect(out.comparisons![3].mean).toBeCloseTo(-0.2, 12);
    // The claim: inconclusive ∩ reproduced, the beside rows left out (else "not reproduced").
    expect(out.verdict).toBe("inconclusive");
    expect(out.premise).toMatch(/^premise held/);
    expect(out.comparisons![1].label).toBe(
      "RLOO + SCS − RLOO, Acc (best of every 10 steps, SCS App. A protocol)",
    );
  });

  it("a run without an eval at a multiple of 10 steps leaves the best-checkpoint rows out, saying why", () => {
    const [scs] = selectClaims(["scs-gain"]);
    const rows: MetricRow[] = [1, 2].flatMap((seed) => [
      evalRow("scs-baseline", seed, 2, { acc: 0.5, luckyGuess: 0.2 }),
      evalRow("scs", seed, 2, { acc: 0.5 + 0.1 * seed, luckyGuess: 0.1 }),
    ]);
    const out = judgeClaim(scs, { rows, stability: new Map() }, [1, 2], "cmd");
    expect(out.comparisons!.map((k) => k.mean)).toEqual([
      expect.closeTo(0.15, 12),
      expect.closeTo(-0.1, 12),
    ]);
    expect(out.skipped).toEqual([
      "RLOO + SCS − RLOO, Acc (best of every 10 steps, SCS App. A protocol): claims: no eval of scs (seed 1) at a multiple of 10 steps with metric acc",
      "RLOO + SCS − RLOO, lucky-guess rate (best of every 10 steps, SCS App. A protocol): claims: no eval of scs (seed 1) at a multiple of 10 steps with metric luckyGuess",
    ]);
  });
});

describe("plotFor", () => {
  it("the arms' curves beside the judged paired differences per step, with a 0 line", () => {
    const [c] = selectClaims(["grr-rcacc"]);
    const rows: MetricRow[] = [1, 2].flatMap((seed) =>
      [0, 10, 20].flatMap((step) => [
        evalRow("rlvr", seed, step, { rcAcc: 0.5 - step / 200 }),
        evalRow("pointwise-gr", seed, step, { rcAcc: 0.5 + step / 400 }),
        evalRow("grr", seed, step, { rcAcc: 0.5 + step / 200 + seed / 100 }),
      ]),
    );
    const plots = plotFor(c, { rows, stability: new Map() }, [1, 2], judgeSettings())!;
    expect(plots).toHaveLength(2);
    expect(plots[0].series.map((s) => s.label)).toEqual(["rlvr", "pointwise-gr", "grr"]);
    expect(plots[1].zeroLine).toBe(true);
    expect(plots[1].series.map((s) => s.label)).toEqual([
      "GRR − RLVR, RC-Acc",
      "GRR − pointwise GR, RC-Acc",
    ]);
    // GRR − RLVR at step 20: 0.2 + seed/100 → mean 0.215 over seeds 1 and 2.
    const last = plots[1].series[0].points.at(-1)!;
    expect(last.x).toBe(20);
    expect(last.mean).toBeCloseTo(0.215, 12);
  });
});
