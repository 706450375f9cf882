import { describe, expect, it } from "vitest";
import { rankAuc, stepAccuracy, stepMatchedAuc } from "../../src/prm/metrics";
import {
  corruptTrace,
  heldOutExamples,
  prefixText,
  prmQuery,
  referenceTrace,
  stepLabel,
  trueTraceQuery,
} from "../../src/prm/data";
import { createStepScorer, prefixScore, rolloutPrefixes } from "../../src/prm/scorer";
import { Rng } from "../../src/tasks/rng";
import { encode, MAX_PROMPT_TOKENS, PAD_ID } from "../../src/tasks/tokenizer";
import type { TaskPrompt } from "../../src/tasks/types";

function scoreSteps(scorer: ReturnType<typeof createStepScorer>, texts: string[]) {
  return scorer.scoreSteps({ prompts: [SUM], images: [SUM.image], texts: [texts] });
}

function prompt(steps: [string, string][]): TaskPrompt {
  return {
    id: "t/0",
    family: "digits",
    image: new Float32Array(28 * 56),
    height: 28,
    width: 56,
    channels: 1,
    question: "What is the sum of the two digits?",
    options: null,
    answer: { letter: null, content: steps[steps.length - 1][1] },
    referenceSteps: steps.map(([text, value]) => ({ text, value })),
    sftTarget: "",
  };
}

const SUM = prompt([
  ["first digit = \\boxed{3}", "3"],
  ["second digit = \\boxed{4}", "4"],
  ["3 + 4 = \\boxed{7}", "7"],
]);

describe("rankAuc (Mann–Whitney)", () => {
  it("worked value with a tie: 3 positives, 2 negatives", () => {
    // pairs (pos, neg): 0.9>0.3 0.9>0.5 | 0.5=0.5 (½) 0.5>0.3 | 0.2<0.3 0.2<0.5 → 3.5 / 6
    expect(rankAuc([0.9, 0.5, 0.2, 0.3, 0.5], [1, 1, 1, 0, 0])).toBeCloseTo(3.5 / 6, 12);
  });
  it("perfect and reversed rankings", () => {
    expect(rankAuc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])).toBe(1);
    expect(rankAuc([0.1, 0.2, 0.8, 0.9], [1, 1, 0, 0])).toBe(0);
  });
  it("names bad input", () => {
    expect(() => rankAuc([0.1, 0.2], [1, 1])).toThrow(/both classes/);
    expect(() => rankAuc([0.1, Number.NaN], [1, 0])).toThrow(/score 1/);
    expect(() => rankAuc([0.1, 0.2], [1, 2])).toThrow(/label 1/);
    expect(() => rankAuc([0.1], [1, 0])).toThrow(/1 scores but 2 labels/);
  });
  it("step-matched AUC: pairs within a step only; a step-number-only score gets ½", () => {
    // Step 0: positives 0.9, 0.4 vs negative 0.5 -> U = 1 of 2 pairs.
    // Step 1: positive 0.2 vs negatives 0.2 (tie), 0.1 -> U = 1.5 of 2.
    // Step 2: only positives -> no pairs. (1 + 1.5) / 4 = 0.625.
    const scores = [0.9, 0.4, 0.5, 0.2, 0.2, 0.1, 0.7];
    const labels = [1, 1, 0, 1, 0, 0, 1];
    const steps = [0, 0, 0, 1, 1, 1, 2];
    expect(stepMatchedAuc(scores, labels, steps)).toBeCloseTo(2.5 / 4, 12);
    // A score that is a function of the step alone: pooled AUC far from ½, matched exactly ½.
    const byStep = [0.8, 0.8, 0.8, 0.2, 0.2, 0.2, 0.5];
    expect(rankAuc(byStep, [1, 1, 1, 0, 0, 0, 1])).toBeGreaterThan(0.7);
    expect(stepMatchedAuc(byStep, labels, steps)).toBe(0.5);
    expect(() => stepMatchedAuc([0.1, 0.2], [1, 0], [0, 1])).toThrow(/no stratum/);
    expect(() => stepMatchedAuc([0.1, 0.2], [1, 0], [0])).toThrow(/2 scores but 1 strata/);
    expect(() => stepMatchedAuc([0.1, Number.NaN], [1, 0], [0, 0])).toThrow(/score 1/);
  });
  it("accuracy at ½", () => {
    expect(stepAccuracy([0.9, 0.5, 0.2, 0.3], [1, 1, 0, 1])).toBe(0.5);
  });
});

