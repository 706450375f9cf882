/** Large and hostile inputs finish quickly (contracts: linear time; test/fixtures/README.md rule 10, 12). */
import { describe, expect, it } from "vitest";
import {
  answersEquivalent,
  extractOptionLetter,
  makeHardNegative,
  mulberry32,
  parseJudgeRanking,
  parseJudgeScore,
  parseTrace,
  structReward,
} from "../../src/rewards/index";
import { MAX_ANSWER_CHARS } from "../../src/rewards/equivalence";
import { MAX_JUDGE_CANDIDATES, MAX_JUDGE_REPLY_CHARS } from "../../src/rewards/judge-json";
import { contentAnswer } from "../../src/rewards/metrics";
import { MAX_TRACE_CHARS } from "../../src/rewards/trace";
import { digitSumPrompt, trace } from "./fixtures";

/**
 * Runs `f` and times it; a run over 50 ms is repeated (up to 3 runs) and the
 * fastest counts, so a busy machine's pause is not read as a slow parser
 * (a quadratic pattern is slow every time).
 */
function timed<T>(f: () => T): { value: T; ms: number } {
  let t = performance.now();
  const value = f();
  let ms = performance.now() - t;
  for (let k = 1; k < 3 && ms > 50; k++) {
    t = performance.now();
    f();
    ms = Math.min(ms, performance.now() - t);
  }
  return { value, ms };
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

  // The inputs that took seconds to minutes with backtracking regexes
  // (56 s, 11 s, 21 s, 18 s, 3.2 s at 100 KB / 32,000 boxes); a generous
  // budget per call, since a linear pass over 100 KB takes milliseconds.
  const KB100 = 100_000;
  const BUDGET_MS = 1000;

  it("parseJudgeScore: a 100 KB run of spaces after judge_score", () => {
    for (const text of [
      `"judge_score":${" ".repeat(KB100)}x`,
      `judge_score: "${" ".repeat(KB100)}`,
      `${'"judge_score" : '.repeat(KB100 / 16)}x`,
    ]) {
      const { value, ms } = timed(() => parseJudgeScore({ text }));
      expect(value).toMatchObject({ ok: false, score: null });
      expect(ms).toBeLessThan(BUDGET_MS);
    }
    expect(parseJudgeScore({ text: `"judge_score": ${" ".repeat(KB100)}0.7` })).toMatchObject({
      ok: true,
      score: 0.7,
    });
  });

  it("answersEquivalent: long digit runs and punctuation runs, under and over the cap", () => {
    const n = MAX_ANSWER_CHARS - 1;
    const cases: [string, string][] = [
      [`${"1".repeat(n)}x`, `${"1".repeat(n)}y`], // PLAIN_NUMBER
      [`a${"!".repeat(n - 2)}x`, "y"], // lexical trim
      [`a${"?".repeat(n - 2)}`, "a"],
      [`${"1".repeat(KB100)}x`, `${"1".repeat(KB100)}y`],
      [`a${"!".repeat(KB100)}x`, "y"],
    ];
    for (const [a, b] of cases) {
      const { value, ms } = timed(() => answersEquivalent({ predicted: a, gold: b }));
      expect(ms).toBeLessThan(100);
      expect(value).toBe(a === `a${"?".repeat(n - 2)}`);
    }
    // Over the cap a side is equivalent only to the identical string.
    const long = "7".repeat(MAX_ANSWER_CHARS + 1);
    expect(answersEquivalent({ predicted: long, gold: long })).toBe(true);
    expect(answersEquivalent({ predicted: long, gold: `${long} ` })).toBe(false);
  });

  it("answersEquivalent: large sets in another order stay within the item budget", () => {
    const items = Array.from({ length: 2000 }, (_, i) => String(i + 10));
    const a = `\\{${items.join(",")}\\}`;
    const b = `\\{${[...items].reverse().join(",")}\\}`;
    const { value, ms } = timed(() => answersEquivalent({ predicted: a, gold: b }));
    expect(value).toBe(true);
    expect(ms).toBeLessThan(100);
  });

  it("contentAnswer: a letter followed by 100 KB of spaces", () => {
    const options = { A: "1", B: "2" };
    for (const answer of [`A${" ".repeat(KB100)}x`, `(A)${" ".repeat(KB100)}.x`]) {
      const { value, ms } = timed(() => contentAnswer(answer, options));
      expect(value).toBe(answer);
      expect(ms).toBeLessThan(BUDGET_MS);
    }
    expect(contentAnswer(` (b) ${" ".repeat(KB100)}`, options)).toBe("2");
    expect(contentAnswer("\\text{A} .", options)).toBe("1");
  });

  it("makeHardNegative: a step of 32,000 boxes, and 20,000 steps without a rewrite", () => {
    const prompt = digitSumPrompt({ digits: [3, 4] });
    const boxes = trace([`${"\\boxed{1} ".repeat(32000)}\\boxed{7}`], "B");
    const a = timed(() => makeHardNegative({ prompt, text: boxes, rng: mulberry32(1) }));
    expect(a.value).toMatchObject({ kind: "wrong-result", step: 1 });
    expect(a.ms).toBeLessThan(BUDGET_MS);
    const steps = trace(
      [...Array.from({ length: 20000 }, () => "\\boxed{x}"), "3 + 4 = \\boxed{7}"],
      "B",
    );
    const b = timed(() => makeHardNegative({ prompt, text: steps, rng: mulberry32(1) }));
    expect(b.value).toMatchObject({ kind: "wrong-operation", step: 20001 });
    expect(b.ms).toBeLessThan(3 * BUDGET_MS);
  });

  it("parseJudgeRanking refuses a huge numCandidates with a message naming it", () => {
    for (const n of [1e9, MAX_JUDGE_CANDIDATES + 1, -1, 2.5, Number.NaN]) {
      const { ms } = timed(() =>
        expect(() => parseJudgeRanking({ text: "[]", numCandidates: n })).toThrow(
          /numCandidates must be an integer in \[0, 1024\]/,
        ),
      );
      expect(ms).toBeLessThan(BUDGET_MS);
    }
    expect(
      parseJudgeRanking({ text: "[]", numCandidates: MAX_JUDGE_CANDIDATES }).ranks,
    ).toHaveLength(MAX_JUDGE_CANDIDATES);
  });

  it("judge replies and traces over their caps are read up to the cap, which the result names", () => {
    const entry = '{"index": 1, "rank": 1},';
    const reply = `{"solutions": [${entry.repeat(MAX_JUDGE_REPLY_CHARS / entry.length + 10)}{"index": 2, "rank": 2}]}`;
    const r = timed(() => parseJudgeRanking({ text: reply, numCandidates: 2 }));
    expect(r.value).toMatchObject({ ranks: [1, null], cappedAt: MAX_JUDGE_REPLY_CHARS });
    expect(r.ms).toBeLessThan(3 * BUDGET_MS);
    expect(
      parseJudgeRanking({ text: '[{"index": 1, "rank": 1}]', numCandidates: 1 }).cappedAt,
    ).toBe(null);
    const score = `${" ".repeat(MAX_JUDGE_REPLY_CHARS)}{"judge_score": 0.5}`;
    expect(parseJudgeScore({ text: score })).toMatchObject({
      ok: false,
      cappedAt: MAX_JUDGE_REPLY_CHARS,
    });
    const long = `<think> Step 1: \\boxed{7} </think> \\boxed{7}${" ".repeat(MAX_TRACE_CHARS)}`;
    const t = timed(() => parseTrace({ text: long }));
    expect(t.value).toMatchObject({
      finalAnswer: null,
      formatOk: false,
      answerTruncated: true,
      cappedAt: MAX_TRACE_CHARS,
    });
    expect(t.ms).toBeLessThan(BUDGET_MS);
    expect(parseTrace({ text: "<think> Step 1: 7 </think> \\boxed{7}" }).cappedAt).toBeNull();
  });
});
