/** Large and hostile inputs finish quickly (contracts: linear time; test/fixtures/README.md rule 10, 12). */
import { describe, expect, it } from "vitest";
import {
  answersEquivalent,
  extractOptionLetter,
  parseJudgeRanking,
  parseJudgeScore,
  parseTrace,
  structReward,
} from "../../src/rewards/index";

function timed<T>(f: () => T): { value: T; ms: number } {
  const t = performance.now();
  const value = f();
  return { value, ms: performance.now() - t };
}

describe("pathological inputs", () => {
  it("20,000 steps parse in linear time", () => {
    const text =
      "<think> " +
      Array.from({ length: 20000 }, (_, i) => `Step ${i + 1}: x = \\boxed{${i}}`).join(" ") +
      " </think> \\boxed{7}";
    const { value, ms } = timed(() => parseTrace({ text }));
    expect(value.stepCount).toBe(20000);
    expect(value.formatOk).toBe(true);
    expect(ms).toBeLessThan(2000);
  });
  it("100,000 unclosed boxes, braces and tags", () => {
    for (const unit of ["\\boxed{", "{", "</think>", "<answer>", "Step 1:", "Answer: "]) {
      const text = unit.repeat(100000);
      const { ms } = timed(() => {
        parseTrace({ text, fallbackLastNumber: true });
        extractOptionLetter({ text });
        structReward({ text, referenceSteps: ["1"], gold: "1" });
      });
      expect(ms).toBeLessThan(3000);
    }
  });
  it("judge replies: deep nesting, many spans, huge truncated reply", () => {
    const deep = "[".repeat(50000) + "]".repeat(50000);
    const spans = `${'{"a": 1} '.repeat(20000)}{"solutions": [{"index": 1, "rank": 1}]}`;
    const truncated =
      '{"solutions": [' +
      '{"index": 1, "rank": 1, "reason": "x"},'.repeat(20000) +
      '{"index": 2, "ra';
    for (const text of [deep, spans, truncated, "{".repeat(100000), '"'.repeat(100000)]) {
      const { value, ms } = timed(() => parseJudgeRanking({ text, numCandidates: 2 }));
      expect(value.ranks.length).toBe(2);
      expect(ms).toBeLessThan(3000);
      expect(timed(() => parseJudgeScore({ text })).ms).toBeLessThan(3000);
    }
    expect(parseJudgeRanking({ text: spans, numCandidates: 1 }).ranks).toEqual([1]);
    expect(parseJudgeRanking({ text: truncated, numCandidates: 2 })).toMatchObject({
      ranks: [1, null],
      duplicates: [1],
    });
  });
  it("answersEquivalent: long and nested answers return quickly and never throw", () => {
    const cases: [string, string][] = [
      [`${"(".repeat(5000)}1${")".repeat(5000)}`, "1"],
      [`${"1+".repeat(5000)}1`, "5001"],
      ["x".repeat(100000), "x"],
      [`${"\\frac{".repeat(300)}1${"}{2}".repeat(300)}`, "0"],
      ["9^{9^{9^{9^{9^{9}}}}}", "9^{9^{9^{9^{9^{9}}}}} "],
      ["1,000,".repeat(2000), "1"],
    ];
    for (const [a, b] of cases) {
      const { ms } = timed(() => answersEquivalent({ predicted: a, gold: b }));
      expect(ms).toBeLessThan(100);
    }
  });
  it("answersEquivalent extra semantics: roots, tiny values, sets, underflow", () => {
    expect(answersEquivalent({ predicted: "\\sqrt[3]{-8}", gold: "-2" })).toBe(true);
    expect(answersEquivalent({ predicted: "\\{1, 2\\}", gold: "\\{2, 1\\}" })).toBe(true);
    expect(answersEquivalent({ predicted: "(1, 2)", gold: "(2, 1)" })).toBe(false);
    expect(answersEquivalent({ predicted: "(0, 1]", gold: "(0, 1)" })).toBe(false);
    expect(answersEquivalent({ predicted: "10^{-400}", gold: "0" })).toBe(false);
    expect(answersEquivalent({ predicted: "2x+1", gold: "2y+1" })).toBe(false);
    expect(answersEquivalent({ predicted: "-1\\frac12", gold: "-1.5" })).toBe(true);
    expect(answersEquivalent({ predicted: "7m", gold: "7" })).toBe(false);
    expect(answersEquivalent({ predicted: "7 m", gold: "7" })).toBe(true);
    expect(answersEquivalent({ predicted: "no", gold: "on" })).toBe(false);
    expect(answersEquivalent({ predicted: null, gold: "7" })).toBe(false);
  });
});
