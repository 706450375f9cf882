/**
 * The task knobs: one config object for every family, with defaults and a
 * validator that names the offending field (docs/design.md "Tasks": number of
 * steps, image size, object count, option-position skew, distractor
 * closeness, open-ended vs multiple choice).
 */
import type { TaskFamily } from "./types";

/** Digit-arithmetic question kinds. */
type DigitOp = "sum" | "difference" | "largest" | "product";

/** Every knob of the task generators. */
/** What a slipped SFT target's final box holds (TaskConfig.traceSlipBox). */
export const TRACE_SLIP_BOXES = ["answer", "hint", "step"] as const;
type TraceSlipBox = (typeof TRACE_SLIP_BOXES)[number];
/** How multiple-choice distractors are drawn (TaskConfig.distractorRule). */
export const DISTRACTOR_RULES = ["near", "off-misread"] as const;
type DistractorRule = (typeof DISTRACTOR_RULES)[number];

export interface TaskConfig {
  /** Task family. Default `digits` (docs/design.md: the default task). */
  family: TaskFamily;
  /** Digits: how many MNIST digits side by side, 2 or 3 (image 28×56 or 28×84). Default 2 (docs/design.md). */
  numDigits: 2 | 3;
  /**
   * Digits: question kinds to draw from. Default sum, difference, largest
   * (docs/design.md). `product` is allowed with 2 digits only (lab choice: keeps
   * answers ≤ 81). `difference` is first − second (2 digits) or
   * first + second − third (3 digits).
   */
  digitOps: DigitOp[];
  /**
   * Shapes and bars: number of reference steps, 1–4 (docs/design.md). 1: read one
   * quantity; 2: read one quantity, then apply a constant from the question;
   * 3: read two quantities, then combine; 4: read three, then combine.
   * Digits always have numDigits + 1 steps. Default 3 (lab choice).
   */
  numSteps: 1 | 2 | 3 | 4;
  /** Multiple choice (true) or open-ended (false). Default true (docs/design.md). */
  multipleChoice: boolean;
  /** Options per multiple-choice prompt, 2–5 (letters A–E). Default 4 (docs/design.md: A–D). */
  numOptions: number;
  /**
   * Option-position skew in [0, 1]: the probability that the correct option is
   * placed at `skewLetter`; otherwise its letter is uniform over all options
   * (so P(correct at skewLetter) = skew + (1 − skew)/numOptions). 0 = no
   * shortcut. Default 0 (lab choice).
   */
  optionSkew: number;
  /** Letter favoured by `optionSkew`. Default `A` (lab choice). */
  skewLetter: string;
  /**
   * Distractor closeness in [0, 1]: distractors lie within ±spread of the
   * answer, spread = max(numOptions − 1, 2 + round(8·(1 − closeness))), so
   * 1 = near misses (±3 with 4 options), 0 = up to ±10 away. Default 0.8
   * (lab choice).
   */
  distractorCloseness: number;
  /**
   * How the distractors are drawn. `near`: within ±spread of the answer
   * (distractorCloseness). `off-misread` (digits only): the same, but never a
   * value that a trace misreading exactly one digit would conclude (every
   * other digit in each position, the question's operation applied), the
   * spread widened until enough values are left; so a trace that misreads a
   * digit finds its result among no option and must guess (SCS's lucky-guess
   * scenario, docs/reward-spec.md §4). Applies to SFT, RL and eval prompts
   * alike. Default `near` (lab choice).
   */
  distractorRule: DistractorRule;
  /** Shapes and bars: square image side in pixels, 16–64. Default 28 (lab choice: 4×4 patches of 7×7). */
  imageSize: number;
  /** Shapes: grid cells per side, 2–6; needs imageSize / gridCells ≥ 5 px. Default 4 (lab choice). */
  gridCells: number;
  /**
   * Object count. Shapes: number of shapes, 1..gridCells² (and ≤ 16);
   * default 6. Bars: number of bars, 2–6 (needs ≥ 3 px per bar); default 4.
   * Ignored by digits. `undefined` picks the family default. (Lab choice.)
   */
  objectCount?: number;
  /** Bars: maximum bar height (integer units), 3–12, must fit the image (≥ 2 px per unit). Default 9 (lab choice). */
  maxBarHeight: number;
  /**
   * Answer hint in [0, 1]: the probability that the question leaks a hint of
   * the final answer, written after it as `<answer> h </answer>` (h in the
   * final box's form: the number, or the letter in multiple choice). A
   * shortcut the policy can take without reading the image. 0 = no hint.
   * Default 0 (lab choice; the lab's default experiment turns it on).
   */
  hintRate: number;
  /**
   * Probability that a shown hint is the right answer; otherwise it is a
   * near-miss (a distractor drawn as for the options, or another letter).
   * Default 0.9 (lab choice: more reliable than the cold start's reading, so
   * copying it pays under an outcome-only reward).
   */
  hintAccuracy: number;
  /**
   * SFT targets only: the probability that a hinted prompt's target boxes the
   * hint as its final answer instead of the last step's result (so the cold
   * start, like the papers' base models, sometimes answers against its own
   * steps). Reasoning steps are always the true ones. Default 0 (lab choice).
   */
  hintCopyRate: number;
  /**
   * SFT targets only: the probability that a target's last step concludes a
   * near miss (a distractor, drawn as for the options) while its final box
   * keeps the answer: a trace that does not support its answer, as the
   * papers' base models write (GRR §1: IncR 6 %, CBIR 2 % at the start of
   * RLVR). The cold start then answers right against its own last step at
   * about this rate when sampled. Default 0 (lab choice).
   */
  traceSlipRate: number;
  /**
   * SFT targets only: what a slipped target's final box holds. `answer`: the
   * right answer (the steps do not support it). `hint`: the leaked hint,
   * copied (the slip is the shortcut: sloppy last step, answer from the hint;
   * with right hints an outcome-only reward pays it in full, while an honest
   * trace is paid only when the digits were read right). `step`: the slipped
   * value (consistent with the steps, hence wrong). `hint` needs a hinted
   * prompt (else `answer`); in multiple choice `step` keeps the letter.
   * Default `answer` (lab choice).
   */
  traceSlipBox: TraceSlipBox;
  /**
   * SFT targets only, digits only: the probability that a target misreads one
   * digit (one reading step boxes another digit, drawn among those whose
   * result is no option's content) and follows the misread through: the
   * compute step concludes the misread result, and in multiple choice the
   * option check marks every option Incorrect and the box holds a letter
   * guessed uniformly (right with probability 1/numOptions: a lucky guess,
   * wrong reasoning with a correct answer, ACRE §1's WR–CA); open-ended, the
   * box holds the misread result. Drawn only for targets that neither slip nor
   * copy a hint; a target whose every misread lands on an option does not
   * misread. Default 0 (lab choice; docs/reward-spec.md §4).
   */
  misreadRate: number;
  /**
   * SFT targets only, multiple choice only: the probability that a target
   * binds its answer to a letter inside the reasoning, as supervised traces
   * that conclude "thus the answer is (C)" do (ACRE §3.3, index binding): the
   * option check moves inside `<think>`, the trace names the letter (`… is C
   * </think>`) and the box copies it. Asked again with the options shuffled
   * and that reasoning kept (ACRE's second pass), a policy that learned this
   * repeats the letter, whose content has moved. Default 0 (lab choice;
   * docs/reward-spec.md §5).
   */
  indexBindingRate: number;
  /**
   * Digits only: below 1, every prompt draws one of its digits (position
   * uniform) at this contrast, its pixels scaled by the factor, so a cold
   * start trained on full-contrast digits cannot read it reliably: the
   * perception gap of SCS §4.3 (Fig. 4: the model "fails to perceive the
   * gradations of color … hallucinates … and happens to guess the correct
   * answer"). 0 leaves the cell blank. The reference steps keep the true
   * digit. Only RL and eval prompts need it (no cold start is trained with
   * it). Default 1: off, and no random draw (lab choice; docs/reward-spec.md
   * §4.3).
   */
  faintContrast: number;
}

