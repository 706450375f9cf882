/**
 * Shared pieces of every task family: the normalized response format of
 * docs/reward-spec.md §0, options with near-miss distractors and position skew, the
 * prompt text the model reads, and the lab's extended prompt type.
 */
import type { ReferenceStep, TaskFamily, TaskPrompt } from "./types";
import { OPTION_LETTERS, type ResolvedTaskConfig } from "./config";
import type { Rng } from "./rng";

/** Smallest integer the vocabulary holds (lab choice; covers every task value and distractor). */
export const NUMBER_MIN = -40;
/** Largest integer the vocabulary holds (lab choice; digit products reach 81). */
export const NUMBER_MAX = 99;

/** Where a prompt came from; extra data for tests, the UI and audits (not needed by rewards). */
export interface PromptMeta {
  /** Which data split the prompt was drawn for. */
  split: "train" | "eval";
  /** Question kind, e.g. `sum`, `difference`, `count`, `tallest-minus-shortest` (free text, for display). */
  kind: string;
  /** Digits only: packed image index (position in mnist-subset.bin) of each digit, left to right. */
  digitIndices?: number[];
  /** Digits only: the true label of each digit, left to right. */
  digitLabels?: number[];
  /** Digits with TaskConfig.faintContrast below 1: the 0-based position of the faint digit. */
  faintDigit?: number;
  /** Set by shuffleImages: id of the prompt whose image this prompt now shows. */
  imageFrom?: string;
  /** The answer hint the question shows, in the final box's form (TaskConfig.hintRate); absent when none. */
  hint?: string;
  /** True when the SFT target boxes the hint instead of the last step's result (TaskConfig.hintCopyRate). */
  hintCopied?: boolean;
  /** True when the SFT target's last step concludes a near miss (TaskConfig.traceSlipRate). */
  traceSlip?: boolean;
  /**
   * Set when the SFT target misreads a digit (TaskConfig.misreadRate): the
   * reading step (1-based) that boxes another digit, and in multiple choice
   * the letter the target guessed.
   */
  misread?: { step: number; guess: string | null };
  /** True when the SFT target names its letter inside the reasoning (TaskConfig.indexBindingRate). */
  indexBound?: boolean;
}

/** A TaskPrompt with the generator's metadata (still a plain, structured-clone-safe object). */
export interface LabTaskPrompt extends TaskPrompt {
  meta: PromptMeta;
}

/** A family's problem before options and formatting: question, steps and the integer answer. */
export interface ProblemSpec {
  question: string;
  steps: ReferenceStep[];
  answer: number;
  /** True if the question can have a negative answer (then distractors may be negative too). */
  allowNegative: boolean;
  kind: string;
  /**
   * Digits only: every trace that misreads exactly one digit (each other
   * digit 0–9 in each position), with the steps and answer that follow from
   * it, in position-major order. TaskConfig.distractorRule `off-misread` keeps
   * their answers out of the options; TaskConfig.misreadRate draws an SFT
   * target from them.
   */
  misreads?: readonly Misread[];
}

/** One misread of a digits problem (ProblemSpec.misreads). */
export interface Misread {
  /** Reading step that boxes the wrong digit, 1-based. */
  step: number;
  steps: ReferenceStep[];
  answer: number;
}

/** `\boxed{v}` */
function boxed(v: string | number): string {
  return `\\boxed{${v}}`;
}

/** A reference step: body text `<expr> = \boxed{v}` and its value. */
export function step(expr: string, value: number): ReferenceStep {
  return { text: `${expr} = ${boxed(value)}`, value: String(value) };
}

/** How a multiple-choice response is laid out (formatResponse). */
export interface ResponseForm {
  /**
   * The letter the option check marks Correct; null: none (every option
   * Incorrect: the trace's result is no option's content, and the box is a
   * guess). Default: `final`.
   */
  marked?: string | null;
  /**
   * The check sits inside `<think>` and the trace names its letter before
   * `</think>` (`… 9 Correct … is B </think> \boxed{B}`): the answer is bound
   * to the letter (TaskConfig.indexBindingRate). Default false.
   */
  bound?: boolean;
}

