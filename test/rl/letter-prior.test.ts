// The top-letter share (src/rl/letter-prior.ts) on hand-written answers, and
// in evalMetrics: present on multiple choice, absent on open-ended prompts.
import { describe, expect, it } from "vitest";
import { letterShare, topLetterShare } from "../../src/rl/letter-prior";
import { evalMetrics } from "../../src/rl/eval-metrics";
import { CHOICE, CHOICE_TRACES, OPEN, OPEN_TRACES } from "./class-traces";

const OPTIONS = { A: "15", B: "9", C: "16", D: "17" };
const boxed = (l: string) => `<think> x </think> \\boxed{${l}}`;

describe("topLetterShare", () => {
  it("is the most chosen letter's share of the answers that name one", () => {
    const prompts = [OPTIONS, OPTIONS, OPTIONS, OPTIONS, OPTIONS].map((options) => ({ options }));
    // A, A, B, no letter, A: 3 of 4 named answers are A.
    const texts = [boxed("A"), boxed("A"), boxed("B"), "<think> x </think> no idea", boxed("A")];
    expect(topLetterShare(prompts, texts)).toBe(3 / 4);
    // A letter outside the prompt's options is not an answer: E with options A–D.
    expect(
      topLetterShare([{ options: OPTIONS }, { options: OPTIONS }], [boxed("E"), boxed("C")]),
    ).toBe(1);
  });

  it("is null without multiple-choice answers, and refuses unaligned input", () => {
    expect(topLetterShare([{ options: null }], ["<think> x </think> \\boxed{7}"])).toBeNull();
    expect(topLetterShare([{ options: OPTIONS }], ["nothing boxed"])).toBeNull();
    expect(() => topLetterShare([{ options: OPTIONS }], [])).toThrow(/1 prompts but 0 texts/);
  });

  it("is an eval metric on multiple choice only", () => {
    const mc = evalMetrics(
      [CHOICE, CHOICE],
      [CHOICE_TRACES["faithful-right"], CHOICE_TRACES["faithful-wrong"]],
    );
    // A and B, one each.
    expect(mc.topLetterShare).toBe(0.5);
    const open = evalMetrics([OPEN], [OPEN_TRACES["faithful-right"]]);
    expect("topLetterShare" in open).toBe(false);
  });
});

describe("letterShare", () => {
  it("is one letter's share of the answers that name a letter, whichever letter is on top", () => {
    const prompts = [OPTIONS, OPTIONS, OPTIONS, OPTIONS, OPTIONS].map((options) => ({ options }));
    // C, C, C, A, no letter: C is on top (3/4), A has 1/4, D none.
    const texts = [boxed("C"), boxed("C"), boxed("C"), boxed("A"), "<think> x </think> no idea"];
    expect(topLetterShare(prompts, texts)).toBe(3 / 4);
    expect(letterShare(prompts, texts, "A")).toBe(1 / 4);
    expect(letterShare(prompts, texts, "D")).toBe(0);
  });

  it("is null without multiple-choice answers, and refuses unaligned input", () => {
    expect(letterShare([{ options: null }], ["<think> x </think> \\boxed{7}"], "A")).toBeNull();
    expect(() => letterShare([{ options: OPTIONS }], [], "A")).toThrow(
      /letterShare: 1 prompts but 0 texts/,
    );
  });
});
