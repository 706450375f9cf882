// The lucky-guess rate, WR–CA and the distinct-options statistic of evalMetrics
// (docs/reward-spec.md §4.2) on hand-made traces with worked values: wrong
// reasoning with a right answer counted per correct answer (SCS Tab. 3) and per
// response (ACRE §1); distinct options among the continuations of one cut
// (SCS Fig. 2c), letters by content, unparsed answers together as one.
import { describe, expect, it } from "vitest";
import {
  DISTINCT_KS,
  evalMetrics,
  isLuckyGuess,
  reasoningMatchesReference,
} from "../../src/rl/eval-metrics";
import { parseTrace } from "../../src/rewards/index";
import type { TaskPrompt } from "../../src/tasks/types";

const options = { A: "9", B: "15", C: "16", D: "17" };
/** 5 + 4 = 9 is option A. */
const prompt = (id: string): TaskPrompt =>
  ({
    id,
    question: "What is the sum of the two digits?",
    options,
    answer: { letter: "A", content: "9" },
    referenceSteps: [
      { text: "first digit = \\boxed{5}", value: "5" },
      { text: "second digit = \\boxed{4}", value: "4" },
      { text: "5 + 4 = \\boxed{9}", value: "9" },
    ],
  }) as unknown as TaskPrompt;

const trace = (a: number, b: number, r: number, check: string, box: string) =>
  `<think> Step 1: first digit = \\boxed{${a}} Step 2: second digit = \\boxed{${b}} Step 3: ${a} + ${b} = \\boxed{${r}} </think> ${check} \\boxed{${box}}`;
const NONE = "9 Incorrect 15 Incorrect 16 Incorrect 17 Incorrect";
const AT_A = "9 Correct 15 Incorrect 16 Incorrect 17 Incorrect";

// p0 faithful and right; p1 misreads 4 as 2 (result 7), guesses A: right by luck; p2 misreads,
// guesses C: wrong; p3 misreads 4 as 3 (result 8), guesses A: lucky; p4 the right letter with no
// steps at all (no reasoning is not the reference's): lucky.
const prompts = ["p0", "p1", "p2", "p3", "p4"].map(prompt);
const texts = [
  trace(5, 4, 9, AT_A, "A"),
  trace(5, 2, 7, NONE, "A"),
  trace(5, 2, 7, NONE, "C"),
  trace(5, 3, 8, NONE, "A"),
  "<think> the digits add up </think> \\boxed{A}",
];

describe("evalMetrics: lucky-guess rate and WR–CA", () => {
  it("worked values: 4 right answers, 3 of them with wrong reasoning", () => {
    expect(texts.map((t, i) => isLuckyGuess(prompts[i], t))).toEqual([
      false,
      true,
      false,
      true,
      true,
    ]);
    const m = evalMetrics(prompts, texts);
    expect(m.acc).toBeCloseTo(4 / 5, 12);
    expect(m.luckyGuess).toBeCloseTo(3 / 4, 12);
    expect(m.wrca).toBeCloseTo(3 / 5, 12);
    // Nothing right: the rate is 0, not NaN.
    expect(evalMetrics([prompts[2]], [texts[2]]).luckyGuess).toBe(0);
  });

  it("reasoning matches the reference only with every step, in order, boxing the true value", () => {
    const ref = prompts[0].referenceSteps;
    expect(reasoningMatchesReference(parseTrace({ text: texts[0] }), ref)).toBe(true);
    // Equivalent numbers count (the verifier's ≡), a missing or renumbered step does not.
    expect(
      reasoningMatchesReference(
        parseTrace({
          text: "<think> Step 1: a = \\boxed{5.0} Step 2: b = \\boxed{4} Step 3: s = \\boxed{9} </think> \\boxed{A}",
        }),
        ref,
      ),
    ).toBe(true);
    expect(
      reasoningMatchesReference(
        parseTrace({
          text: "<think> Step 1: a = \\boxed{5} Step 3: b = \\boxed{4} Step 2: s = \\boxed{9} </think> \\boxed{A}",
        }),
        ref,
      ),
    ).toBe(false);
    expect(
      reasoningMatchesReference(
        parseTrace({
          text: "<think> Step 1: a = \\boxed{5} Step 2: s = \\boxed{9} </think> \\boxed{A}",
        }),
        ref,
      ),
    ).toBe(false);
  });
});

