/** Every worked value of docs/reward-spec.md, plus the config errors of the public API. */
import { describe, expect, it } from "vitest";
import {
  acreConsistency,
  acreLengthReward,
  expectedDistinctAnswers,
  paperMetrics,
  rankRewards,
  scsConsistency,
  structReward,
} from "../../src/rewards/index";
import { groupAdvantages, groupAdvantageStats } from "../../src/kernels/advantages/reference";
import { ADVANTAGE_PRESETS } from "../../src/settings/estimator-table";
import { trace } from "./fixtures";

const close = (a: number[], b: number[], tol = 1e-12) => {
  expect(a.length).toBe(b.length);
  a.forEach((x, i) => {
    expect(Math.abs(x - b[i])).toBeLessThanOrEqual(tol);
  });
};

describe("GRR rank rewards (docs/reward-spec.md §2)", () => {
  it("worked value: K = 4, tiers {A}, {B, C}, {D} → +0.5, 0, 0, −0.5", () => {
    close(rankRewards({ ranks: [1, 2, 2, 3] }), [0.5, 0, 0, -0.5]);
    close(rankRewards({ ranks: [1, 2, 2, 4], mapping: "pcs" }), [0.5, 0, 0, -0.5]);
  });
  it("all tied → all 0, for every mapping", () => {
    for (const mapping of ["pcs", "edn", "trs", "irn"] as const) {
      close(rankRewards({ ranks: [2, 2, 2, 2], mapping }), [0, 0, 0, 0]);
    }
  });
  it("K < 2 gives 0", () => {
    expect(rankRewards({ ranks: [1] })).toEqual([0]);
    expect(rankRewards({ ranks: [] })).toEqual([]);
  });
  it("alternative mappings are centered and ordered", () => {
    // TRS with tiers {A},{B,C},{D}: 1, .5, .5, 0 → same as PCS here.
    close(rankRewards({ ranks: [1, 2, 2, 3], mapping: "trs" }), [0.5, 0, 0, -0.5]);
    // EDN γ = 0.5: 1, .5, .5, .25 → min–max 1, 1/3, 1/3, 0; mean 5/12.
    close(rankRewards({ ranks: [1, 2, 2, 3], mapping: "edn" }), [
      7 / 12,
      -1 / 12,
      -1 / 12,
      -5 / 12,
    ]);
    // IRN competition ranks 1, 2, 2, 4 → 1, .5, .5, .25 → same as EDN here.
    close(rankRewards({ ranks: [1, 2, 2, 3], mapping: "irn" }), [
      7 / 12,
      -1 / 12,
      -1 / 12,
      -5 / 12,
    ]);
  });
  it("unknown mapping and bad ranks throw naming the field", () => {
    expect(() => rankRewards({ ranks: [1, 2], mapping: "zzz" as never })).toThrow(/mapping/);
    expect(() => rankRewards({ ranks: [1, NaN] })).toThrow(/ranks/);
    expect(() => rankRewards({ ranks: [0, 1] })).toThrow(/ranks/);
  });
});

describe("StructReward (docs/reward-spec.md §3)", () => {
  const ref = ["3", "4", "7"];
  it("worked value 0.925: valid, correct, 2 of 3 steps matched, consistent", () => {
    const text = trace(
      ["first digit = \\boxed{3}", "second digit = \\boxed{5}", "3 + 4 = \\boxed{7}"],
      "7",
    );
    const r = structReward({ text, referenceSteps: ref, gold: "7" });
    expect(r.fmt).toBe(1);
    expect(r.right).toBe(1);
    expect(r.rule).toBeCloseTo(2 / 3, 12);
    expect(r.cons).toBe(1);
    expect(r.total).toBeCloseTo(0.925, 12);
  });
  it("worked value 0.1: valid but wrong answer with all steps matched", () => {
    const text = trace(
      ["first digit = \\boxed{3}", "second digit = \\boxed{4}", "3 + 4 = \\boxed{7}"],
      "8",
    );
    const r = structReward({ text, referenceSteps: ref, gold: "7" });
    expect(r).toEqual({ total: 0.1, fmt: 1, right: 0, rule: 1, cons: 0 });
  });
  it("maximum 1.2125 for a perfect trace; letters map to option contents", () => {
    const text = trace(
      ["first digit = \\boxed{3}", "second digit = \\boxed{4}", "3 + 4 = \\boxed{7}"],
      "B",
    );
    const options = { A: "6", B: "7", C: "8", D: "9" };
    const r = structReward({
      text,
      referenceSteps: ref.map((value) => ({ text: "", value })),
      gold: "B",
      options,
    });
    expect(r.total).toBeCloseTo(1.2125, 12);
    expect(r.cons).toBe(1);
  });
  it("negative or unknown-typed weights throw naming the field", () => {
    expect(() =>
      structReward({ text: "", referenceSteps: ref, gold: "7", weights: { rule: -1 } }),
    ).toThrow(/weights\.rule/);
    expect(() =>
      structReward({ text: "", referenceSteps: ref, gold: "7", weights: { cons: NaN } }),
    ).toThrow(/weights\.cons/);
  });
  it("strict R_fmt: numbering, a box in every step, a separate final answer", () => {
    const gapped = "<think> Step 1: a = \\boxed{3} Step 3: b = \\boxed{4} </think> \\boxed{7}";
    expect(structReward({ text: gapped, referenceSteps: ref, gold: "7" }).fmt).toBe(0);
    const noBox = "<think> Step 1: a = \\boxed{3} Step 2: b is four </think> \\boxed{7}";
    expect(structReward({ text: noBox, referenceSteps: ref, gold: "7" }).fmt).toBe(0);
    const lineAnswer = "<think> Step 1: a = \\boxed{3} </think> Answer: 7";
    expect(structReward({ text: lineAnswer, referenceSteps: ref, gold: "7" }).fmt).toBe(0);
    const cutOff = "<think> Step 1: a = \\boxed{3} </think> \\boxed{7";
    const r = structReward({ text: cutOff, referenceSteps: ref, gold: "7" });
    expect(r.fmt).toBe(0);
    expect(r.right).toBe(0);
  });
});

