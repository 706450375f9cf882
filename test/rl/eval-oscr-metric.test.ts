// The OSCR entry of evalMetrics (ACRE eq. 2) on hand-made answers: letters
// compared by option content across the shuffle, a missing second answer
// counted as changed, open-ended prompts left out.
import { describe, expect, it } from "vitest";
import { evalMetrics } from "../../src/rl/eval-metrics";
import type { TaskPrompt } from "../../src/tasks/types";

const mc = (id: string, options: Record<string, string>): TaskPrompt =>
  ({
    id,
    question: "q",
    options,
    answer: { letter: "A", content: options.A },
    referenceSteps: [],
  }) as unknown as TaskPrompt;

const answer = (x: string) => `<think> Step 1: 1 + 1 = \\boxed{2} </think> \\boxed{${x}}`;

describe("evalMetrics: oscr", () => {
  it("counts the re-asked answers that name the same option content", () => {
    const opts = { A: "7", B: "9", C: "6", D: "8" };
    const prompts = [mc("p0", opts), mc("p1", opts), mc("p2", opts), mc("p3", opts)];
    const texts = [answer("A"), answer("B"), answer("C"), answer("D")];
    // Shuffled: the content 7 now sits at C, 9 at A, 6 at D, 8 at B.
    const shuffled = { A: "9", B: "8", C: "7", D: "6" };
    const m = evalMetrics(prompts, texts, {
      options: [shuffled, shuffled, shuffled, null],
      // p0: 7 → C = 7, same; p1: 9 → B = 8, changed; p2: 6 → D = 6, same; p3: not re-asked.
      texts: [answer("C"), answer("B"), answer("D"), null],
    });
    expect(m.oscr).toBeCloseTo(2 / 4, 12);
    // Without a second pass, as on open-ended tasks: not reported.
    expect("oscr" in evalMetrics(prompts, texts)).toBe(false);
    expect(() => evalMetrics(prompts, texts, { options: [], texts: [] })).toThrow(
      /reask has 0 entries for 4 prompts/,
    );
  });
});
