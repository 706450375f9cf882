/**
 * Shared shapes of a task prompt, used by the task generators, the tokenizer,
 * the reward library, the trainer and the UI. Plain data only (structured-
 * clone safe), so a prompt crosses worker boundaries unchanged.
 */

/** Task families of the lab (docs/design.md "Tasks"). */
export type TaskFamily = "digits" | "shapes" | "bars";

/** One reference reasoning step with its true local result. */
export interface ReferenceStep {
  /** The step body as the SFT target writes it, e.g. `first digit = \boxed{3}`. */
  text: string;
  /** The step's true local result as answer text, e.g. `3`. */
  value: string;
}

/** Ground truth of a prompt. */
interface GroundTruth {
  /** Correct option letter, or null for an open-ended question. */
  letter: string | null;
  /** Correct answer content (the number as text). */
  content: string;
}

/**
 * One prompt x = (v, q, O, a*) of docs/reward-spec.md §0, with everything the rewards,
 * judges and metrics need to audit a trace.
 */
export interface TaskPrompt {
  /** Stable id, unique within its set (e.g. `digits/train/42`). */
  id: string;
  family: TaskFamily;
  /** Image pixels, row-major H×W×C, values in [0, 1]. */
  image: Float32Array;
  height: number;
  width: number;
  channels: number;
  /** Question text, already in the tokenizer's vocabulary. */
  question: string;
  /** Option letter → option content; null for open-ended prompts. */
  options: Record<string, string> | null;
  answer: GroundTruth;
  /** The task generator's correct steps, in order. */
  referenceSteps: ReferenceStep[];
  /** The SFT target response in the normalized format (docs/reward-spec.md §0). */
  sftTarget: string;
}
