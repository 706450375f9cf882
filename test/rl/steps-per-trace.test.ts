// stepsPerTrace of evalMetrics on hand-made traces with a worked value: the
// numbered steps the parser finds, averaged over every response (a response
// with no steps counts as 0), the figure that shows a policy writing shorter
// traces under a PRM that averages its step scores (GRR §4.3.1).
import { describe, expect, it } from "vitest";
import { evalMetrics } from "../../src/rl/eval-metrics";
import type { TaskPrompt } from "../../src/tasks/types";

const prompt = (id: string): TaskPrompt =>
  ({
    id,
    question: "What is the sum of the two digits?",
    answer: { content: "9" },
    referenceSteps: [
      { text: "first digit = \\boxed{5}", value: "5" },
      { text: "second digit = \\boxed{4}", value: "4" },
      { text: "5 + 4 = \\boxed{9}", value: "9" },
    ],
  }) as unknown as TaskPrompt;

const texts = [
  // three steps
  "<think> Step 1: first digit = \\boxed{5} Step 2: second digit = \\boxed{4} Step 3: 5 + 4 = \\boxed{9} </think> \\boxed{9}",
  // one step
  "<think> Step 1: 5 + 4 = \\boxed{9} </think> \\boxed{9}",
  // no steps
  "<think> the digits add up </think> \\boxed{9}",
  // two steps, no answer
  "<think> Step 1: first digit = \\boxed{5} Step 2: second digit = \\boxed{4}",
];

describe("evalMetrics: steps per trace", () => {
  it("worked value: (3 + 1 + 0 + 2) / 4 responses = 1.5", () => {
    const prompts = texts.map((_, i) => prompt(`p${i}`));
    expect(evalMetrics(prompts, texts).stepsPerTrace).toBeCloseTo(6 / 4, 12);
  });
  it("one response with three steps gives 3", () => {
    expect(evalMetrics([prompt("p")], [texts[0]]).stepsPerTrace).toBe(3);
  });
});
