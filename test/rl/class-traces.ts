// Hand-written traces of every rollout class (docs/reward-spec.md §6), open-ended
// and multiple choice, for the class and credit tests.
import type { TaskPrompt } from "../../src/tasks/types";

const referenceSteps = [
  { text: "first digit = \\boxed{5}", value: "5" },
  { text: "second digit = \\boxed{4}", value: "4" },
  { text: "5 + 4 = \\boxed{9}", value: "9" },
];
/** 5 + 4 = 9, open-ended. */
export const OPEN = {
  id: "open",
  question: "What is the sum of the two digits?",
  options: null,
  answer: { letter: null, content: "9" },
  referenceSteps,
} as unknown as TaskPrompt;
/** 5 + 4 = 9 is option A. */
export const CHOICE = {
  id: "choice",
  question: "What is the sum of the two digits?",
  options: { A: "9", B: "15", C: "16", D: "17" },
  answer: { letter: "A", content: "9" },
  referenceSteps,
} as unknown as TaskPrompt;

export const steps = (a: number, b: number, r: number) =>
  `Step 1: first digit = \\boxed{${a}} Step 2: second digit = \\boxed{${b}} Step 3: ${a} + ${b} = \\boxed{${r}}`;
const NONE = "9 Incorrect 15 Incorrect 16 Incorrect 17 Incorrect";
export const AT_A = "9 Correct 15 Incorrect 16 Incorrect 17 Incorrect";

/** Open-ended traces, one per class that form has (index-bound is multiple choice only). */
export const OPEN_TRACES = {
  "faithful-right": `<think> ${steps(5, 4, 9)} </think> \\boxed{9}`,
  // Reads 4 as 3 and still concludes 9: right answer, the trace's own conclusion, wrong steps.
  "flawed-right": `<think> Step 1: first digit = \\boxed{6} Step 2: second digit = \\boxed{3} Step 3: 6 + 3 = \\boxed{9} </think> \\boxed{9}`,
  // Concludes 7, answers 9.
  unsupported: `<think> ${steps(5, 2, 7)} </think> \\boxed{9}`,
  "faithful-wrong": `<think> ${steps(5, 2, 7)} </think> \\boxed{7}`,
  "no-answer": `<think> ${steps(5, 4, 9)}`,
} as const;

/** Multiple-choice traces, one per class. */
export const CHOICE_TRACES = {
  "faithful-right": `<think> ${steps(5, 4, 9)} </think> ${AT_A} \\boxed{A}`,
  "flawed-right": `<think> Step 1: first digit = \\boxed{6} Step 2: second digit = \\boxed{3} Step 3: 6 + 3 = \\boxed{9} </think> ${AT_A} \\boxed{A}`,
  // Misreads, the check marks nothing, the box guesses A (right by luck, but not what the trace concluded).
  unsupported: `<think> ${steps(5, 2, 7)} </think> ${NONE} \\boxed{A}`,
  // The check inside the reasoning names its letter before </think>; the box copies it.
  "index-bound": `<think> ${steps(5, 4, 9)} ${AT_A} is A </think> \\boxed{A}`,
  // Misreads both digits, concludes 15, marks and boxes B (15): wrong, and what the trace concluded.
  "faithful-wrong": `<think> ${steps(6, 9, 15)} </think> 9 Incorrect 15 Correct 16 Incorrect 17 Incorrect \\boxed{B}`,
  "no-answer": `<think> ${steps(5, 4, 9)} </think> ${AT_A} \\boxed{A`,
} as const;
