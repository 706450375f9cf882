/** Variant-level scorers, verifier, consistency judgment, metrics and builders on hand-built prompts. */
import { describe, expect, it } from "vitest";
import {
  auditTrace,
  buildPairwiseExamples,
  buildPointwiseExamples,
  createAuditorJudge,
  judgeConsistency,
  makeHardNegative,
  metricRecords,
  mulberry32,
  oscr,
  paperMetrics,
  parseTrace,
  rewardsForAdvantages,
  scoreACRE,
  scoreGRR,
  scorePointwiseGR,
  scorePRMMean,
  scoreRLVR,
  scoreSCS,
  scoreStructReward,
  shuffleOptions,
  strictFormatOk,
  tiersFromScores,
  verifyRollout,
  type Judge,
} from "../../src/rewards/index";
import { groupAdvantages } from "../../src/kernels/advantages/reference";
import { VariantSchema } from "../../src/settings/experiment";
import { digitSumPrompt, digitTrace } from "./fixtures";

const prompt = digitSumPrompt({ digits: [3, 4] }); // answer 7 = B; options A 6, B 7, C 8, D 9
const open = digitSumPrompt({ digits: [3, 4], multipleChoice: false });

describe("verifier r_ver (docs/reward-spec.md §0)", () => {
  it("maps letters to contents and accepts the content without a letter", () => {
    expect(verifyRollout({ text: digitTrace([3, 4], 7, "B"), prompt }).rVer).toBe(1);
    expect(verifyRollout({ text: digitTrace([3, 4], 7, "7"), prompt }).rVer).toBe(1);
    expect(verifyRollout({ text: digitTrace([3, 4], 7, "\\text{(B)}"), prompt }).rVer).toBe(1);
    expect(verifyRollout({ text: digitTrace([3, 4], 7, "C"), prompt }).rVer).toBe(0);
    expect(verifyRollout({ text: digitTrace([3, 4], 7, "B. 9"), prompt }).rVer).toBe(0);
    expect(verifyRollout({ text: digitTrace([3, 4], 7, "7"), prompt: open }).rVer).toBe(1);
  });
  it("a cut-off answer is N/A, even when the parser could read something", () => {
    const cut = verifyRollout({
      text: "<think> Step 1: x = \\boxed{7} </think> <answer>B",
      prompt,
    });
    expect(cut).toMatchObject({ rVer: 0, na: true, reason: "truncated", answer: "B" });
    const openThink = verifyRollout({ text: "<think> Step 1: x = \\boxed{7} \\boxed{B}", prompt });
    expect(openThink).toMatchObject({ rVer: 0, na: true });
    const cutBox = verifyRollout({
      text: "<think> Step 1: x = \\boxed{7} </think> Answer: B \\boxed{B",
      prompt,
    });
    expect(cutBox).toMatchObject({ rVer: 0, na: true });
  });
});