/**
 * The normalized response of docs/reward-spec.md §0:
 * `<think> Step 1: … Step 2: … </think> \boxed{final}` (open-ended), or with
 * `options`, `<think> … </think> 11 Incorrect 7 Correct 13 Incorrect 15
 * Incorrect \boxed{B}`: before the final box the answer checks each option's
 * content, in letter order, and marks the one it boxes. Lab choice: a bare
 * box after `</think>` needs one attention head to find which option equals
 * the result, and the small model stayed at chance (held-out Acc 0.28, and
 * 0.19–0.27 with `7 is \boxed{C}` after 300 more SFT steps); here each option
 * is copied from a fixed place of the prompt, compared with the result by the
 * MLP, and the box copies the letter of the marked place. The check sits
 * after `</think>`, so the trace's conclusion (its last step) and every step
 * metric are unchanged, and ACRE's second pass, which keeps the trace up to
 * `</think>`, redoes the check against the shuffled options.
 * `form.marked` null writes a check with no option Correct (a guessed box,
 * TaskConfig.misreadRate); `form.bound` moves the check inside `<think>` and
 * names the letter there, `<think> … Step 3: 6 + 3 = \boxed{9} 7 Incorrect 9
 * Correct 13 Incorrect 10 Incorrect is B </think> \boxed{B}` (index binding,
 * TaskConfig.indexBindingRate): the trace's conclusion is still its last
 * step's box, and a re-ask that keeps the reasoning keeps the letter.
 * @throws Error when `options` is given and has no option `final` (or `form.marked`).
 */
export function formatResponse(
  steps: readonly ReferenceStep[],
  final: string,
  options?: Readonly<Record<string, string>> | null,
  form: ResponseForm = {},
): string {
  const body = steps.map((s, i) => `Step ${i + 1}: ${s.text}`).join(" ");
  if (!options) return `<think> ${body} </think> ${boxed(final)}`;
  if (options[final] === undefined)
    throw new Error(`formatResponse: final answer ${final} is not an option letter`);
  const marked = form.marked === undefined ? final : form.marked;
  if (marked !== null && options[marked] === undefined)
    throw new Error(`formatResponse: marked option ${marked} is not an option letter`);
  const check = Object.keys(options)
    .sort()
    .map((l) => `${options[l]} ${l === marked ? "Correct" : "Incorrect"}`)
    .join(" ");
  if (form.bound) return `<think> ${body} ${check} is ${final} </think> ${boxed(final)}`;
  return `<think> ${body} </think> ${check} ${boxed(final)}`;
}

/** Renders options as `A: 7 B: 9 C: 6 D: 8` (letters in order). */
export function renderOptions(options: Record<string, string>): string {
  return Object.keys(options)
    .sort()
    .map((l) => `${l}: ${options[l]}`)
    .join(" ");
}

/** The text the model reads after the image: the question, then the rendered options (if any). */
export function promptText(prompt: Pick<TaskPrompt, "question" | "options">): string {
  return prompt.options ? `${prompt.question} ${renderOptions(prompt.options)}` : prompt.question;
}

/**
 * Draws `k` distinct near-miss distractors for an integer answer.
 * The spread is ±max(k, 2 + round(8·(1 − closeness))) (lab choice:
 * closeness 1 → ±max(k, 2), closeness 0 → ±10); near a range bound the
 * distractors are taken from the open side. The number of
 * distractors below the answer is uniform in 0..k, so the answer's rank
 * among the options carries no information (no "pick the middle one"
 * shortcut) except near the range bounds. Values stay in
 * [allowNegative ? NUMBER_MIN : 0, NUMBER_MAX]. `excluded` values are never
 * drawn; the spread grows one step at a time until k values are left (lab
 * choice, TaskConfig.distractorRule).
 */
