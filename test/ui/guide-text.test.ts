// The guided view's settings sentences carry the experiment's own numbers.
import { describe, expect, it } from "vitest";
import { stepText, taskText } from "../../src/ui/lib/guide-text";
import { parseExperiment } from "../../src/settings/experiment";
import { presetExperiment } from "../../src/settings/presets";

describe("guide text", () => {
  it("the default task: two digits, a boxed number, every question leaks the right answer", () => {
    expect(taskText(presetExperiment("default"))).toEqual([
      "Each question shows two handwritten MNIST digits and asks for their sum, their difference or the largest of them.",
      "The model writes its steps (one per digit it reads, then the arithmetic) and boxes a number as its answer.",
      "Every question also leaks an answer as a hint (<answer> 7 </answer>), always the right one: a shortcut that skips reading the image.",
    ]);
  });

  it("a partial, unreliable hint and multiple choice", () => {
    const t = taskText(
      parseExperiment({ task: { multipleChoice: true, hintRate: 0.3, hintAccuracy: 0.9 } }),
    );
    expect(t[1]).toMatch(/picks one of the options A–D/);
    expect(t[2]).toBe(
      "30 % of the questions also leak an answer as a hint (<answer> 7 </answer>), right 90 % of the time: a shortcut that skips reading the image.",
    );
    expect(taskText(presetExperiment("grr-paper"))).toHaveLength(2);
  });

  it("one step with the run's sizes and seeds", () => {
    expect(stepText(parseExperiment({ seeds: [1, 2, 3] }))).toBe(
      "Every step each variant samples 8 answers to each of 4 prompts, scores them with its own reward and updates its own copy of the model (once per seed, 3 seeds); every 5 steps it answers 128 held-out questions, which the charts plot.",
    );
  });
});
