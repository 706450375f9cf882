import { describe, expect, it } from "vitest";
import { rankAuc, stepAccuracy } from "../../src/rl/prm-metrics";
import {
  CORRECT_ID,
  INCORRECT_ID,
  corruptTrace,
  heldOutExamples,
  prefixText,
  prmQuery,
  referenceTrace,
  stepLabel,
  trainingExample,
} from "../../src/rl/prm-data";
import { rolloutPrefixes } from "../../src/rl/prm-scorer";
import { Rng } from "../../src/tasks/rng";
import { encode, MAX_PROMPT_TOKENS, PAD_ID } from "../../src/tasks/tokenizer";
import type { TaskPrompt } from "../../src/tasks/types";

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
  it("a query holds the prompt, the prefix and the verdict at verdictCol", () => {
    const shape = { promptLen: MAX_PROMPT_TOKENS, maxNew: 24 };
    const prefix = prefixText(referenceTrace(SUM).steps, 1);
    expect(prefix).toBe(
      "<think> Step 1: first digit = \\boxed{3} Step 2: second digit = \\boxed{4}",
    );
    const q = prmQuery(SUM, prefix, INCORRECT_ID, shape)!;
    const resp = encode(prefix);
    expect(q.verdictCol).toBe(MAX_PROMPT_TOKENS + resp.length);
    expect(Array.from(q.tokens.subarray(MAX_PROMPT_TOKENS, q.verdictCol))).toEqual(resp);
    expect(q.tokens[q.verdictCol]).toBe(INCORRECT_ID);
    expect(q.tokens[q.verdictCol + 1]).toBe(PAD_ID);
    // Too long for the response columns: unscorable.
    expect(
      prmQuery(SUM, prefixText(referenceTrace(SUM).steps, 2), CORRECT_ID, { ...shape, maxNew: 10 }),
    ).toBeNull();
    expect(prmQuery(SUM, "<think> banana", CORRECT_ID, shape)).toBeNull();
  });
  it("training examples are balanced and held-out steps cover both classes", () => {
    const shape = { promptLen: MAX_PROMPT_TOKENS, maxNew: 40 };
    const rng = new Rng(7);
    const labels = Array.from({ length: 400 }, () => trainingExample(SUM, shape, rng).label);
    const pos = labels.filter((l) => l === 1).length / labels.length;
    expect(pos).toBeGreaterThan(0.42);
    expect(pos).toBeLessThan(0.58);
    const held = heldOutExamples([SUM], shape, new Rng(1));
    expect(held.filter((e) => e.label === 1).length).toBe(3);
    expect(held.filter((e) => e.label === 0).length).toBeGreaterThan(0);
    for (const e of held) expect(e.query.tokens[e.query.verdictCol]).toBe(CORRECT_ID);
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
