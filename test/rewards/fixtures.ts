/** Hand-built prompts and traces in the lab's normalized format (docs/reward-spec.md §0). */
import type { TaskPrompt } from "../../src/tasks/types";

export interface DigitTask {
  digits: number[];
  /** Multiple choice (A–D) or open-ended. */
  multipleChoice?: boolean;
  id?: string;
}

const ORDINALS = ["first", "second", "third", "fourth"];

/** "What is the sum of the digits?" with reference steps: read each digit, then add. */
export function digitSumPrompt({
  digits,
  multipleChoice = true,
  id = "digits/test/0",
}: DigitTask): TaskPrompt {
  const sum = digits.reduce((a, b) => a + b, 0);
  const referenceSteps = digits.map((d, i) => ({
    text: `${ORDINALS[i]} digit = \\boxed{${d}}`,
    value: String(d),
  }));
  referenceSteps.push({ text: `${digits.join(" + ")} = \\boxed{${sum}}`, value: String(sum) });
  const options = multipleChoice
    ? { A: String(sum - 1), B: String(sum), C: String(sum + 1), D: String(sum + 2) }
    : null;
  const answer = { letter: multipleChoice ? "B" : null, content: String(sum) };
  const prompt: TaskPrompt = {
    id,
    family: "digits",
    image: new Float32Array(4),
    height: 2,
    width: 2,
    channels: 1,
    question: "What is the sum of the digits ?",
    options,
    answer,
    referenceSteps,
    sftTarget: "",
  };
  prompt.sftTarget = trace(
    referenceSteps.map((s) => s.text),
    multipleChoice ? "B" : String(sum),
  );
  return prompt;
}

/** `<think> Step 1: … Step 2: … </think> \boxed{final}`. */
export function trace(stepBodies: readonly string[], final: string): string {
  const steps = stepBodies.map((b, i) => `Step ${i + 1}: ${b}`).join(" ");
  return `<think> ${steps} </think> \\boxed{${final}}`;
}

/** A trace with the given local results (digits read, then a sum step). */
export function digitTrace(read: number[], result: number, final: string): string {
  const bodies = read.map((d, i) => `${ORDINALS[i]} digit = \\boxed{${d}}`);
  bodies.push(`${read.join(" + ")} = \\boxed{${result}}`);
  return trace(bodies, final);
}
