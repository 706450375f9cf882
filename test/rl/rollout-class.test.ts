// The rollout classes (docs/reward-spec.md §6) on hand-written traces of every
// class, open-ended and multiple choice: the first class that applies, in the
// order of ROLLOUT_CLASSES.
import { describe, expect, it } from "vitest";
import { rolloutClass, rolloutFacts } from "../../src/rl/rollout-class";
import { ROLLOUT_CLASSES } from "../../src/settings/credit-table";
import { CHOICE, CHOICE_TRACES, OPEN, OPEN_TRACES, AT_A, steps } from "./class-traces";

describe("rolloutClass", () => {
  it("classes every open-ended trace as written", () => {
    for (const [cls, text] of Object.entries(OPEN_TRACES))
      expect(rolloutClass(OPEN, text), cls).toBe(cls);
  });

  it("classes every multiple-choice trace as written, index-bound included", () => {
    for (const [cls, text] of Object.entries(CHOICE_TRACES))
      expect(rolloutClass(CHOICE, text), cls).toBe(cls);
    expect(Object.keys(CHOICE_TRACES).sort()).toEqual(ROLLOUT_CLASSES.map((c) => c.key).sort());
  });

  it("puts an index-bound trace whose letter is not its conclusion under unsupported (precedence)", () => {
    const text = `<think> ${steps(5, 4, 9)} ${AT_A} is C </think> \\boxed{C}`;
    expect(rolloutClass(CHOICE, text)).toBe("unsupported");
    // A letter named but not copied is not index-bound.
    expect(rolloutClass(CHOICE, `<think> ${steps(5, 4, 9)} is B </think> ${AT_A} \\boxed{A}`)).toBe(
      "faithful-right",
    );
  });

  it("reads a trailing letter in an open-ended trace as nothing special", () => {
    expect(rolloutClass(OPEN, `<think> ${steps(5, 4, 9)} is A </think> \\boxed{9}`)).toBe(
      "faithful-right",
    );
  });

  it("gives the facts the contrasts read", () => {
    expect(rolloutFacts(CHOICE, CHOICE_TRACES.unsupported)).toEqual({
      cls: "unsupported",
      right: true,
      referenceSteps: false,
      unsupported: true,
      indexBound: false,
    });
    expect(rolloutFacts(CHOICE, CHOICE_TRACES["index-bound"])).toEqual({
      cls: "index-bound",
      right: true,
      referenceSteps: true,
      unsupported: false,
      indexBound: true,
    });
  });

  it("never throws on junk and reads a long text in linear time", () => {
    expect(rolloutClass(CHOICE, "")).toBe("no-answer");
    expect(rolloutClass(CHOICE, `<think> ${" a".repeat(200_000)} </think> \\boxed{A}`)).toBe(
      "unsupported",
    );
  });
});
