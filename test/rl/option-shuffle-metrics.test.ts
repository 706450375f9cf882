// OSCR by trace form (docs/reward-spec.md §5.2) on hand-made traces in the
// lab's two forms: the index-bound share, OSCR among bound and free traces,
// and OSCR over the re-asks that moved the first answer's letter.
import { describe, expect, it } from "vitest";
import { isIndexBound } from "../../src/rewards/index";
import { evalMetrics } from "../../src/rl/eval-metrics";
import { optionShuffleMetrics } from "../../src/rl/option-shuffle-metrics";
import type { TaskPrompt } from "../../src/tasks/types";

const OPTS = { A: "9", B: "13", C: "10", D: "6" };
const STEPS =
  "<think> Step 1: first digit = \\boxed{6} Step 2: second digit = \\boxed{3} Step 3: 6 + 3 = \\boxed{9}";
const CHECK = "9 Correct 13 Incorrect 10 Incorrect 6 Incorrect";
/** The bound form (src/tasks/format.ts): the check and the letter inside the reasoning. */
const bound = (letter: string) => `${STEPS} ${CHECK} is ${letter} </think> \\boxed{${letter}}`;
/** The free form: the check after </think>. */
const free = (letter: string) => `${STEPS} </think> ${CHECK} \\boxed{${letter}}`;
/** A re-ask's text: the first trace up to </think> forced, then the answer box. */
const reaskOf = (first: string, letter: string) =>
  `${first.slice(0, first.indexOf("</think>") + "</think>".length)} \\boxed{${letter}}`;

// Shuffles: S1 moves A's content (9 → B), keeps C; S2 keeps A; S3 moves A's 9 to D.
const S1 = { A: "13", B: "9", C: "10", D: "6" };
const S2 = { A: "9", B: "10", C: "13", D: "6" };
const S3 = { A: "6", B: "13", C: "10", D: "9" };

// 1 bound, A moved, letter copied: changed.   2 bound, A in place, copied: same.
// 3 free, A moved, content found at B: same.  4 free, A moved, found at D: same.
// 5 bound, not re-asked: changed.            6 free, answer C (10), C in place: same.
const PAIRS = [
  {
    text: bound("A"),
    options: OPTS,
    gold: "9",
    reask: { text: reaskOf(bound("A"), "A"), options: S1 },
  },
  {
    text: bound("A"),
    options: OPTS,
    gold: "9",
    reask: { text: reaskOf(bound("A"), "A"), options: S2 },
  },
  {
    text: free("A"),
    options: OPTS,
    gold: "9",
    reask: { text: reaskOf(free("A"), "B"), options: S1 },
  },
  {
    text: free("A"),
    options: OPTS,
    gold: "9",
    reask: { text: reaskOf(free("A"), "D"), options: S3 },
  },
  { text: bound("A"), options: OPTS, gold: "9", reask: null },
  {
    text: free("C"),
    options: OPTS,
    gold: "9",
    reask: { text: reaskOf(free("C"), "C"), options: S1 },
  },
];

describe("isIndexBound", () => {
  it("is true when the reasoning names an option letter, false otherwise", () => {
    expect(isIndexBound({ text: bound("B") })).toBe(true);
    expect(isIndexBound({ text: free("B") })).toBe(false);
    // No </think>: nothing a re-ask keeps.
    expect(isIndexBound({ text: `${STEPS} ${CHECK} is A` })).toBe(false);
    // A letter outside the options, or a capital inside a word, is no binding.
    expect(isIndexBound({ text: `${STEPS} is E </think> \\boxed{E}` })).toBe(false);
    expect(isIndexBound({ text: `${STEPS} Alpha </think> \\boxed{A}` })).toBe(false);
    expect(isIndexBound({ text: 42 as unknown as string })).toBe(false);
  });
});

describe("optionShuffleMetrics", () => {
  it("splits OSCR by trace form and over the moved letters (hand-counted)", () => {
    const m = optionShuffleMetrics(PAIRS);
    // Same: pairs 2, 3, 4, 6 of 6.
    expect(m.oscr).toBeCloseTo(4 / 6, 12);
    // Bound: pairs 1, 2, 5.
    expect(m.boundRate).toBeCloseTo(3 / 6, 12);
    expect(m.oscrBound).toBeCloseTo(1 / 3, 12);
    expect(m.oscrFree).toBeCloseTo(3 / 3, 12);
    // Moved: pairs 1, 3, 4 (2 keeps A, 6 keeps C, 5 was not re-asked); same: 3, 4.
    expect(m.oscrMoved).toBeCloseTo(2 / 3, 12);
    // Right first answers (content 9): the bound 1, 2, 5; the free 3, 4 but not 6 (10).
    expect(m.accBound).toBeCloseTo(3 / 3, 12);
    expect(m.accFree).toBeCloseTo(2 / 3, 12);
  });

  it("leaves out a form that no trace has, and gives nothing for no pairs", () => {
    const m = optionShuffleMetrics(PAIRS.slice(2, 4));
    expect(m.boundRate).toBe(0);
    expect("oscrBound" in m).toBe(false);
    expect(m.oscrFree).toBe(1);
    expect(optionShuffleMetrics([])).toEqual({});
  });

  it("reaches the eval rows through evalMetrics, OSCR unchanged", () => {
    const prompts = PAIRS.map(
      (_, i) =>
        ({
          id: `p${i}`,
          question: "q",
          options: OPTS,
          answer: { letter: "A", content: "9" },
          referenceSteps: [],
        }) as unknown as TaskPrompt,
    );
    const m = evalMetrics(
      prompts,
      PAIRS.map((p) => p.text),
      {
        options: PAIRS.map((p) => p.reask?.options ?? null),
        texts: PAIRS.map((p) => p.reask?.text ?? null),
      },
    );
    expect(m.oscr).toBeCloseTo(4 / 6, 12);
    expect(m.boundRate).toBeCloseTo(0.5, 12);
    expect(m.oscrMoved).toBeCloseTo(2 / 3, 12);
    // Without a second pass: none of them.
    expect(
      "boundRate" in
        evalMetrics(
          prompts,
          PAIRS.map((p) => p.text),
        ),
    ).toBe(false);
  });
});
