/**
 * Adversarial strings through every exported parser (fast-check): long runs
 * of the tokens the parsers' patterns look for (spaces, digits, punctuation,
 * boxes, tags, cue words, JSON pieces), with a prefix and a suffix that make a
 * match fail late. A backtracking pattern takes seconds on such text; every
 * call must finish within a generous budget and never throw.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  acreConsistency,
  answersEquivalent,
  auditTrace,
  extractBoxed,
  extractOptionLetter,
  judgeConsistency,
  makeHardNegative,
  mulberry32,
  normalizeAnswer,
  parseJudgeRanking,
  parseJudgeScore,
  parseTrace,
  scsConsistency,
  structReward,
  truncateResponse,
  verifyRollout,
} from "../../src/rewards/index";
import { MAX_ANSWER_CHARS } from "../../src/rewards/equivalence";
import { readIntegerLike } from "../../src/rewards/judge-json";
import { parseMath } from "../../src/rewards/math-eval";
import { contentAnswer } from "../../src/rewards/metrics";
import { releasedAnswer } from "../../src/rewards/scs";
import { digitSumPrompt } from "./fixtures";

const SEED = 20261214;
const prompt = digitSumPrompt({ digits: [3, 4] });
const OPTIONS = { A: "6", B: "7", C: "8", D: "9" };

/** What a match starts on: cue words, tags, openers (the prefix of a case). */
const CUES = [
  "",
  "a",
  "A",
  "(A)",
  "1",
  "-1",
  "\\boxed{",
  "\\boxed{1}",
  "\\text{",
  "judge_score",
  '"judge_score":',
  'judge_score: "',
  "Answer:",
  "answer",
  "final answer is",
  "option",
  "Step 1:",
  "<think>",
  "</think>",
  "<answer>",
  "{",
  "[",
  '{"solutions": [',
  "^",
  "\\{",
];
/** What a failing match runs over (repeated to the case's length). */
const RUNS_OF = [
  " ",
  "\t",
  "\n",
  "1",
  "!",
  ".",
  ",",
  ";",
  "?",
  ")",
  "(",
  "{",
  "}",
  "\\boxed{1} ",
  "Step 1: ",
  "1,000,",
  "x",
  '"',
];
/** What makes the match fail (or succeed) at the very end. */
const ENDS = ["", "x", "1", ".", "}", ")", "\\boxed{2}", "</think>", '"', "B"];
/** Every token above, for runs of several tokens. */
const TOKENS = [...new Set([...CUES, ...RUNS_OF, ...ENDS].filter(Boolean))];

/**
 * A cue, a run of one piece (or, in one case of four, of 2–4 random tokens)
 * `length` characters long, and an end: text on which a pattern with two
 * quantifiers over the same characters backtracks quadratically.
 */
function adversarial(length: number): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...RUNS_OF) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.constantFrom(...TOKENS), { minLength: 2, maxLength: 4 })
        .map((t) => t.join("")),
    },
  );
  return fc
    .tuple(fc.constantFrom(...CUES), unit, fc.constantFrom(...ENDS))
    .map(([cue, u, end]) => cue + u.repeat(Math.ceil(length / u.length)) + end);
}

/**
 * Runs `f`, fails when it takes longer than `budgetMs`, and returns its value.
 * A run over budget is repeated (up to 3 runs) and the fastest counts, so a
 * busy machine's pause is not read as a slow parser (a quadratic pattern is
 * slow every time).
 */
function within<T>(label: string, budgetMs: number, f: () => T): T {
  let t = performance.now();
  const value = f();
  let ms = performance.now() - t;
  for (let k = 1; k < 3 && ms >= budgetMs; k++) {
    t = performance.now();
    f();
    ms = Math.min(ms, performance.now() - t);
  }
  expect(ms, `${label} took ${ms.toFixed(0)} ms`).toBeLessThan(budgetMs);
  return value;
}