describe("evalMetrics: distinct options among continuations (SCS Fig. 2c)", () => {
  const box = (x: string) => `<think> Step 1: 5 + 4 = \\boxed{9} </think> \\boxed{${x}}`;
  it("worked values: 1, 3 (A ≡ 9 by content), 2 (the unparsed ones together), not measured", () => {
    const conts = [
      [box("A"), box("A"), box("A"), box("A")], // 1
      [box("A"), box("9"), box("B"), box("C")], // A and 9 are one option: 3
      [box("D"), "<think> Step 1: cut", "no answer at all", box("D")], // D and "none": 2
      null, // not measured (e.g. beyond the first 128 prompts)
    ];
    const ps = prompts.slice(0, 4);
    const m = evalMetrics(ps, texts.slice(0, 4), undefined, [
      { k: 0.4, continuations: conts },
      { k: 0.8, continuations: [conts[0], conts[0], null, null] },
    ]);
    expect(m.distinctK04).toBeCloseTo((1 + 3 + 2) / 3, 12);
    expect(m.distinctK08).toBe(1);
    expect("oscr" in m).toBe(false);
    expect(DISTINCT_KS.map((d) => d.k)).toEqual([0.4, 0.8]);
  });

  it("refuses a k it has no metric for, and a list of the wrong length", () => {
    const ps = prompts.slice(0, 2);
    expect(() =>
      evalMetrics(ps, texts.slice(0, 2), undefined, [{ k: 0.5, continuations: [null, null] }]),
    ).toThrow(/distinct k 0.5 is not one of DISTINCT_KS/);
    expect(() =>
      evalMetrics(ps, texts.slice(0, 2), undefined, [{ k: 0.4, continuations: [null] }]),
    ).toThrow(/distinct k 0.4 has 1 entries for 2 prompts/);
  });
});

describe("evalMetrics: distinct options per rollout class (SCS Fig. 2c by class, Tab. 10) and faint-digit reading", () => {
  const box = (x: string) => `<think> Step 1: 5 + 4 = \\boxed{9} </think> \\boxed{${x}}`;
  it("worked values: the faithful first answer's cut ends on one option, the guesses' on several", () => {
    // texts: p0 faithful, p1 lucky, p2 wrong, p3 lucky, p4 lucky (no steps).
    const conts = [
      [box("A"), box("9"), box("A"), box("A")], // faithful: A ≡ 9, 1
      [box("A"), box("B"), box("C"), box("A")], // lucky: 3
      [box("C"), box("D"), box("C"), box("C")], // wrong: 2
      [box("A"), box("A"), box("D"), box("B")], // lucky: 3
      null, // lucky, not measured
    ];
    const m = evalMetrics(prompts, texts, undefined, [{ k: 0.8, continuations: conts }]);
    expect(m.distinctK08).toBeCloseTo((1 + 3 + 2 + 3) / 4, 12);
    expect(m.distinctK08Faithful).toBe(1);
    expect(m.distinctK08Lucky).toBe(3);
    expect(m.distinctK08Wrong).toBe(2);
    // No k = 0.4 pass, no k = 0.4 class keys; no wrong first answer measured, no Wrong key.
    expect("distinctK04Faithful" in m).toBe(false);
    const onlyRight = evalMetrics(prompts.slice(0, 2), texts.slice(0, 2), undefined, [
      { k: 0.4, continuations: conts.slice(0, 2) },
    ]);
    expect(onlyRight.distinctK04Faithful).toBe(1);
    expect(onlyRight.distinctK04Lucky).toBe(3);
    expect("distinctK04Wrong" in onlyRight).toBe(false);
  });

  it("faint-digit reading accuracy: the reading step of the faint digit against its true value", () => {
    // p0 reads both right; p1 and p2 read the second digit (4) as 2; p3 as 3.
    const faint = (id: string, faintDigit: number) =>
      ({ ...prompt(id), meta: { faintDigit } }) as unknown as TaskPrompt;
    const ps = [faint("f0", 1), faint("f1", 1), faint("f2", 0), faint("f3", 1), prompt("plain")];
    const ts = [texts[0], texts[1], texts[2], texts[3], texts[0]];
    // Faint second digit: f0 right, f1 wrong, f3 wrong; faint first digit (5): f2 right. 2 of 4.
    expect(evalMetrics(ps, ts).faintReadAcc).toBeCloseTo(2 / 4, 12);
    expect("faintReadAcc" in evalMetrics(prompts, texts)).toBe(false);
  });
});