describe("consistency judgment and metrics (GRR §4.1)", () => {
  it("consistent / inconsistent / na", () => {
    const o = prompt.options!;
    expect(judgeConsistency({ text: digitTrace([3, 4], 7, "B"), options: o }).judgment).toBe(
      "consistent",
    );
    expect(judgeConsistency({ text: digitTrace([3, 4], 7, "C"), options: o }).judgment).toBe(
      "inconsistent",
    );
    expect(judgeConsistency({ text: digitTrace([3, 4], 7, "7"), options: o }).judgment).toBe(
      "consistent",
    );
    expect(
      judgeConsistency({ text: "<think> Step 1: x = \\boxed{7} </think>", options: o }).judgment,
    ).toBe("na");
    expect(
      judgeConsistency({ text: "<think> thinking </think> \\boxed{B}", options: o }).judgment,
    ).toBe("inconsistent");
    expect(
      judgeConsistency({
        text: "<think> thinking </think> \\boxed{B}",
        options: o,
        noConclusion: "na",
      }).judgment,
    ).toBe("na");
  });
  it("a policy writing the correct reference trace scores Acc = RC-Acc = 1, IncR = 0", () => {
    const prompts = [
      digitSumPrompt({ digits: [3, 4] }),
      digitSumPrompt({ digits: [1, 8] }),
      digitSumPrompt({ digits: [2, 5, 9] }),
    ];
    expect(prompts[0].sftTarget).toBe(
      "<think> Step 1: first digit = \\boxed{3} Step 2: second digit = \\boxed{4} Step 3: 3 + 4 = \\boxed{7} </think> \\boxed{B}",
    );
    const m = paperMetrics({
      records: metricRecords({ prompts, texts: prompts.map((p) => p.sftTarget) }),
    });
    expect(m).toEqual({ acc: 1, incR: 0, cbir: 0, rcAcc: 1, cacr: 1 });
  });
  it("keeping the steps and swapping the final letter scores IncR = 1", () => {
    const prompts = [digitSumPrompt({ digits: [3, 4] }), digitSumPrompt({ digits: [1, 8] })];
    const texts = prompts.map((p) => p.sftTarget.replace(/\\boxed\{B\}$/, "\\boxed{C}"));
    const m = paperMetrics({ records: metricRecords({ prompts, texts }) });
    expect(m.incR).toBe(1);
    expect(m.acc).toBe(0);
    expect(m.cacr).toBe(0);
  });
  it("right answer from wrong reasoning counts in CBIR and is removed from RC-Acc", () => {
    const prompts = [prompt, prompt];
    const texts = [digitTrace([3, 4], 7, "B"), digitTrace([2, 4], 6, "B")];
    const m = paperMetrics({ records: metricRecords({ prompts, texts }) });
    expect(m).toEqual({ acc: 1, incR: 0.5, cbir: 0.5, rcAcc: 0.5, cacr: 0.5 });
  });
  it("OSCR compares shuffled-option answers by content", () => {
    const o = prompt.options!;
    const s = { A: "7", B: "6", C: "9", D: "8" };
    expect(
      oscr({
        pairs: [
          { first: "B", second: "A", firstOptions: o, secondOptions: s },
          { first: "B", second: "B", firstOptions: o, secondOptions: s },
        ],
      }),
    ).toBe(0.5);
  });
});

const texts = [
  digitTrace([3, 4], 7, "B"), // perfect
  digitTrace([3, 4], 7, "B").replace("3 + 4", "3 - 4"), // wrong operation, right result
  digitTrace([2, 5], 7, "B"), // wrong reads, right sum
  digitTrace([3, 4], 8, "B"), // last local result disagrees with the answer
  digitTrace([3, 4], 7, "C"), // wrong answer
  "<think> Step 1: first digit = \\boxed{3}", // cut off
  "", // nothing
  digitTrace([3, 4], 7, "7"), // content answer
];