// Generous: a linear pass over 50,000 characters takes a few milliseconds; a
// backtracking one takes seconds.
const TEXT_CHARS = 50_000;
const REPLY_CHARS = 30_000;
const BUDGET_MS = 1000;

describe("adversarial strings, every exported parser", () => {
  it("trace parsers and rewards on 50,000-character texts", () => {
    fc.assert(
      fc.property(adversarial(TEXT_CHARS), (text) => {
        within("extractBoxed", BUDGET_MS, () => extractBoxed({ text }));
        within("parseTrace", BUDGET_MS, () => parseTrace({ text }));
        within("parseTrace fallback", BUDGET_MS, () =>
          parseTrace({ text, fallbackLastNumber: true }),
        );
        within("extractOptionLetter", BUDGET_MS, () => extractOptionLetter({ text }));
        within("judgeConsistency", BUDGET_MS, () => judgeConsistency({ text, options: OPTIONS }));
        within("verifyRollout", BUDGET_MS, () => verifyRollout({ text, prompt }));
        within("structReward", BUDGET_MS, () =>
          structReward({ text, referenceSteps: ["3", "4", "7"], gold: "B", options: OPTIONS }),
        );
        within("auditTrace", BUDGET_MS, () => auditTrace({ prompt, text }));
        within("makeHardNegative", BUDGET_MS, () =>
          makeHardNegative({ prompt, text, rng: mulberry32(1) }),
        );
        within("truncateResponse", BUDGET_MS, () => truncateResponse({ text, k: 0.5 }));
        within("releasedAnswer", BUDGET_MS, () => releasedAnswer(text));
      }),
      { numRuns: 100, seed: SEED },
    );
  });

  it("judge reply parsers on 30,000-character replies", () => {
    fc.assert(
      fc.property(adversarial(REPLY_CHARS), fc.integer({ min: 0, max: 64 }), (text, n) => {
        const r = within("parseJudgeRanking", BUDGET_MS, () =>
          parseJudgeRanking({ text, numCandidates: n }),
        );
        expect(r.ranks).toHaveLength(n);
        const s = within("parseJudgeScore", BUDGET_MS, () => parseJudgeScore({ text }));
        expect(s.ok ? s.score! >= 0 && s.score! <= 1 : s.score === null).toBe(true);
        within("readIntegerLike", BUDGET_MS, () => readIntegerLike(text));
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  it("answer parsers on answers just under MAX_ANSWER_CHARS (each call well under 100 ms)", () => {
    const answer = adversarial(MAX_ANSWER_CHARS - 200);
    fc.assert(
      fc.property(answer, answer, (a, b) => {
        // The contract's own bound is "well under 100 ms"; 150 leaves room for a busy machine.
        within("answersEquivalent", 150, () => answersEquivalent({ predicted: a, gold: b }));
        within("answersEquivalent self", 150, () => answersEquivalent({ predicted: a, gold: a }));
        within("answersEquivalent options", 150, () =>
          answersEquivalent({ predicted: a, gold: "B", options: OPTIONS }),
        );
        within("normalizeAnswer", 150, () => normalizeAnswer(a));
        within("parseMath", 150, () => parseMath(a));
        within("contentAnswer", 150, () => contentAnswer(a, OPTIONS));
        within("acreConsistency", 150, () =>
          acreConsistency({ first: a, second: b, gold: "B", options: OPTIONS }),
        );
        within("scsConsistency", 150, () => scsConsistency({ answers: [a, b, a] }));
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  it("contentAnswer and answersEquivalent on 100,000-character answers", () => {
    fc.assert(
      fc.property(adversarial(100_000), (a) => {
        within("contentAnswer", BUDGET_MS, () => contentAnswer(a, OPTIONS));
        within("answersEquivalent", BUDGET_MS, () =>
          answersEquivalent({ predicted: a, gold: "7" }),
        );
      }),
      { numRuns: 100, seed: SEED },
    );
  });
});