function drawDistractors(
  answer: number,
  k: number,
  closeness: number,
  allowNegative: boolean,
  rng: Rng,
  excluded?: ReadonlySet<number>,
): number[] {
  const lo = allowNegative ? NUMBER_MIN : 0;
  const hi = NUMBER_MAX;
  let spread = Math.max(k, 2 + Math.round(8 * (1 - closeness)));
  const below: number[] = [];
  const above: number[] = [];
  const fill = () => {
    below.length = 0;
    above.length = 0;
    for (let d = 1; d <= spread; d++) {
      if (answer - d >= lo && !excluded?.has(answer - d)) below.push(answer - d);
      if (answer + d <= hi && !excluded?.has(answer + d)) above.push(answer + d);
    }
  };
  fill();
  // Excluded values (TaskConfig.distractorRule off-misread) widen the spread until k are left.
  while (excluded && below.length + above.length < k && spread < hi - lo) {
    spread++;
    fill();
  }
  let b = rng.int(0, k);
  b = Math.min(b, below.length);
  if (k - b > above.length) b = k - above.length;
  if (b < 0 || b > below.length)
    throw new Error(`drawDistractors: cannot fit ${k} distractors around ${answer}`);
  return [...rng.sample(below, b), ...rng.sample(above, k - b)];
}

/**
 * Builds the options of a multiple-choice prompt: the correct letter is
 * `skewLetter` with probability `optionSkew`, else uniform over the letters;
 * the other letters get the distractors in random order, none of them a
 * misread's answer under TaskConfig.distractorRule `off-misread`.
 */
function buildOptions(
  answer: number,
  allowNegative: boolean,
  cfg: ResolvedTaskConfig,
  rng: Rng,
  misreads?: readonly Misread[],
): { options: Record<string, string>; letter: string } {
  const letters = OPTION_LETTERS.slice(0, cfg.numOptions) as readonly string[];
  const letter = rng.chance(cfg.optionSkew) ? cfg.skewLetter : rng.pick(letters);
  const excluded =
    cfg.distractorRule === "off-misread" && misreads
      ? new Set(misreads.map((m) => m.answer).filter((a) => a !== answer))
      : undefined;
  const distractors = rng.shuffle(
    drawDistractors(
      answer,
      letters.length - 1,
      cfg.distractorCloseness,
      allowNegative,
      rng,
      excluded,
    ),
  );
  const options: Record<string, string> = {};
  let d = 0;
  for (const l of letters) options[l] = l === letter ? String(answer) : String(distractors[d++]);
  return { options, letter };
}

/** Image fields of a prompt. */
export interface ImageFields {
  image: Float32Array;
  height: number;
  width: number;
  channels: number;
}

/**
 * Assembles a full prompt from a family's problem: options (multiple choice)
 * or none (open-ended), ground truth, and the SFT target whose final box holds
 * the letter (multiple choice) or the number (open-ended).
 */
export function assemblePrompt(
  id: string,
  family: TaskFamily,
  spec: ProblemSpec,
  img: ImageFields,
  cfg: ResolvedTaskConfig,
  rng: Rng,
  meta: PromptMeta,
): LabTaskPrompt {
  if (!Number.isInteger(spec.answer) || spec.answer < NUMBER_MIN || spec.answer > NUMBER_MAX) {
    throw new Error(
      `assemblePrompt: answer ${spec.answer} outside the vocabulary range ${NUMBER_MIN}..${NUMBER_MAX}`,
    );
  }
  const content = String(spec.answer);
  let options: Record<string, string> | null = null;
  let letter: string | null = null;
  if (cfg.multipleChoice)
    ({ options, letter } = buildOptions(spec.answer, spec.allowNegative, cfg, rng, spec.misreads));
  const gold = letter ?? content;
  // Hint draws come after every other draw, so prompts without hints are unchanged.
  const hint =
    cfg.hintRate > 0 && rng.chance(cfg.hintRate) ? drawHint(spec, options, gold, cfg, rng) : null;
  const copies = hint !== null && cfg.hintCopyRate > 0 && rng.chance(cfg.hintCopyRate);
  // Slip draws come last of all, so targets without slips are unchanged.
  const slips = cfg.traceSlipRate > 0 && rng.chance(cfg.traceSlipRate);
  let steps = slips ? slipLastStep(spec, cfg, rng) : spec.steps;
  let finalBox = slips ? slipFinalBox(steps, gold, hint, cfg) : copies ? hint! : gold;
  let marked: string | null = finalBox;
  // Misread draws come after the slip draws, index-binding draws last, so earlier targets are unchanged.
  const misread =
    !slips && !copies && cfg.misreadRate > 0 && rng.chance(cfg.misreadRate)
      ? drawMisread(spec, options, rng)
      : null;
  let guess: string | null = null;
  if (misread) {
    steps = misread.steps;
    if (options) {
      guess = rng.pick(Object.keys(options).sort());
      finalBox = guess;
      marked = null;
    } else finalBox = String(misread.answer);
  }
  const bound = options !== null && cfg.indexBindingRate > 0 && rng.chance(cfg.indexBindingRate);
  let out: PromptMeta = hint === null ? meta : { ...meta, hint, hintCopied: copies };
  if (slips) out = { ...out, traceSlip: true };
  if (misread) out = { ...out, misread: { step: misread.step, guess } };
  if (bound) out = { ...out, indexBound: true };
  return {
    id,
    family,
    ...img,
    question: hint === null ? spec.question : hintedQuestion(spec.question, hint),
    options,
    answer: { letter, content },
    referenceSteps: spec.steps,
    sftTarget: formatResponse(steps, finalBox, options, { marked, bound }),
    meta: out,
  };
}

