/**
 * The guided view's plain-language parts that come from the settings, not
 * from the run: what the task asks, and the sentence of "now" before any
 * callout. Every number in them is the experiment's own. Pure: tested in Node.
 */
import type { Experiment } from "../../settings/experiment";

/** "30 %" for 0.3. */
const pct = (v: number) => `${Math.round(v * 100)} %`;

/** What the task asks and how the answer is given, in two or three sentences. */
export function taskText(exp: Experiment): string[] {
  const t = exp.task;
  const picture =
    t.family === "digits"
      ? `Each question shows ${t.numDigits === 3 ? "three" : "two"} handwritten MNIST digits and asks for their sum, their difference or the largest of them.`
      : t.family === "shapes"
        ? "Each question shows a drawn picture of shapes and asks how many there are of a kind."
        : "Each question shows a bar chart and asks for a bar's height or a sum of bars.";
  const answer = t.multipleChoice
    ? "The model writes its steps (one per digit it reads, then the arithmetic) and picks one of the options A–D."
    : "The model writes its steps (one per digit it reads, then the arithmetic) and boxes a number as its answer.";
  const out = [picture, answer];
  if (t.hintRate > 0)
    out.push(
      `${t.hintRate === 1 ? "Every question" : `${pct(t.hintRate)} of the questions`} also leak${t.hintRate === 1 ? "s" : ""} an answer as a hint (<answer> 7 </answer>)${t.hintAccuracy < 1 ? `, right ${pct(t.hintAccuracy)} of the time` : ", always the right one"}: a shortcut that skips reading the image.`,
    );
  return out;
}

/** What one RL step does, with the run's numbers. */
export function stepText(exp: Experiment): string {
  const a = exp.algorithm;
  const seeds = exp.seeds?.length ?? 1;
  return `Every step each variant samples ${a.groupSize} answers to each of ${a.batchPrompts} prompt${a.batchPrompts === 1 ? "" : "s"}, scores them with its own reward and updates its own copy of the model${seeds > 1 ? ` (once per seed, ${seeds} seeds)` : ""}; every ${a.evalEvery} steps it answers ${exp.evalSize} held-out questions, which the charts plot.`;
}

/**
 * What the page reads first and what it reads as effects (README, "What each
 * reward pays for"): the credit chart is the mechanism, visible from step 1;
 * the held-out curves are the downstream effects, which the claims judge only
 * over many seeds and long runs. Short tag for the panel, sentence for its
 * title and the guided view.
 */
export const READ_ORDER = {
  credit: {
    tag: "mechanism · read this first",
    text: "The mechanism: what each reward pays each kind of answer, visible from the first step.",
  },
  overview: {
    tag: "effects · need many seeds and long runs",
    text: "The effects downstream of the credit: a difference here stands out of the noise only over many seeds and long runs, so a short run's curves decide nothing.",
  },
  guide:
    "Read the credit chart (“What each variant pays for”) first: from the first step it shows what each reward pays each kind of answer, the mechanism the papers propose. The held-out curves are the effects; a difference there takes many seeds and long runs to stand out of the noise.",
} as const;