describe("SCS (docs/reward-spec.md §4)", () => {
  it("E[S] worked values: p = 1 → 1; N = 4, p = 0.25, M = 4 → 2.734375", () => {
    expect(expectedDistinctAnswers({ numOptions: 4, p: 1, trials: 4 })).toBe(1);
    expect(expectedDistinctAnswers({ numOptions: 4, p: 0.25, trials: 4 })).toBeCloseTo(
      2.734375,
      12,
    );
    expect(expectedDistinctAnswers({ numOptions: 1, p: 0.5, trials: 2 })).toBeCloseTo(0.75, 12);
    expect(() => expectedDistinctAnswers({ numOptions: 0, p: 0.5, trials: 2 })).toThrow(
      /numOptions/,
    );
    expect(() => expectedDistinctAnswers({ numOptions: 4, p: 1.5, trials: 2 })).toThrow(/p must/);
  });
  it("paper form c·(N − |𝒜|)/N with N = m, range [0, c(m−1)/m]", () => {
    expect(scsConsistency({ answers: ["7", "7", "7", "7"] })).toBeCloseTo(0.75, 12);
    expect(scsConsistency({ answers: ["7", "7.0", "\\frac{14}{2}", "7 cm"] })).toBeCloseTo(
      0.75,
      12,
    );
    expect(scsConsistency({ answers: ["1", "2", "3", "4"] })).toBe(0);
    expect(scsConsistency({ answers: ["7", "8", "7", "8"], c: 2 })).toBeCloseTo(1, 12);
    // unparseable answers together count as one element
    expect(scsConsistency({ answers: [null, null, "7", ""] })).toBeCloseTo(0.5, 12);
    expect(scsConsistency({ answers: [] })).toBe(0);
  });
  it("released form 0.3·(5 − |𝒜|) with the first capital letter in <answer>", () => {
    const same = [
      "<answer>B</answer>",
      "<answer>B</answer>",
      "<answer>B</answer>",
      "<answer>B</answer>",
    ];
    expect(scsConsistency({ answers: same, form: "released" })).toBeCloseTo(1.2, 12);
    const mixed = [
      "<answer>B</answer>",
      "<answer>C</answer>",
      "<answer>the B</answer>",
      "<answer>x</answer>",
    ];
    expect(scsConsistency({ answers: mixed, form: "released" })).toBeCloseTo(0.6, 12);
  });
  it("invalid c and form throw naming the field", () => {
    expect(() => scsConsistency({ answers: ["1"], c: -1 })).toThrow(/\bc\b/);
    expect(() => scsConsistency({ answers: ["1"], form: "x" as never })).toThrow(/form/);
  });
});

