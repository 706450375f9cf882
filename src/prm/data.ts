/**
 * The learned PRM's data (docs/reward-spec.md §2, "PRM"; lab choice after
 * GRR §3 eq. 3 / App. B.1 and Math-Shepherd): the PRM is the tiny VLM read
 * as a generative step verifier. For step k of a trace, one sequence holds
 * the image, the prompt and, in its response columns, the trace up to and
 * including step k; the step's score is the smallest probability the PRM
 * gives any response token of steps 1..k (src/prm/scorer.ts). A model that
 * has learned the task's true traces gives a misread digit, a wrong result or
 * a swapped operation a low probability; the min over the prefix makes a
 * step's score follow its label below.
 *
 * Labels (lab choice, Math-Shepherd's "every step so far is right"): step k
 * is correct when steps 1..k equal the task's true reference steps, so a
 * misread digit makes its own step and every later step incorrect, even an
 * arithmetic step that is right for the misread value.
 *
 * Corrupted traces imitate how the lab's models err: a misread digit (the
 * later arithmetic follows the misread value), a wrong result of the last
 * step with its expression kept (the `traceSlip` knob's near miss), or a
 * swapped operation (the result follows the swapped operation). They make
 * the held-out steps the PRM's figures are measured on.
 */
import type { TaskPrompt } from "../tasks/types";
import { encode, PAD_ID } from "../tasks/tokenizer";
import type { Rng } from "../tasks/rng";
import { buildModelTokens } from "../tasks/tokenizer";
import type { TextShape } from "../engine/sequences";
import { NUMBER_MAX, NUMBER_MIN } from "../tasks/format";
import { numPatches, type ModelConfig } from "../model/config";
import { MAX_PROMPT_TOKENS } from "../tasks/tokenizer";

/**
 * Text shape of a PRM of `config`: the lab's prompt length (MAX_PROMPT_TOKENS)
 * and every remaining position for the response prefix.
 * @throws Error when the config leaves no response column.
 */
export function prmShape(config: ModelConfig): TextShape {
  const maxNew = config.maxSeqLen - numPatches(config) - MAX_PROMPT_TOKENS;
  if (maxNew < 1)
    throw new Error(`PRM: maxSeqLen ${config.maxSeqLen} leaves ${maxNew} response columns`);
  return { promptLen: MAX_PROMPT_TOKENS, maxNew };
}

/** How a corrupted trace errs (lab choice: the errors the lab's policies make). */
type CorruptionKind = "misread" | "wrong-result" | "operation-swap";

/** A trace as step bodies (`first digit = \boxed{3}`), with where it first departs from the reference. */
export interface LabelledTrace {
  /** Step bodies, in order, as `Step k:` would be followed in a response. */
  steps: string[];
  /** 0-based index of the first step that differs from the reference; null for a correct trace. */
  firstWrong: number | null;
  kind: CorruptionKind | null;
}

const READ_STEP = /^(first|second|third) digit = \\boxed\{(-?\d+)\}$/;
const RESULT = / = \\boxed\{(-?\d+)\}$/;
const OPS: Record<string, string> = { "+": "-", "-": "+", "*": "+" };

/** Evaluates a compute-step expression of the digit task: `3 + 4 - 2`, `3 * 4`, `max 3 4`. */
function evaluate(expr: string): number | null {
  const words = expr.trim().split(/\s+/);
  if (words[0] === "max") {
    const xs = words.slice(1).map(Number);
    return xs.length > 0 && xs.every(Number.isInteger) ? Math.max(...xs) : null;
  }
  let acc = Number(words[0]);
  for (let i = 1; i + 1 < words.length; i += 2) {
    const x = Number(words[i + 1]);
    if (!Number.isInteger(x)) return null;
    if (words[i] === "+") acc += x;
    else if (words[i] === "-") acc -= x;
    else if (words[i] === "*") acc *= x;
    else return null;
  }
  return Number.isInteger(acc) && words.length % 2 === 1 ? acc : null;
}

function inRange(v: number): boolean {
  return v >= NUMBER_MIN && v <= NUMBER_MAX;
}

/** `expr = \boxed{v}` with v recomputed from expr; null when it does not evaluate in range. */
function recomputed(expr: string): string | null {
  const v = evaluate(expr);
  return v !== null && inRange(v) ? `${expr} = \\boxed{${v}}` : null;
}

function misread(steps: string[], rng: Rng): LabelledTrace | null {
  const reads = steps.flatMap((s, i) => (READ_STEP.test(s) ? [i] : []));
  if (reads.length === 0) return null;
  const j = rng.pick(reads);
  const [, ordinal, digit] = READ_STEP.exec(steps[j])!;
  const d = Number(digit);
  let seen = rng.int(0, 8);
  if (seen >= d) seen += 1;
  const out = steps.slice();
  out[j] = `${ordinal} digit = \\boxed{${seen}}`;
  // The arithmetic step reads the digits left to right: its (j+1)-th number follows the misread digit.
  const last = out.length - 1;
  if (last > j) {
    const expr = out[last].slice(0, out[last].lastIndexOf(" = "));
    let n = -1;
    const words = expr.split(" ").map((w) => (/^-?\d+$/.test(w) && ++n === j ? String(seen) : w));
    const redone = recomputed(words.join(" "));
    if (redone === null) return null;
    out[last] = redone;
  }
  return { steps: out, firstWrong: j, kind: "misread" };
}