describe("GRR variants with the rubric auditor", () => {
  it("RLVR: total = r_ver with components", () => {
    const g = scoreRLVR(prompt, texts);
    expect(g.rollouts.map((r) => r.total)).toEqual([1, 1, 1, 1, 0, 0, 0, 1]);
    expect(g.rollouts[0].components).toEqual({ rVer: 1 });
  });
  it("auditor scores the perfect trace highest and missing reasoning 0", () => {
    const audits = texts.map((text) => auditTrace({ prompt, text }).score);
    expect(audits[0]).toBe(1);
    expect(audits[1]).toBeLessThan(1);
    expect(audits[2]).toBeLessThan(audits[0]);
    expect(audits[3]).toBeLessThan(audits[0]);
    expect(audits[5]).toBe(0);
    expect(audits[6]).toBe(0);
  });
  it("groupwise: failed rollouts stay at 0, r_rank sums to 0 over I+, best ranked first", () => {
    const judge = createAuditorJudge({ sigmaJ: 0, sigmaB: 0, delta: 0.01 });
    const g = scoreGRR(prompt, texts, { judge }, mulberry32(1));
    expect(g.judgeCalls).toBe(1);
    expect(g.judgeFailures).toBe(0);
    const rr = g.rollouts.map((r) => r.components.rRank);
    expect(rr[4]).toBe(0);
    expect(rr[5]).toBe(0);
    expect(g.rollouts[4].total).toBe(0);
    expect(Math.abs(rr.reduce((a, b) => a + b, 0))).toBeLessThan(1e-12);
    expect(rr[0]).toBe(Math.max(...rr));
    expect(rr[0]).toBe(rr[7]); // identical reasoning ties
    expect(g.tiers![0]).toEqual([0, 7]);
    for (const x of rr) expect(Math.abs(x)).toBeLessThanOrEqual(0.5);
  });
  it("unparseable judge reply: r_rank 0 for the group and one judge failure", () => {
    const broken: Judge = {
      pointwise: () => "no idea",
      groupwise: () => '{"solutions": [{"index": 1, "ra',
    };
    const g = scoreGRR(prompt, texts, { judge: broken }, mulberry32(1));
    expect(g.judgeFailures).toBe(1);
    expect(g.rollouts.map((r) => r.components.rRank)).toEqual(new Array(8).fill(0));
    const p = scorePointwiseGR(prompt, texts, { judge: broken }, mulberry32(1));
    expect(p.judgeFailures).toBe(8);
    expect(p.judgeCalls).toBe(8);
    const crashing: Judge = {
      pointwise: () => {
        throw new Error("x");
      },
      groupwise: () => {
        throw new Error("x");
      },
    };
    expect(scoreGRR(prompt, texts, { judge: crashing }, mulberry32(1)).judgeFailures).toBe(1);
  });
  it("failure injection through the auditor is counted, never thrown", () => {
    const judge = createAuditorJudge({ failureRate: 1 });
    const g = scoreGRR(prompt, texts, { judge }, mulberry32(3));
    expect(g.judgeFailures).toBe(1);
    const p = scorePointwiseGR(prompt, texts, { judge }, mulberry32(3));
    expect(p.judgeFailures).toBe(8);
  });
  it("pointwise GR: R = r_ver + λ r_gr; noise-free auditor gives the audit score", () => {
    const judge = createAuditorJudge({ sigmaJ: 0, sigmaB: 0 });
    const g = scorePointwiseGR(prompt, texts, { judge, lambda: 0.5 }, mulberry32(1));
    expect(g.rollouts[0].total).toBe(1.5);
    expect(g.rollouts[0].components).toEqual({ rVer: 1, rGr: 1 });
    expect(g.rollouts[6].total).toBe(0);
  });
  it("PRM mean: R = r_ver + λ·mean labels; a failing PRM makes the rollout unscorable", () => {
    const g = scorePRMMean(prompt, texts.slice(0, 3), {
      prm: ({ parsed }) => parsed.steps.map((_s, i) => (i === 0 ? 1 : 0)),
    });
    expect(g.rollouts[0].components.rPrm).toBeCloseTo(1 / 3, 12);
    const bad = scorePRMMean(prompt, texts.slice(0, 2), { prm: () => [NaN] });
    expect(bad.rollouts[0].unscorable).toBe(true);
    const adv = groupAdvantages({
      rewards: rewardsForAdvantages(bad),
      groupSize: 2,
      estimator: "grpo",
    });
    expect(adv).toEqual([0, 0]);
  });
  it("invalid config throws naming the field", () => {
    expect(() => createAuditorJudge({ sigmaB: -0.1 })).toThrow(/sigmaB/);
    // λ's range is the variant table's schema, checked once where a setting enters the trainer.
    expect(() => VariantSchema.parse({ name: "grr", weights: { lambda: -1 } })).toThrow(/lambda/);
    expect(() =>
      scoreGRR(
        prompt,
        texts,
        { judge: createAuditorJudge(), mapping: "x" as never },
        mulberry32(1),
      ),
    ).toThrow(/mapping/);
  });
  it("tie margin δ groups close scores", () => {
    expect(tiersFromScores([0.9, 0.88, 0.5, 0.49, 0.1], 0.05)).toEqual([1, 1, 2, 2, 3]);
    expect(tiersFromScores([0.9, 0.88, 0.5], 0)).toEqual([1, 2, 3]);
  });
});