/**
 * One misread for an SFT target (TaskConfig.misreadRate), uniform among the
 * problem's misreads whose answer is no option's content (open-ended: whose
 * answer differs from the true one), or null when there is none. Lab choice.
 */
function drawMisread(
  spec: ProblemSpec,
  options: Record<string, string> | null,
  rng: Rng,
): Misread | null {
  const taken = new Set(options ? Object.values(options) : [String(spec.answer)]);
  const free = (spec.misreads ?? []).filter((m) => !taken.has(String(m.answer)));
  return free.length > 0 ? rng.pick(free) : null;
}

/**
 * The reference steps with the last one's result replaced by a near miss
 * (one distractor of the last step's value, as `drawDistractors` draws
 * them); its expression is kept, so the slip reads as an arithmetic error.
 * TaskConfig.traceSlipRate; lab choice.
 */
function slipLastStep(spec: ProblemSpec, cfg: ResolvedTaskConfig, rng: Rng): ReferenceStep[] {
  const last = spec.steps[spec.steps.length - 1];
  const value = Number(last.value);
  const miss = drawDistractors(value, 1, cfg.distractorCloseness, spec.allowNegative, rng)[0];
  const expr = last.text.slice(0, last.text.lastIndexOf(" = "));
  return [...spec.steps.slice(0, -1), step(expr, miss)];
}

/**
 * A slipped target's final box (TaskConfig.traceSlipBox): the answer, the
 * hint (when the prompt has one), or the slipped value (open-ended only).
 */
function slipFinalBox(
  steps: ReferenceStep[],
  gold: string,
  hint: string | null,
  cfg: ResolvedTaskConfig,
): string {
  if (cfg.traceSlipBox === "hint" && hint !== null) return hint;
  if (cfg.traceSlipBox === "step" && !cfg.multipleChoice) return steps[steps.length - 1].value;
  return gold;
}

/** `question <answer> h </answer>`: the question with a leaked answer hint (TaskConfig.hintRate). */
function hintedQuestion(question: string, hint: string): string {
  return `${question} <answer> ${hint} </answer>`;
}

/**
 * The hint's value: the gold answer with probability `hintAccuracy`, else a
 * near miss — one distractor as `drawDistractors` draws them (open-ended) or
 * another option letter (multiple choice). Lab choice.
 */
function drawHint(
  spec: ProblemSpec,
  options: Record<string, string> | null,
  gold: string,
  cfg: ResolvedTaskConfig,
  rng: Rng,
): string {
  if (rng.chance(cfg.hintAccuracy)) return gold;
  if (options)
    return rng.pick(
      Object.keys(options)
        .filter((l) => l !== gold)
        .sort(),
    );
  return String(
    drawDistractors(spec.answer, 1, cfg.distractorCloseness, spec.allowNegative, rng)[0],
  );
}
