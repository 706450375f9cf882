/** A seeded toy "policy" that writes realistic rollouts with the failure modes the papers study. */
import type { TaskPrompt } from "../../src/tasks/types";
import type { Rng } from "../../src/rewards/rng";
import { digitSumPrompt, digitTrace } from "./fixtures";

const LETTERS = ["A", "B", "C", "D"];

/** One rollout: misread digits, wrong sums, inconsistent finals and truncation, each with some probability. */
export function sampleRollout(prompt: TaskPrompt, rng: Rng): string {
  const digits = prompt.referenceSteps.slice(0, -1).map((s) => Number(s.value));
  const read = digits.map((d) => (rng() < 0.2 ? (d + 1 + Math.floor(rng() * 8)) % 10 : d));
  let result = read.reduce((a, b) => a + b, 0);
  if (rng() < 0.15) result += rng() < 0.5 ? 1 : -1;
  const options = prompt.options!;
  const byContent = Object.keys(options).find((k) => options[k] === String(result));
  let final = byContent ?? LETTERS[Math.floor(rng() * 4)];
  if (rng() < 0.15) final = LETTERS[Math.floor(rng() * 4)]; // answer not following the trace
  if (rng() < 0.3) final = prompt.answer.letter!; // shortcut: right letter whatever the trace says
  const text = digitTrace(read, result, final);
  return rng() < 0.05 ? text.slice(0, Math.floor(text.length * rng())) : text;
}

/** `count` seeded digit-sum prompts with 2–3 digits. */
export function samplePrompts(count: number, rng: Rng): TaskPrompt[] {
  return Array.from({ length: count }, (_, i) => {
    const n = rng() < 0.5 ? 2 : 3;
    const digits = Array.from({ length: n }, () => Math.floor(rng() * 10));
    return digitSumPrompt({ digits, id: `digits/test/${i}` });
  });
}
