/**
 * SCS's released-code form on continuation texts as the policy writes them:
 * response token ids (kept prefix + sampled rest, EOS) decoded by
 * decodeResponse, the text the reward side scores (docs/reward-spec.md §4).
 */
import { describe, expect, it } from "vitest";
import { releasedAnswer, scoreSCS, scsConsistency } from "../../src/rewards/scs";
import { formatResponse, step } from "../../src/tasks/format";
import { decodeResponse, encode, EOS_ID } from "../../src/tasks/tokenizer";
import { digitSumPrompt } from "./fixtures";

const prompt = digitSumPrompt({ digits: [3, 4] }); // A 6, B 7, C 8, D 9; gold B
const options = prompt.options as Record<string, string>;

/** The response ids of a trace reading `read` and boxing `final` (marked: the option the check marks). */
function responseIds(read: [number, number], final: string, marked: string | null): number[] {
  const steps = [
    step("first digit", read[0]),
    step("second digit", read[1]),
    step(`${read[0]} + ${read[1]}`, read[0] + read[1]),
  ];
  return [...encode(formatResponse(steps, final, options, { marked })), EOS_ID];
}

/** A continuation as the pass decodes it: the first `keep` ids of `rollout`, then the rest of `tail`. */
function continuation(rollout: number[], tail: number[], keep: number): string {
  return decodeResponse([...rollout.slice(0, keep), ...tail.slice(keep)]);
}

describe("SCS released form reads the final box of the lab's traces", () => {
  // A misread (3 read as 9): 9 + 4 = 13 is no option, every option Incorrect, a guessed letter.
  const misread = responseIds([9, 4], "C", null);
  const keep = Math.floor(0.8 * (misread.length - 1)); // k 0.8 of the 41 response tokens
  const guesses = ["C", "A", "C", "D"].map((g) =>
    continuation(misread, responseIds([9, 4], g, null), keep),
  );

  it("the decoded continuations start with `<think> Step` and box a letter", () => {
    expect(misread.length - 1).toBe(41);
    expect(keep).toBe(32);
    for (const t of guesses) expect(t.startsWith("<think> Step 1:")).toBe(true);
    expect(guesses[1].endsWith("\\boxed{A}")).toBe(true);
  });

  it("releasedAnswer is the boxed letter, not the S of Step", () => {
    expect(guesses.map(releasedAnswer)).toEqual(["C", "A", "C", "D"]);
    // Cut off before the box: no answer.
    expect(releasedAnswer(decodeResponse(misread.slice(0, 36)))).toBeNull();
    // A box holding a number has no capital letter: no answer, as in the released code.
    expect(releasedAnswer("<think> Step 1: 3 + 4 = \\boxed{7} </think> \\boxed{7}")).toBeNull();
  });

  it("r_con = 0.3·(5 − |𝒜|) over the guesses, and constant only when they agree", () => {
    // 𝒜 = {C, A, D}: 0.3·(5 − 3) = 0.6.
    expect(scsConsistency({ answers: guesses, form: "released" })).toBeCloseTo(0.6, 12);
    const right = responseIds([3, 4], "B", "B");
    const agree = [0, 1, 2, 3].map(() => continuation(right, right, keep));
    // 𝒜 = {B}: 0.3·4 = 1.2.
    expect(scsConsistency({ answers: agree, form: "released" })).toBeCloseTo(1.2, 12);
    const g = scoreSCS(prompt, [decodeResponse(right), decodeResponse(misread)], [agree, guesses], {
      form: "released",
    });
    expect(g.rollouts[0].components.rCon).toBeCloseTo(1.2, 12);
    expect(g.rollouts[1].components.rCon).toBeCloseTo(0.6, 12);
    // 0.5·r_fmt + r_acc + r_con: the misread's own box C is wrong.
    expect(g.rollouts[1].total).toBeCloseTo(0.5 + 0 + 0.6, 12);
  });
});