function wrongResult(steps: string[], rng: Rng): LabelledTrace | null {
  const k = steps.length - 1;
  const m = RESULT.exec(steps[k]);
  if (!m) return null;
  const v = Number(m[1]);
  const delta = rng.pick([1, -1, 2, -2]);
  const w = inRange(v + delta) ? v + delta : v - delta;
  const out = steps.slice();
  out[k] = `${steps[k].slice(0, m.index)} = \\boxed{${w}}`;
  return { steps: out, firstWrong: k, kind: "wrong-result" };
}

function operationSwap(steps: string[], rng: Rng): LabelledTrace | null {
  const k = steps.length - 1;
  const expr = steps[k].slice(0, steps[k].lastIndexOf(" = "));
  const words = expr.split(" ");
  const at = words.flatMap((w, i) => (OPS[w] !== undefined ? [i] : []));
  if (at.length === 0) return null;
  const i = rng.pick(at);
  words[i] = OPS[words[i]];
  const redone = recomputed(words.join(" "));
  if (redone === null || redone === steps[k]) return null;
  const out = steps.slice();
  out[k] = redone;
  return { steps: out, firstWrong: k, kind: "operation-swap" };
}

/**
 * The prompt's reference trace with one error of the lab's models: a misread
 * digit, a wrong last result, or a swapped operation (uniform over the kinds
 * that apply; lab choice). Families without digit-reading steps get a wrong
 * result of a random step. Returns null when no corruption applies.
 */
export function corruptTrace(prompt: TaskPrompt, rng: Rng): LabelledTrace | null {
  const steps = prompt.referenceSteps.map((s) => s.text);
  if (steps.length === 0) return null;
  const kinds = rng.shuffle([misread, wrongResult, operationSwap]);
  for (const make of kinds) {
    const t = make(steps, rng);
    if (t !== null) return t;
  }
  return null;
}

/** The prompt's true trace (every step correct). */
export function referenceTrace(prompt: TaskPrompt): LabelledTrace {
  return { steps: prompt.referenceSteps.map((s) => s.text), firstWrong: null, kind: null };
}

/** Step k's label (0-based k): 1 when steps 0..k are the reference's, else 0 (Math-Shepherd style, lab choice). */
export function stepLabel(trace: LabelledTrace, k: number): 0 | 1 {
  return trace.firstWrong === null || k < trace.firstWrong ? 1 : 0;
}

/** The response text the PRM reads for step k (0-based) of `steps`: `<think> Step 1: … Step k+1: …`. */
export function prefixText(steps: readonly string[], k: number): string {
  return `<think> ${steps
    .slice(0, k + 1)
    .map((s, i) => `Step ${i + 1}: ${s}`)
    .join(" ")}`;
}

/** One PRM query: a text row and where its response prefix ends. */
export interface PrmQuery {
  /** [promptLen + maxNew] token ids: prompt left-padded, then the prefix, then PAD. */
  tokens: Int32Array;
  /** Text column just past the prefix's last token (exclusive end; the prefix starts at promptLen). */
  endCol: number;
}

/**
 * The query for the response prefix `prefix` of `prompt`. Returns null when
 * the prefix does not fit maxNew columns or holds a word outside the
 * vocabulary (an unscorable step).
 * @throws Error when the prompt does not fit promptLen.
 */
export function prmQuery(
  prompt: Pick<TaskPrompt, "id" | "question" | "options" | "sftTarget">,
  prefix: string,
  shape: TextShape,
): PrmQuery | null {
  const ids = buildModelTokens(prompt).prompt;
  if (ids.length > shape.promptLen)
    throw new Error(
      `prompt ${prompt.id} has ${ids.length} tokens, over promptLen ${shape.promptLen}`,
    );
  let resp: number[];
  try {
    resp = encode(prefix);
  } catch {
    return null;
  }
  if (resp.length > shape.maxNew) return null;
  const tokens = new Int32Array(shape.promptLen + shape.maxNew).fill(PAD_ID);
  tokens.set(ids, shape.promptLen - ids.length);
  tokens.set(resp, shape.promptLen);
  return { tokens, endCol: shape.promptLen + resp.length };
}

/** A labelled held-out step: the prompt (with its image), the query and the label. */
export interface PrmExample {
  prompt: TaskPrompt;
  query: PrmQuery;
  label: 0 | 1;
  kind: CorruptionKind | null;
  /** 0-based index k of the prefix's last step (the step being scored). */
  step: number;
}

/**
 * The training query of `prompt` (lab choice): its true trace, every step,
 * as the PRM reads it; the PRM learns the true steps' tokens.
 * @throws Error when the trace does not fit the shape's response columns.
 */
export function trueTraceQuery(prompt: TaskPrompt, shape: TextShape): PrmQuery {
  const steps = referenceTrace(prompt).steps;
  const query = prmQuery(prompt, prefixText(steps, steps.length - 1), shape);
  if (query === null)
    throw new Error(`prompt ${prompt.id}: its trace does not fit ${shape.maxNew} response columns`);
  return query;
}

/**
 * The held-out steps of `prompts` (lab choice): every step of the true trace
 * (label 1) and, of one corrupted trace per prompt, every step from its first
 * error on (label 0).
 */
export function heldOutExamples(
  prompts: readonly TaskPrompt[],
  shape: TextShape,
  rng: Rng,
): PrmExample[] {
  const out: PrmExample[] = [];
  for (const prompt of prompts) {
    const good = referenceTrace(prompt);
    const bad = corruptTrace(prompt, rng);
    for (const trace of bad ? [good, bad] : [good]) {
      for (let k = trace.firstWrong ?? 0; k < trace.steps.length; k++) {
        const query = prmQuery(prompt, prefixText(trace.steps, k), shape);
        if (query)
          out.push({ prompt, query, label: stepLabel(trace, k), kind: trace.kind, step: k });
      }
    }
  }
  return out;
}
