/**
 * The text auditor (docs/reward-spec.md §2 "The lab's judges"): GRR App.
 * B.1's judges as text-only rubric auditors.
 * - Pointwise never reads the true digits: changing the scene's true values
 *   (reference steps, answer, image) gives the same reply, for any noise and seed.
 * - Its scores are always one of the five anchored levels.
 * - Identical candidates (and candidates that differ only in white space) in one
 *   groupwise call always share a rank, under any noise and seed.
 * - Worked levels of the rubric, and the σ_b = 0 check that was once half of
 *   the `groupwise-stability` claim.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createTextAuditor,
  mulberry32,
  parseJudgeRanking,
  parseJudgeScore,
  RUBRIC_LEVELS,
  scoreGRR,
  snapToLevel,
  textAudit,
} from "../../src/rewards/index";
import { createJudge } from "../../src/rewards/judges";
import { pointwiseView, ranksOfLevels } from "../../src/rewards/text-auditor";
import { DEFAULT_SWEEP_SETTINGS, stabilitySweep } from "../../src/experiments/stability-sweep";
import { JUDGE_DEFAULTS } from "../../src/rewards/judges";
import type { TaskPrompt } from "../../src/tasks/types";
import { digitSumPrompt, digitTrace, trace } from "./fixtures";
import { samplePrompts, sampleRollout } from "./policy";

const open = digitSumPrompt({ digits: [3, 4], multipleChoice: false });
const mc = digitSumPrompt({ digits: [3, 4], multipleChoice: true });
const level = (prompt: TaskPrompt, text: string) => textAudit(pointwiseView(prompt), text).level;

/** The same question with other true values: other reference steps, answer, image and target. */
function withOtherTruth(p: TaskPrompt, digits: number[], pixel: number): TaskPrompt {
  const other = digitSumPrompt({ digits, multipleChoice: p.options !== null });
  return {
    ...p,
    referenceSteps: other.referenceSteps,
    answer: other.answer,
    sftTarget: other.sftTarget,
    image: new Float32Array(p.image.length).fill(pixel),
  };
}

const noise = fc.record({
  sigmaJ: fc.double({ min: 0, max: 0.6, noNaN: true }),
  sigmaB: fc.double({ min: 0, max: 0.6, noNaN: true }),
});
const digit = fc.integer({ min: 0, max: 9 });
/** Traces of the kinds the lab's policies write (reads, a sum, a final box), right or wrong. */
const digitText = fc
  .record({
    read: fc.array(digit, { minLength: 1, maxLength: 3 }),
    slip: fc.integer({ min: -2, max: 2 }),
    final: fc.oneof(fc.integer({ min: -2, max: 20 }).map(String), fc.constantFrom("A", "B", "C")),
    cut: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  })
  .map(({ read, slip, final, cut }) => {
    const t = digitTrace(
      read,
      read.reduce((a, b) => a + b, 0),
      final,
    ).replace(/\\boxed\{(-?\d+)\} <\/think>/, (_, v) => `\\boxed{${Number(v) + slip}} </think>`);
    return cut === undefined ? t : t.slice(0, Math.floor(t.length * cut));
  });
const anyText = fc.oneof(digitText, fc.string({ maxLength: 80 }));