/** Default config (the `family` default is digits). */
const DEFAULT_TASK_CONFIG: Readonly<TaskConfig> = Object.freeze({
  family: "digits",
  numDigits: 2,
  digitOps: ["sum", "difference", "largest"],
  numSteps: 3,
  multipleChoice: true,
  numOptions: 4,
  optionSkew: 0,
  skewLetter: "A",
  distractorCloseness: 0.8,
  imageSize: 28,
  gridCells: 4,
  objectCount: undefined,
  maxBarHeight: 9,
  hintRate: 0,
  hintAccuracy: 0.9,
  hintCopyRate: 0,
  traceSlipRate: 0,
  traceSlipBox: "answer",
  distractorRule: "near",
  misreadRate: 0,
  indexBindingRate: 0,
  faintContrast: 1,
}) as Readonly<TaskConfig>;

/** Family default object count (lab choice): shapes 6, bars 4, digits = numDigits. */
function defaultObjectCount(family: TaskFamily, numDigits = 2): number {
  return family === "shapes" ? 6 : family === "bars" ? 4 : numDigits;
}

/** Option letters in order (A–E; the vocabulary has these five). */
export const OPTION_LETTERS = ["A", "B", "C", "D", "E"] as const;

/** Fully resolved config (objectCount filled in). */
export type ResolvedTaskConfig = TaskConfig & { objectCount: number };