describe("StructReward, SCS and ACRE variants", () => {
  it("StructReward group: components per rollout", () => {
    const g = scoreStructReward(prompt, texts);
    expect(g.rollouts[0].total).toBeCloseTo(1.2125, 12);
    expect(g.rollouts[0].components).toEqual({ fmt: 1, right: 1, rule: 1, cons: 1 });
    expect(g.rollouts[2].components.rule).toBeCloseTo(1 / 3, 12);
    expect(g.rollouts[3].components.cons).toBe(0);
    expect(g.rollouts[5].total).toBe(0);
  });
  it("SCS: r = r_fmt + r_acc + r_con", () => {
    const cont = texts.map(() => [
      "<think> a </think> <answer>B</answer>",
      "<think> a </think> <answer>7</answer>",
      "<think> a </think> <answer>C</answer>",
      "<think> a",
    ]);
    const g = scoreSCS(prompt, texts, cont);
    // distinct: {B ≡ 7, C, none} = 3 of m = 4 → r_con = 0.25
    expect(g.rollouts[0].components).toEqual({ rFmt: 1, rAcc: 1, rCon: 0.25 });
    expect(g.rollouts[0].total).toBe(2.25);
    const rel = scoreSCS(prompt, texts, cont, { form: "released" });
    expect(rel.rollouts[0].components.rCon).toBeCloseTo(0.3 * (5 - 3), 12);
    expect(rel.rollouts[0].total).toBeCloseTo(0.5 + 1 + 0.6, 12);
  });
  it("ACRE: R = r_acc + r_fmt + r_c (+ length)", () => {
    const rng = mulberry32(5);
    const shuffledOpts = shuffleOptions(prompt.options!, rng);
    const letterOf7 = Object.keys(shuffledOpts).find((k) => shuffledOpts[k] === "7")!;
    const second = {
      texts: texts.map(() => `<think> x </think> \\boxed{${letterOf7}}`),
      options: texts.map(() => shuffledOpts),
    };
    const g = scoreACRE(prompt, texts, second);
    expect(g.rollouts[0].components).toEqual({ rAcc: 1, rFmt: 1, rC: 1, rLen: 0 });
    expect(g.rollouts[4].components.rC).toBe(0.9); // C first (wrong), 7 second (right)
    const withLen = scoreACRE(prompt, texts, second, { length: { lMin: 5, lMax: 40 } });
    expect(withLen.rollouts[0].components.rLen).toBe(0.2);
  });
});

describe("rollout recycling and hard negatives (StructReward §3)", () => {
  it("pointwise and pairwise examples; same-label pairs excluded", () => {
    const pw = buildPointwiseExamples({ prompt, texts });
    expect(pw.map((e) => e.label)).toEqual([1, 1, 1, 1, 0, 0, 0, 1]);
    const pairs = buildPairwiseExamples({ prompt, texts, rng: mulberry32(2) });
    expect(pairs.length).toBe(5 * 3);
    for (const p of pairs) {
      const chosen = p.target === "A" ? p.responseA : p.responseB;
      const other = p.target === "A" ? p.responseB : p.responseA;
      expect(verifyRollout({ text: chosen, prompt }).passed).toBe(true);
      expect(verifyRollout({ text: other, prompt }).passed).toBe(false);
    }
    expect(new Set(pairs.map((p) => p.target)).size).toBe(2);
  });
  it("hard negative: exactly one step changed, still parses", () => {
    const rng = mulberry32(9);
    for (let t = 0; t < 20; t++) {
      const hn = makeHardNegative({ prompt, text: prompt.sftTarget, rng });
      expect(hn).not.toBeNull();
      const a = parseTrace({ text: prompt.sftTarget });
      const b = parseTrace({ text: hn!.text });
      expect(strictFormatOk(b)).toBe(true);
      expect(b.steps.filter((s, i) => s.text !== a.steps[i].text).map((s) => s.index)).toEqual([
        hn!.step,
      ]);
      expect(hn!.locate.target).toBe(`Step ${hn!.step}`);
      const correct = hn!.choose.target === "A" ? hn!.choose.responseA : hn!.choose.responseB;
      expect(correct).toBe(prompt.sftTarget);
    }
    expect(makeHardNegative({ prompt, text: texts[4], rng })).toBeNull(); // wrong answer does not qualify
  });
});

describe("rubric auditor arithmetic", () => {
  const prompt = {
    referenceSteps: [
      { text: "", value: "8" },
      { text: "", value: "4" },
      { text: "", value: "7" },
      { text: "", value: "5" },
    ],
    options: null,
    answer: { letter: null, content: "5" },
  } as unknown as Parameters<typeof auditTrace>[0]["prompt"];
  const steps =
    "Step 1: first digit = \\boxed{8} Step 2: second digit = \\boxed{4} Step 3: third digit = \\boxed{7}";

  it("checks a three-term step as a whole, not by its last two terms", () => {
    expect(
      auditTrace({
        prompt,
        text: `<think> ${steps} Step 4: 8 + 4 - 7 = \\boxed{5} </think> \\boxed{5}`,
      }).arithmetic,
    ).toBe(1);
    expect(
      auditTrace({
        prompt,
        text: `<think> ${steps} Step 4: 8 + 4 - 7 = \\boxed{-3} </think> \\boxed{-3}`,
      }).arithmetic,
    ).toBe(0);
  });

  it("applies products before sums", () => {
    expect(
      auditTrace({ prompt, text: `<think> Step 1: 2 * 3 + 4 = \\boxed{10} </think> \\boxed{10}` })
        .arithmetic,
    ).toBe(1);
  });
});