describe("PRM traces and labels", () => {
  it("labels every step from the first error on as incorrect", () => {
    const t = { steps: ["a", "b", "c"], firstWrong: 1, kind: "misread" as const };
    expect([0, 1, 2].map((k) => stepLabel(t, k))).toEqual([1, 0, 0]);
    expect([0, 1, 2].map((k) => stepLabel(referenceTrace(SUM), k))).toEqual([1, 1, 1]);
  });
  it("corruptions: a misread digit carries into the sum; a slip keeps the expression", () => {
    const seen = new Map<string, string[]>();
    for (let s = 0; s < 200; s++) {
      const t = corruptTrace(SUM, new Rng(s))!;
      seen.set(t.kind!, t.steps);
      const ref = referenceTrace(SUM).steps;
      expect(t.steps.slice(0, t.firstWrong!)).toEqual(ref.slice(0, t.firstWrong!));
      expect(t.steps[t.firstWrong!]).not.toBe(ref[t.firstWrong!]);
      if (t.kind === "misread") {
        const [a, b] = t.steps.slice(0, 2).map((x) => Number(/\{(\d+)\}/.exec(x)![1]));
        expect(t.steps[2]).toBe(`${a} + ${b} = \\boxed{${a + b}}`);
      }
      if (t.kind === "wrong-result") expect(t.steps[2]).toMatch(/^3 \+ 4 = \\boxed\{(5|6|8|9)\}$/);
      if (t.kind === "operation-swap") expect(t.steps[2]).toBe("3 - 4 = \\boxed{-1}");
    }
    expect([...seen.keys()].sort()).toEqual(["misread", "operation-swap", "wrong-result"]);
  });
  it("a query holds the prompt and the prefix, which ends at endCol", () => {
    const shape = { promptLen: MAX_PROMPT_TOKENS, maxNew: 24 };
    const prefix = prefixText(referenceTrace(SUM).steps, 1);
    expect(prefix).toBe(
      "<think> Step 1: first digit = \\boxed{3} Step 2: second digit = \\boxed{4}",
    );
    const q = prmQuery(SUM, prefix, shape)!;
    const resp = encode(prefix);
    expect(q.endCol).toBe(MAX_PROMPT_TOKENS + resp.length);
    expect(Array.from(q.tokens.subarray(MAX_PROMPT_TOKENS, q.endCol))).toEqual(resp);
    expect(q.tokens[q.endCol]).toBe(PAD_ID);
    expect(q.tokens[MAX_PROMPT_TOKENS - 1]).not.toBe(PAD_ID);
    // Too long for the response columns: unscorable.
    expect(
      prmQuery(SUM, prefixText(referenceTrace(SUM).steps, 2), { ...shape, maxNew: 10 }),
    ).toBeNull();
    expect(prmQuery(SUM, "<think> banana", shape)).toBeNull();
  });
  it("the training query is the whole true trace; held-out steps cover both classes", () => {
    const shape = { promptLen: MAX_PROMPT_TOKENS, maxNew: 40 };
    const q = trueTraceQuery(SUM, shape);
    expect(Array.from(q.tokens.subarray(MAX_PROMPT_TOKENS, q.endCol))).toEqual(
      encode(prefixText(referenceTrace(SUM).steps, 2)),
    );
    expect(() => trueTraceQuery(SUM, { ...shape, maxNew: 10 })).toThrow(/does not fit 10/);
    const held = heldOutExamples([SUM], shape, new Rng(1));
    expect(held.filter((e) => e.label === 1).map((e) => e.step)).toEqual([0, 1, 2]);
    expect(held.filter((e) => e.label === 0).length).toBeGreaterThan(0);
    for (const e of held) expect(e.query.tokens[e.query.endCol]).toBe(PAD_ID);
  });
  it("step scores: the least likely token of steps 1..k; one row per trace; unreadable steps 0", async () => {
    const shape = { promptLen: MAX_PROMPT_TOKENS, maxNew: 40 };
    const eight = encode("8")[0];
    const calls: number[] = [];
    // A fake PRM: every token has log-probability −0.1, the token `8` −3.
    const scorer = createStepScorer({
      shape,
      imageSize: SUM.image.length,
      forward: async ({ n, tokens }) => {
        calls.push(n);
        return Float32Array.from(tokens, (t) => (t === eight ? -3 : -0.1));
      },
    });
    const good =
      "<think> Step 1: first digit = \\boxed{3} Step 2: second digit = \\boxed{4} Step 3: 3 + 4 = \\boxed{7} </think> \\boxed{7}";
    const slip = good.replace("{7} </think>", "{8} </think>");
    const [[g, b, again, none, odd]] = await scoreSteps(scorer, [
      good,
      slip,
      good,
      "no steps",
      "<think> Step 1: first digit = \\boxed{3} Step 2: banana </think>",
    ]);
    expect(g.map((x) => x.toFixed(6))).toEqual(Array(3).fill(Math.exp(-0.1).toFixed(6)));
    expect(b.map((x) => x.toFixed(6))).toEqual([
      Math.exp(-0.1).toFixed(6),
      Math.exp(-0.1).toFixed(6),
      Math.exp(-3).toFixed(6),
    ]);
    expect(again).toEqual(g);
    expect(none).toEqual([]);
    expect(odd).toEqual([expect.closeTo(Math.exp(-0.1), 6), 0]);
    // good, slip and the readable prefix of odd: three distinct rows in one call.
    expect(calls).toEqual([3]);
    // A forward that returns NaN is a named error, not a NaN reward.
    const broken = createStepScorer({
      shape,
      imageSize: SUM.image.length,
      forward: async ({ tokens }) => Float32Array.from(tokens, () => Number.NaN),
    });
    await expect(scoreSteps(broken, [good])).rejects.toThrow("PRM: the forward gave NaN at row 0");
    expect(prefixScore(Float32Array.of(0, -1, -0.5, -2), 0, 1, 3)).toBeCloseTo(Math.exp(-1), 12);
    expect(prefixScore(Float32Array.of(0, -1), 0, 1, 1)).toBe(1);
  });
  it("rollout prefixes keep the step numbers as written", () => {
    expect(
      rolloutPrefixes(
        "<think> Step 1: first digit = \\boxed{3} Step 3: 3 + 4 = \\boxed{7} </think> \\boxed{7}",
      ),
    ).toEqual([
      "<think> Step 1: first digit = \\boxed{3}",
      "<think> Step 1: first digit = \\boxed{3} Step 3: 3 + 4 = \\boxed{7}",
    ]);
    expect(rolloutPrefixes("no steps")).toEqual([]);
  });
});