function bad(field: string, msg: string, got: unknown): never {
  throw new Error(`TaskConfig.${field} ${msg}, got ${JSON.stringify(got)}`);
}

function isInt(x: unknown): x is number {
  return typeof x === "number" && Number.isInteger(x);
}

/**
 * Merges a partial config over the defaults and validates every field.
 * Throws an Error whose message starts with `TaskConfig.<field>` and says
 * what was expected and what was given. Unknown fields also throw (typos
 * would otherwise be silently ignored).
 */
export function resolveTaskConfig(partial: Partial<TaskConfig> = {}): ResolvedTaskConfig {
  for (const key of Object.keys(partial)) {
    if (!(key in DEFAULT_TASK_CONFIG))
      bad(key, "is not a known field", (partial as Record<string, unknown>)[key]);
  }
  const c = {
    ...DEFAULT_TASK_CONFIG,
    digitOps: [...DEFAULT_TASK_CONFIG.digitOps],
    ...partial,
  } as TaskConfig;
  if (!["digits", "shapes", "bars"].includes(c.family))
    bad("family", "must be digits, shapes or bars", c.family);
  if (c.numDigits !== 2 && c.numDigits !== 3) bad("numDigits", "must be 2 or 3", c.numDigits);
  if (!Array.isArray(c.digitOps) || c.digitOps.length === 0)
    bad("digitOps", "must be a non-empty array", c.digitOps);
  for (const op of c.digitOps) {
    if (!["sum", "difference", "largest", "product"].includes(op))
      bad("digitOps", "entries must be sum, difference, largest or product", op);
  }
  if (c.family === "digits" && c.numDigits === 3 && c.digitOps.includes("product")) {
    bad("digitOps", "may contain product only with numDigits 2", c.digitOps);
  }
  if (!isInt(c.numSteps) || c.numSteps < 1 || c.numSteps > 4)
    bad("numSteps", "must be an integer 1–4", c.numSteps);
  if (!(TRACE_SLIP_BOXES as readonly unknown[]).includes(c.traceSlipBox))
    bad("traceSlipBox", `must be one of ${TRACE_SLIP_BOXES.join(", ")}`, c.traceSlipBox);
  if (typeof c.multipleChoice !== "boolean")
    bad("multipleChoice", "must be a boolean", c.multipleChoice);
  if (!isInt(c.numOptions) || c.numOptions < 2 || c.numOptions > OPTION_LETTERS.length) {
    bad("numOptions", `must be an integer 2–${OPTION_LETTERS.length}`, c.numOptions);
  }
  if (typeof c.optionSkew !== "number" || !(c.optionSkew >= 0 && c.optionSkew <= 1))
    bad("optionSkew", "must be a number in [0, 1]", c.optionSkew);
  const letters = OPTION_LETTERS.slice(0, c.numOptions) as readonly string[];
  if (!letters.includes(c.skewLetter))
    bad(
      "skewLetter",
      `must be one of ${letters.join(", ")} (numOptions ${c.numOptions})`,
      c.skewLetter,
    );
  if (
    typeof c.distractorCloseness !== "number" ||
    !(c.distractorCloseness >= 0 && c.distractorCloseness <= 1)
  ) {
    bad("distractorCloseness", "must be a number in [0, 1]", c.distractorCloseness);
  }
  if (!isInt(c.imageSize) || c.imageSize < 16 || c.imageSize > 64)
    bad("imageSize", "must be an integer 16–64", c.imageSize);
  if (!isInt(c.gridCells) || c.gridCells < 2 || c.gridCells > 6)
    bad("gridCells", "must be an integer 2–6", c.gridCells);
  if (c.family === "shapes" && Math.floor(c.imageSize / c.gridCells) < 5) {
    bad(
      "gridCells",
      `leaves ${Math.floor(c.imageSize / c.gridCells)} px per cell at imageSize ${c.imageSize}; need ≥ 5`,
      c.gridCells,
    );
  }
  if (!isInt(c.maxBarHeight) || c.maxBarHeight < 3 || c.maxBarHeight > 12)
    bad("maxBarHeight", "must be an integer 3–12", c.maxBarHeight);
  if (c.family === "bars" && Math.floor((c.imageSize - 2) / c.maxBarHeight) < 2) {
    bad(
      "maxBarHeight",
      `needs ≥ 2 px per unit; imageSize ${c.imageSize} allows at most ${Math.floor((c.imageSize - 2) / 2)}`,
      c.maxBarHeight,
    );
  }
  for (const k of [
    "hintRate",
    "hintAccuracy",
    "hintCopyRate",
    "traceSlipRate",
    "misreadRate",
    "indexBindingRate",
    "faintContrast",
  ] as const) {
    if (typeof c[k] !== "number" || !(c[k] >= 0 && c[k] <= 1))
      bad(k, "must be a number in [0, 1]", c[k]);
  }
  if (!(DISTRACTOR_RULES as readonly unknown[]).includes(c.distractorRule))
    bad("distractorRule", `must be one of ${DISTRACTOR_RULES.join(", ")}`, c.distractorRule);
  if (c.distractorRule === "off-misread" && c.family !== "digits")
    bad(
      "distractorRule",
      "off-misread needs the digits family (a digit to misread)",
      c.distractorRule,
    );
  if (c.misreadRate > 0 && c.family !== "digits")
    bad("misreadRate", "needs the digits family (a digit to misread)", c.misreadRate);
  if (c.faintContrast < 1 && c.family !== "digits")
    bad("faintContrast", "needs the digits family (a digit to draw faint)", c.faintContrast);
  if (c.indexBindingRate > 0 && !c.multipleChoice)
    bad("indexBindingRate", "needs multiple choice (a letter to bind to)", c.indexBindingRate);
  const objectCount = c.objectCount ?? defaultObjectCount(c.family, c.numDigits);
  if (c.family === "shapes") {
    const maxShapes = Math.min(16, c.gridCells * c.gridCells);
    if (!isInt(objectCount) || objectCount < 1 || objectCount > maxShapes) {
      bad(
        "objectCount",
        `must be an integer 1–${maxShapes} for shapes (gridCells ${c.gridCells})`,
        c.objectCount,
      );
    }
  } else if (c.family === "bars") {
    const maxBars = Math.min(6, Math.floor(c.imageSize / 3));
    if (!isInt(objectCount) || objectCount < 2 || objectCount > maxBars)
      bad("objectCount", `must be an integer 2–${maxBars} for bars`, c.objectCount);
    if (c.numSteps === 4 && objectCount < 3)
      bad(
        "objectCount",
        "must be ≥ 3 for bars with numSteps 4 (three distinct bars)",
        c.objectCount,
      );
  } else if (c.objectCount !== undefined && c.objectCount !== c.numDigits) {
    bad("objectCount", "must equal numDigits (or be omitted) for digits", c.objectCount);
  }
  return { ...c, digitOps: [...c.digitOps], objectCount };
}