describe("ACRE (docs/reward-spec.md §5)", () => {
  it("r_c cases with default α = [1, 0.9, 0.3]", () => {
    expect(acreConsistency({ first: "7", second: "7", gold: "7" })).toBe(1);
    expect(acreConsistency({ first: "7", second: "8", gold: "7" })).toBe(0.9);
    expect(acreConsistency({ first: "8", second: "7", gold: "7" })).toBe(0.9);
    expect(acreConsistency({ first: "8", second: "8", gold: "7" })).toBe(0.3);
    expect(acreConsistency({ first: "8", second: "9", gold: "7" })).toBe(0);
    expect(acreConsistency({ first: null, second: null, gold: "7" })).toBe(0);
  });
  it("compares option contents, not letters, across shuffled options", () => {
    const options = { A: "6", B: "7", C: "8", D: "9" };
    const shuffledOpts = { A: "7", B: "9", C: "6", D: "8" };
    // B (=7) first, A (=7) after shuffling: same content, both correct.
    expect(
      acreConsistency({ first: "B", second: "A", gold: "B", options, secondOptions: shuffledOpts }),
    ).toBe(1);
    // same letter B, different content (7 vs 9): disagree, one correct.
    expect(
      acreConsistency({ first: "B", second: "B", gold: "7", options, secondOptions: shuffledOpts }),
    ).toBe(0.9);
  });
  it("custom alphas and length reward; invalid alphas throw", () => {
    expect(acreConsistency({ first: "8", second: "8", gold: "7", alphas: [1, 0.9, 0] })).toBe(0);
    expect(() =>
      acreConsistency({ first: "8", second: "8", gold: "7", alphas: [1, -1, 0] }),
    ).toThrow(/alphas\[1\]/);
    expect(acreLengthReward({ correct: true, length: 400 })).toBe(0.2);
    expect(acreLengthReward({ correct: true, length: 600 })).toBe(0);
    expect(acreLengthReward({ correct: false, length: 400 })).toBe(0);
  });
});

describe("advantages (docs/reward-spec.md §1)", () => {
  it("grpo-stable: clip ±3, σ + 1e-8, group skipped when σ < 1e-4", () => {
    const a = groupAdvantages({
      rewards: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      groupSize: 16,
      estimator: "grpo-stable",
      std: "population",
    });
    expect(a[0]).toBe(3); // unclipped (1 − 1/16)/σ = 3.87
    expect(a[1]).toBeCloseTo(-(1 / 16) / Math.sqrt(15 / 256), 6);
    expect(
      groupAdvantages({ rewards: [0.5, 0.50000001], groupSize: 2, estimator: "grpo-stable" }),
    ).toEqual([0, 0]);
  });
  it("presets after TRL, verl, OpenRLHF", () => {
    expect(ADVANTAGE_PRESETS.trl).toEqual({ std: "sample", eps: 1e-4 });
    expect(ADVANTAGE_PRESETS.verl).toEqual({ std: "sample", eps: 1e-6 });
    expect(ADVANTAGE_PRESETS.openrlhf).toEqual({ std: "sample", eps: 1e-9 });
  });
  it("reports zero-std groups and unscorable rollouts", () => {
    const s = groupAdvantageStats({ rewards: [1, 1, 0, NaN], groupSize: 2, estimator: "grpo" });
    expect(s.zeroStdGroups).toBe(2);
    expect(s.fracZeroStd).toBe(1);
    expect(s.unscorable).toBe(1);
    expect(s.advantages).toEqual([0, 0, 0, 0]);
  });
  it("invalid config throws naming the field", () => {
    expect(() => groupAdvantages({ rewards: [1, 2, 3], groupSize: 2, estimator: "grpo" })).toThrow(
      /groupSize|length/,
    );
    expect(() =>
      groupAdvantages({ rewards: [1, 2], groupSize: 2, estimator: "ppo" as never }),
    ).toThrow(/estimator/);
    expect(() =>
      groupAdvantages({ rewards: [1, 2], groupSize: 2, estimator: "grpo", std: "x" as never }),
    ).toThrow(/std/);
    expect(() =>
      groupAdvantages({ rewards: [1, 2], groupSize: 2, estimator: "grpo", eps: -1 }),
    ).toThrow(/eps/);
  });
});

describe("paper metrics (docs/reward-spec.md §2)", () => {
  it("Acc, IncR, CBIR, RC-Acc, CACR from records", () => {
    const m = paperMetrics({
      records: [
        { correct: true, judgment: "consistent" },
        { correct: true, judgment: "inconsistent" },
        { correct: false, judgment: "inconsistent" },
        { correct: false, judgment: "na" },
      ],
    });
    expect(m.acc).toBe(0.5);
    expect(m.incR).toBeCloseTo(2 / 3, 12);
    expect(m.cbir).toBe(0.25);
    expect(m.rcAcc).toBe(0.25);
    expect(m.cacr).toBe(0.25);
    expect(paperMetrics({ records: [] })).toEqual({ acc: 0, incR: 0, cbir: 0, rcAcc: 0, cacr: 0 });
    expect(() =>
      paperMetrics({ records: [{ correct: true, judgment: "maybe" as never }] }),
    ).toThrow(/judgment/);
  });
});
