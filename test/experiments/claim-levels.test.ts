/**
 * A claim repeated over a setting (src/experiments/claim-levels.ts): one
 * claim per value; at the run's own value the table's claim, at another the
 * touched arms trained again under their own keys beside the same RLVR, the
 * comparisons reading those arms; the runs that train them.
 */
import { describe, expect, it } from "vitest";
import { comparisonsOf, selectClaims } from "../../src/experiments/claims";
import { claimsAtLevels } from "../../src/experiments/claim-levels";
import { planRuns } from "../../src/experiments/claims-plan";
import { judgeSettings } from "../../src/rewards/judges";
import type { MetricRow } from "../../src/run/run-types";

const evalRow = (variant: string, step: number, values: Record<string, number>) =>
  ({ variant, seed: 1, step, time: 0, kind: "eval", values }) as MetricRow;

const levels = { judgeSigmaB: [0, 0.1, 0.2], prm: ["shipped", "sft-cold-start"] } as const;

describe("claimsAtLevels", () => {
  const text = judgeSettings({ name: "text-auditor" });
  const claims = claimsAtLevels(
    selectClaims(["rlvr-drift", "grr-rcacc", "prm-shift"]),
    levels,
    text,
  );

  it("one claim per σ_b and per PRM, the others once", () => {
    expect(claims.map((c) => [c.id, c.level ?? null])).toEqual([
      ["rlvr-drift", null],
      ["grr-rcacc", "σ_b 0"],
      ["grr-rcacc", "σ_b 0.1"],
      ["grr-rcacc", "σ_b 0.2"],
      ["prm-shift", "PRM shipped"],
      ["prm-shift", "PRM sft-cold-start"],
    ]);
    // σ_b 0 is the text auditor's own: the table's arms.
    expect(claims[1].variants).toEqual(["rlvr", "pointwise-gr", "grr"]);
    expect(claims[1].arms).toBeUndefined();
    expect(claims[2].variants).toEqual(["rlvr"]);
    expect(claims[2].arms).toEqual([
      { key: "pointwise-gr sigma_b 0.1", variant: "pointwise-gr", weights: {}, sigmaB: 0.1 },
      { key: "grr sigma_b 0.1", variant: "grr", weights: {}, sigmaB: 0.1 },
    ]);
    expect(claims[5].variants).toEqual(["rlvr", "pointwise-gr", "grr"]);
    expect(claims[5].arms).toEqual([
      { key: "prm sft-cold-start", variant: "prm", weights: {}, prm: "sft-cold-start" },
    ]);
    // IncR, response length and steps per trace, each for RLVR and this level's PRM arm.
    expect(claims[5].curves!.map((c) => [c.metric, c.arms])).toEqual([
      ["incR", ["rlvr", "prm sft-cold-start"]],
      ["response_length", ["rlvr", "prm sft-cold-start"]],
      ["stepsPerTrace", ["rlvr", "prm sft-cold-start"]],
    ]);
  });

  it("a level's comparisons read its own arms and the shared RLVR", () => {
    const rows = [
      evalRow("rlvr", 20, { rcAcc: 0.5 }),
      evalRow("grr", 20, { rcAcc: 0.6 }),
      evalRow("pointwise-gr", 20, { rcAcc: 0.55 }),
      evalRow("grr sigma_b 0.2", 20, { rcAcc: 0.64 }),
      evalRow("pointwise-gr sigma_b 0.2", 20, { rcAcc: 0.52 }),
    ];
    const at = (i: number) =>
      comparisonsOf(claims[i]).map((k) => k.perSeed({ rows, stability: new Map() }, 1));
    expect(at(1)).toEqual([expect.closeTo(0.1, 12), expect.closeTo(0.05, 12)]);
    // σ_b 0.2: GRR 0.64 − RLVR 0.50, GRR 0.64 − pointwise GR 0.52.
    expect(at(3)).toEqual([expect.closeTo(0.14, 12), expect.closeTo(0.12, 12)]);
    expect(comparisonsOf(claims[3]).map((k) => k.label)).toEqual([
      "GRR − RLVR, final RC-Acc (σ_b 0.2)",
      "GRR − pointwise GR, final RC-Acc (σ_b 0.2)",
    ]);
    // The weaker PRM's first-eval comparison: its own first eval after the cold start.
    const prmRows = [
      evalRow("rlvr", 0, { rcAcc: 0.5 }),
      evalRow("rlvr", 20, { rcAcc: 0.52 }),
      evalRow("rlvr", 140, { rcAcc: 0.45 }),
      evalRow("prm sft-cold-start", 0, { rcAcc: 0.5 }),
      evalRow("prm sft-cold-start", 20, { rcAcc: 0.55 }),
      evalRow("prm sft-cold-start", 140, { rcAcc: 0.4 }),
    ];
    expect(
      comparisonsOf(claims[5]).map((k) => k.perSeed({ rows: prmRows, stability: new Map() }, 1)),
    ).toEqual([expect.closeTo(0.03, 12), expect.closeTo(-0.05, 12)]);
  });

  it("the runs: the level arms beside the variants they do not train yet, RLVR once", () => {
    expect(planRuns(claims).map((p) => [p.key, p.arms.map((a) => a.key)])).toEqual([
      ["default", ["rlvr", "grr", "pointwise-gr", "prm"]],
      ["default-2", ["pointwise-gr sigma_b 0.1", "grr sigma_b 0.1", "prm sft-cold-start"]],
      ["default-3", ["pointwise-gr sigma_b 0.2", "grr sigma_b 0.2"]],
    ]);
  });

  it("under a judge whose own σ_b is not a level, every level trains its own judge arms", () => {
    const oracle = claimsAtLevels(
      selectClaims(["grr-rcacc"]),
      { judgeSigmaB: [0, 0.1] },
      judgeSettings({ name: "oracle-auditor" }),
    );
    expect(oracle.map((c) => c.arms?.map((a) => a.key))).toEqual([
      ["pointwise-gr sigma_b 0", "grr sigma_b 0"],
      ["pointwise-gr sigma_b 0.1", "grr sigma_b 0.1"],
    ]);
  });

  it("a size without levels leaves the claims as they are; an unknown PRM is named", () => {
    const plain = selectClaims(["grr-rcacc", "prm-shift"]);
    expect(claimsAtLevels(plain, {}, text)).toEqual(plain);
    expect(() => claimsAtLevels(plain, { prm: ["nope" as "shipped"] }, text)).toThrow(
      /unknown PRM 'nope'; known: shipped, sft-cold-start/,
    );
  });
});