describe("text auditor: what it reads", () => {
  it("pointwise never reads the true digits: other true values give the same reply (any noise, seed)", () => {
    fc.assert(
      fc.property(
        digitText,
        noise,
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.array(digit, { minLength: 2, maxLength: 3 }),
        fc.boolean(),
        (text, n, seed, digits, multipleChoice) => {
          const prompt = multipleChoice ? mc : open;
          const judge = createTextAuditor(n);
          const a = judge.pointwise({ prompt, text, rng: mulberry32(seed) });
          const b = judge.pointwise({
            prompt: withOtherTruth(prompt, digits, 0.5),
            text,
            rng: mulberry32(seed),
          });
          expect(b).toBe(a);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("groupwise reads the reference answer but not the true intermediate values", () => {
    const texts = [
      digitTrace([2, 5], 7, "7"),
      digitTrace([3, 4], 7, "7"),
      digitTrace([3, 4], 8, "7"),
    ];
    const judge = createTextAuditor({ sigmaJ: 0.2, sigmaB: 0.2 });
    const other = withOtherTruth(open, [1, 6], 0.9); // same answer 7, other digits
    expect(judge.groupwise({ prompt: other, texts, rng: mulberry32(5) })).toBe(
      judge.groupwise({ prompt: open, texts, rng: mulberry32(5) }),
    );
  });

  it("scores are always one of the five anchored levels (any text, noise, seed)", () => {
    fc.assert(
      fc.property(anyText, noise, fc.integer({ min: 0, max: 2 ** 31 }), (text, n, seed) => {
        const reply = createTextAuditor(n).pointwise({ prompt: mc, text, rng: mulberry32(seed) });
        const read = parseJudgeScore({ text: reply });
        expect(read.ok).toBe(true);
        expect(RUBRIC_LEVELS).toContain(read.score);
      }),
      { numRuns: 500 },
    );
  });
});

describe("text auditor: ties", () => {
  it("identical candidates (or differing only in white space) always share a rank (any noise, seed)", () => {
    fc.assert(
      fc.property(
        fc.array(digitText, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        noise,
        fc.integer({ min: 0, max: 2 ** 31 }),
        (distinct, picks, n, seed) => {
          // Each candidate repeats one of the distinct texts, some with extra white space.
          const texts = picks.map((k, i) => {
            const t = distinct[k % distinct.length];
            return i % 2 === 0 ? t : `  ${t.replace(/ /g, "   ")}\n`;
          });
          const texts2 = [...texts, ...texts]; // every text at least twice
          const reply = createTextAuditor(n).groupwise({
            prompt: mc,
            texts: texts2,
            rng: mulberry32(seed),
          });
          const ranks = parseJudgeRanking({ text: reply, numCandidates: texts2.length }).ranks;
          const key = (t: string) => t.replace(/\s+/g, " ").trim();
          texts2.forEach((a, i) => {
            texts2.forEach((b, j) => {
              if (key(a) === key(b)) expect(ranks[i], `${i} vs ${j}`).toBe(ranks[j]);
            });
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("noise-free: ranks follow the levels, equal levels tie, all equal → all rank 1 and r_rank 0", () => {
    expect(ranksOfLevels([1, 0.5, 1, 0.2, 0.5])).toEqual([1, 2, 1, 3, 2]);
    const judge = createTextAuditor({ sigmaJ: 0, sigmaB: 0 });
    const texts = [
      digitTrace([3, 4], 7, "7"), // 1.0
      digitTrace([2, 5], 7, "7"), // 1.0: a misread a text-only reader cannot see
      digitTrace([3, 4], 8, "7"), // 0.2: slipped sum, answer not following it
      digitTrace([3, 5], 8, "7"), // 0.5: answer not following the last step
    ];
    const reply = judge.groupwise({ prompt: open, texts, rng: mulberry32(1) });
    expect(parseJudgeRanking({ text: reply, numCandidates: 4 }).ranks).toEqual([1, 1, 3, 2]);
    expect(JSON.parse(reply).solutions[0].agreement_with_reference).toBe("match");
    const g = scoreGRR(open, [texts[0], texts[1], texts[0]], { judge }, mulberry32(1));
    expect(g.rollouts.map((r) => r.components.rRank)).toEqual([0, 0, 0]);
  });
});

describe("text auditor: the rubric's levels (docs/reward-spec.md §2)", () => {
  it("worked levels", () => {
    expect(level(open, digitTrace([3, 4], 7, "7"))).toBe(1);
    expect(level(open, digitTrace([2, 5], 7, "7"))).toBe(1); // misread digits: not visible in text
    expect(level(open, digitTrace([3, 4], 7, "8"))).toBe(0.5); // answer not following the last step
    expect(level(open, digitTrace([3, 4], 8, "8"))).toBe(0.5); // 3 + 4 = 8: arithmetic error
    expect(level(open, digitTrace([3, 4], 8, "7"))).toBe(0.2); // both: the slipped shortcut
    expect(level(open, trace(["3 + 4 = \\boxed{7}"], "7"))).toBe(0.8); // operands no step reads
    expect(level(open, trace(["first digit = \\boxed{3}", "second digit = \\boxed{4}"], "4"))).toBe(
      0.8,
    ); // read, never combined
    expect(level(open, "<think> Step 1: first digit = \\boxed{3}")).toBe(0); // cut off
    expect(level(open, "")).toBe(0);
    expect(level(mc, digitTrace([3, 4], 7, "B"))).toBe(1); // letter B is 7
    expect(level(mc, digitTrace([3, 4], 7, "C"))).toBe(0.5);
    // A number the question gives supports a step (`How many … plus 3?`).
    const plus = { ...open, question: "How many red shapes plus 3 ?" };
    expect(level(plus, trace(["red shapes = \\boxed{4}", "4 + 3 = \\boxed{7}"], "7"))).toBe(1);
    expect(level(open, trace(["first digit = \\boxed{9}", "max 9 4 = \\boxed{9}"], "9"))).toBe(0.8);
    expect(
      level(
        open,
        trace(
          ["first digit = \\boxed{9}", "second digit = \\boxed{4}", "max 9 4 = \\boxed{4}"],
          "4",
        ),
      ),
    ).toBe(0.5);
  });

  it("snapToLevel: nearest anchor, boundaries 0.1 / 0.35 / 0.65 / 0.9, clamped", () => {
    expect([1.3, 0.91, 0.89, 0.66, 0.64, 0.36, 0.34, 0.11, 0.09, -2].map(snapToLevel)).toEqual([
      1, 1, 0.8, 0.8, 0.5, 0.5, 0.2, 0.2, 0, 0,
    ]);
    expect(snapToLevel(Number.NaN)).toBe(0);
  });

  it("noise-free pointwise reply is the level, feedback first and score last", () => {
    const reply = createTextAuditor({ sigmaJ: 0, sigmaB: 0 }).pointwise({
      prompt: open,
      text: digitTrace([3, 4], 8, "7"),
      rng: mulberry32(1),
    });
    expect(Object.keys(JSON.parse(reply))).toEqual(["reasoning_feedback", "judge_score"]);
    expect(parseJudgeScore({ text: reply }).score).toBe(0.2);
  });

  it("bad settings throw naming the field; a name picks the judge", () => {
    expect(() => createTextAuditor({ sigmaB: -1 })).toThrow(/judge\.sigmaB/);
    expect(() => createTextAuditor({ sigmaJ: Number.NaN })).toThrow(/judge\.sigmaJ/);
    expect(() => createTextAuditor({ failureRate: 2 })).toThrow(/failureRate/);
    expect(() => createJudge({ name: "llm" as never })).toThrow(/judge\.name: unknown judge 'llm'/);
    // The oracle auditor reads the true digits: a misread trace scores below a right one.
    const oracle = createJudge({ name: "oracle-auditor", sigmaJ: 0, sigmaB: 0 });
    const score = (t: string) =>
      parseJudgeScore({ text: oracle.pointwise({ prompt: open, text: t, rng: mulberry32(1) }) })
        .score!;
    expect(score(digitTrace([2, 5], 7, "7"))).toBeLessThan(score(digitTrace([3, 4], 7, "7")));
  });
});

describe("text auditor: where the stability gap comes from (GRR §4.3.4)", () => {
  const rng = mulberry32(2024);
  const prompts = samplePrompts(60, rng);
  const groups = prompts.map((p) => Array.from({ length: 8 }, () => sampleRollout(p, rng)));
  const base = { prompts, groups, repeats: 4, seed: 11 };

  it("σ_b = 0: no calibration offset; the groupwise advantage is smaller than with one", () => {
    const [none, some] = stabilitySweep({
      ...base,
      settings: [
        { name: "text-auditor", sigmaJ: 0.1, sigmaB: 0 },
        { name: "text-auditor", sigmaJ: 0.1, sigmaB: 0.15 },
      ],
    });
    expect(none.pointwise).toBeGreaterThan(0); // σ_j alone still moves the scores
    expect(some.pointwise).toBeGreaterThan(none.pointwise);
    expect(some.reduction).toBeGreaterThan(none.reduction);
  });

  it("σ_j = 0: a call's offset moves its candidates together, so ties within a level never split", () => {
    // Every candidate at one level (1.0: misreads a text-only reader cannot see): groupwise
    // variance 0 whatever σ_b, while each pointwise call draws its own offset.
    const texts = [
      digitTrace([3, 4], 7, "7"),
      digitTrace([2, 5], 7, "7"),
      digitTrace([1, 6], 7, "7"),
    ];
    const [r] = stabilitySweep({
      prompts: Array(10).fill(open),
      groups: Array(10).fill(texts),
      repeats: 8,
      seed: 3,
      settings: [{ name: "text-auditor", sigmaJ: 0, sigmaB: 0.3 }],
    });
    expect(r.groupwise).toBe(0);
    expect(r.pointwise).toBeGreaterThan(0);
  });

  it("the default sweep: the text auditor at its defaults, σ_b 0 / 0.1 / 0.2 beside it, then σ_j 0", () => {
    const d = JUDGE_DEFAULTS["text-auditor"];
    expect([d.sigmaJ, d.sigmaB]).toEqual([0.25, 0]); // the calibration of docs/reward-spec.md §2
    expect(DEFAULT_SWEEP_SETTINGS.map((s) => [s.label, s.name, s.sigmaJ, s.sigmaB])).toEqual([
      ["lab default", "text-auditor", 0.25, 0],
      ["σ_b = 0.1", "text-auditor", 0.25, 0.1],
      ["σ_b = 0.2", "text-auditor", 0.25, 0.2],
      ["σ_j = 0", "text-auditor", 0, 0],
    ]);
  });

  it("σ_j = σ_b = 0: both variances exactly 0", () => {
    const [r] = stabilitySweep({
      ...base,
      settings: [{ name: "text-auditor", sigmaJ: 0, sigmaB: 0 }],
    });
    expect([r.pointwise, r.groupwise, r.reduction]).toEqual([0, 0, 0]);
  });
});
