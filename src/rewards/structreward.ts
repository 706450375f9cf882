/**
 * StructReward (docs/reward-spec.md §3): strict format R_fmt, step matching R_rule,
 * consistency R_cons, correctness R_right, and the gated total
 * R = λ_fmt R_fmt + λ_right R_right + λ_rule R_right R_rule (1 + λ_cons R_cons)
 * (StructReward eq. 7–10). Plus the rollout-recycling and hard-negative
 * example builders (StructReward §3.3–3.4).
 */
import type { TaskPrompt } from "../tasks/types";
import { lastLocalResult } from "./consistency";
import { answersEquivalent } from "./equivalence";
import { shuffled, type Rng } from "./rng";
import { requireNonNegative, type GroupScore, type RolloutScore } from "./rollout";
import { matchSteps, referenceValues, type ReferenceInput } from "./step-matching";
import { parseTrace, type ParsedTrace } from "./trace";
import { goldOf } from "./verifier";

export interface StructWeights {
  fmt: number;
  right: number;
  rule: number;
  cons: number;
}

/** Paper defaults λ_fmt 0.10, λ_right 0.25, λ_rule 0.75, λ_cons 0.15 (StructReward §4.1; max 1.2125). */
export const STRUCT_DEFAULT_WEIGHTS: Readonly<StructWeights> = {
  fmt: 0.1,
  right: 0.25,
  rule: 0.75,
  cons: 0.15,
};

export interface StructRewardResult {
  total: number;
  /** R_fmt ∈ {0, 1}. */
  fmt: number;
  /** R_right ∈ {0, 1}. */
  right: number;
  /** R_rule ∈ [0, 1]. */
  rule: number;
  /** R_cons ∈ {0, 1}. */
  cons: number;
}

interface StructRewardDetail extends StructRewardResult {
  /** z_i per generated step. */
  matched: boolean[];
  answer: string | null;
  reasoned: string | null;
}

function weightsOf(w: Partial<StructWeights> | undefined): StructWeights {
  const merged = { ...STRUCT_DEFAULT_WEIGHTS, ...(w ?? {}) };
  for (const key of ["fmt", "right", "rule", "cons"] as const)
    requireNonNegative(merged[key], `weights.${key}`);
  return merged;
}

/**
 * Strict format (docs/reward-spec.md §3): exactly one closed think block without
 * stray tags, steps numbered 1, 2, … consecutively, a box in every step, and
 * a separate, complete final answer after `</think>`.
 */
export function strictFormatOk(parsed: ParsedTrace): boolean {
  if (!parsed.formatOk || parsed.answerTruncated || parsed.stepCount === 0) return false;
  if (parsed.answerSource !== "boxed" && parsed.answerSource !== "answer-tag") return false;
  return parsed.steps.every((s, k) => s.index === k + 1 && s.boxed !== null);
}

/** Full StructReward of a parsed trace, with the per-step matches. */
function structRewardParsed(
  parsed: ParsedTrace,
  reference: readonly string[],
  gold: string,
  options: Record<string, string> | undefined,
  weights: StructWeights,
): StructRewardDetail {
  const fmt = strictFormatOk(parsed) ? 1 : 0;
  const answer = parsed.answerTruncated ? null : parsed.finalAnswer;
  const right = answer !== null && answersEquivalent({ predicted: answer, gold, options }) ? 1 : 0;
  const match = matchSteps(
    parsed.steps.map((s) => s.boxed),
    reference,
  );
  const rule = parsed.stepCount === 0 ? 0 : match.count / parsed.stepCount;
  const reasoned = lastLocalResult(parsed);
  const cons =
    answer !== null &&
    reasoned !== null &&
    answersEquivalent({ predicted: answer, gold: reasoned, options })
      ? 1
      : 0;
  const total =
    weights.fmt * fmt +
    weights.right * right +
    weights.rule * right * rule * (1 + weights.cons * cons);
  return { total, fmt, right, rule, cons, matched: match.matched, answer, reasoned };
}

/**
 * `structReward({text, referenceSteps, gold, options?, weights?})` →
 * `{total, fmt, right, rule, cons}`. `referenceSteps`: the true step values
 * (string[] or ReferenceStep[]); `gold`: answer text, a letter when `options`
 * maps letters to contents. Weights default to the paper's (λ_fmt 0.10,
 * λ_right 0.25, λ_rule 0.75, λ_cons 0.15); total ∈ [0, 1.2125] with them.
 * Throws an Error naming the field for a negative/non-finite weight or bad
 * referenceSteps; never throws on text.
 */
export function structReward({
  text,
  referenceSteps,
  gold,
  options,
  weights,
}: {
  text: string;
  referenceSteps: ReferenceInput;
  gold: string;
  options?: Record<string, string> | null;
  weights?: Partial<StructWeights>;
}): StructRewardResult {
  const w = weightsOf(weights);
  const reference = referenceValues(referenceSteps);
  if (typeof gold !== "string") throw new Error("structReward: gold must be a string");
  const d = structRewardParsed(parseTrace({ text }), reference, gold, options ?? undefined, w);
  return { total: d.total, fmt: d.fmt, right: d.right, rule: d.rule, cons: d.cons };
}

/** Variant scorer: StructReward for a group of rollouts of one prompt. */
export function scoreStructReward(
  prompt: TaskPrompt,
  texts: readonly string[],
  options: { weights?: Partial<StructWeights> } = {},
): GroupScore {
  const w = weightsOf(options.weights);
  const reference = referenceValues(prompt.referenceSteps);
  const { gold, options: opts } = goldOf(prompt);
  const rollouts = texts.map((text): RolloutScore => {
    const d = structRewardParsed(parseTrace({ text }), reference, gold, opts, w);
    return {
      total: d.total,
      components: { fmt: d.fmt, right: d.right, rule: d.rule, cons: d.cons },
      verifierPassed: d.right === 1,
      answer: d.answer,
    };
  });
  return { rollouts, judgeCalls: 0, judgeFailures: 0 };
}

// ---------------------------------------------------------------- recycling

export interface PointwiseExample {
  question: string;
  response: string;
  /** "Correct" | "Incorrect", label 1[a_out ≡ â] (StructReward §3.3). */
  target: "Correct" | "Incorrect";
  label: 0 | 1;
}

export interface PairwiseExample {
  question: string;
  responseA: string;
  responseB: string;
  /** Letter of the correct response. */
  target: "A" | "B";
}

function isCorrect(prompt: TaskPrompt, text: string): boolean {
  const parsed = parseTrace({ text });
  if (parsed.answerTruncated || parsed.finalAnswer === null) return false;
  const { gold, options } = goldOf(prompt);
  return answersEquivalent({ predicted: parsed.finalAnswer, gold, options });
}

/** `buildPointwiseExamples({prompt, texts})`: one "is this response correct?" example per rollout. */
export function buildPointwiseExamples({
  prompt,
  texts,
}: {
  prompt: TaskPrompt;
  texts: readonly string[];
}): PointwiseExample[] {
  return texts.map((response) => {
    const ok = isCorrect(prompt, response);
    return {
      question: prompt.question,
      response,
      target: ok ? "Correct" : "Incorrect",
      label: ok ? 1 : 0,
    };
  });
}

/**
 * `buildPairwiseExamples({prompt, texts, rng})`: every (correct, incorrect)
 * pair of the group, random A/B order, target = the correct one's letter;
 * same-label pairs excluded (StructReward §3.3).
 */
export function buildPairwiseExamples({
  prompt,
  texts,
  rng,
}: {
  prompt: TaskPrompt;
  texts: readonly string[];
  rng: Rng;
}): PairwiseExample[] {
  const labels = texts.map((t) => isCorrect(prompt, t));
  const out: PairwiseExample[] = [];
  for (let i = 0; i < texts.length; i++) {
    if (!labels[i]) continue;
    for (let j = 0; j < texts.length; j++) {
      if (labels[j]) continue;
      const correctFirst = rng() < 0.5;
      out.push({
        question: prompt.question,
        responseA: correctFirst ? texts[i] : texts[j],
        responseB: correctFirst ? texts[j] : texts[i],
        target: correctFirst ? "A" : "B",
      });
    }
  }
  return out;
}

export interface HardNegative {
  /** The rewritten response. */
  text: string;
  /** 1-based number of the rewritten step. */
  step: number;
  kind: "wrong-result" | "wrong-operation";
  /** Detect + locate task: target names the bad step. */
  locate: { question: string; response: string; target: string };
  /** Choose task: the correct version and the rewritten one in random order. */
  choose: PairwiseExample;
}

// `\boxed{…}` without inner braces, matched only where it starts (sticky).
const BRACE_FREE_BOX = /\\boxed\{([^{}]*)\}/y;

const OPERATION_SWAP: Record<string, string> = { "+": "-", "-": "+", "*": "+", "×": "+", "/": "*" };

function rewriteStep(stepText: string, kind: HardNegative["kind"], rng: Rng): string | null {
  if (kind === "wrong-operation") {
    const m = / ([+\-*×/]) /.exec(stepText);
    if (!m) return null;
    return (
      stepText.slice(0, m.index) +
      ` ${OPERATION_SWAP[m[1]]} ` +
      stepText.slice(m.index + m[0].length)
    );
  }
  // The step's last box, if it is brace-free and nothing after it starts
  // another `\boxed`: found from the last `\boxed{` by index (a lookahead
  // for a later box rescans the rest of the text from every box).
  const at = stepText.lastIndexOf("\\boxed{");
  if (at < 0) return null;
  BRACE_FREE_BOX.lastIndex = at;
  const m = BRACE_FREE_BOX.exec(stepText);
  if (!m || stepText.includes("\\boxed", at + m[0].length)) return null;
  const v = Number(m[1]);
  if (!Number.isFinite(v)) return null;
  const delta = [1, -1, 2, -2][Math.floor(rng() * 4)];
  const wrong = v + delta < 0 ? v + Math.abs(delta) : v + delta;
  return `${stepText.slice(0, m.index)}\\boxed{${wrong}}${stepText.slice(m.index + m[0].length)}`;
}

/** First index ≥ `from` in an ascending list, or -1 (binary search). */
function firstAtOrAfter(sorted: readonly number[] | undefined, from: number): number {
  if (!sorted) return -1;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < from) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length ? sorted[lo] : -1;
}

// `Step <digits>:` as written; occurrences cannot overlap (only the `S` starts one).
const STEP_LITERAL = /Step (\d+):/g;

/**
 * Where `Step N:` and `</think>` occur in a text, found in one pass, so
 * each lookup `step(N, from)` / `thinkClose(from)` equals
 * `text.indexOf("Step N:", from)` / `text.indexOf("</think>", from)` without
 * rescanning the text per step.
 */
function markerIndex(text: string): {
  step(n: number, from: number): number;
  thinkClose(from: number): number;
} {
  const steps = new Map<string, number[]>();
  STEP_LITERAL.lastIndex = 0;
  for (let m = STEP_LITERAL.exec(text); m !== null; m = STEP_LITERAL.exec(text)) {
    const list = steps.get(m[1]);
    if (list) list.push(m.index);
    else steps.set(m[1], [m.index]);
  }
  const closes: number[] = [];
  for (let i = text.indexOf("</think>"); i >= 0; i = text.indexOf("</think>", i + 1))
    closes.push(i);
  return {
    step: (n, from) => firstAtOrAfter(steps.get(String(n)), from),
    thinkClose: (from) => firstAtOrAfter(closes, from),
  };
}

/**
 * `makeHardNegative({prompt, text, rng})`: rewrites exactly one step of an
 * answer-correct, format-valid rollout (a wrong local result or a wrong
 * operation, StructReward §3.4). Returns null when the rollout does not
 * qualify or the rewrite does not leave exactly one changed step in a
 * response that still parses.
 */
export function makeHardNegative({
  prompt,
  text,
  rng,
}: {
  prompt: TaskPrompt;
  text: string;
  rng: Rng;
}): HardNegative | null {
  const parsed = parseTrace({ text });
  if (!strictFormatOk(parsed) || !isCorrect(prompt, text)) return null;
  const kinds: HardNegative["kind"][] =
    rng() < 0.5 ? ["wrong-result", "wrong-operation"] : ["wrong-operation", "wrong-result"];
  const stepOrder = shuffled(
    parsed.steps.map((_, k) => k),
    rng,
  );
  const at = markerIndex(text);
  for (const k of stepOrder) {
    for (const kind of kinds) {
      const marker = `Step ${k + 1}:`;
      const start = at.step(k + 1, k === 0 ? 0 : at.step(k, 0));
      if (start < 0) continue;
      const bodyStart = start + marker.length;
      const nextMarker = at.step(k + 2, bodyStart);
      const thinkEnd = at.thinkClose(bodyStart);
      const end = nextMarker >= 0 ? nextMarker : thinkEnd >= 0 ? thinkEnd : text.length;
      const body = text.slice(bodyStart, end);
      const rewritten = rewriteStep(body, kind, rng);
      if (rewritten === null || rewritten === body) continue;
      const candidate = text.slice(0, bodyStart) + rewritten + text.slice(end);
      const check = parseTrace({ text: candidate });
      if (!strictFormatOk(check) || check.stepCount !== parsed.stepCount) continue;
      const changed = check.steps.filter((s, i) => s.text !== parsed.steps[i].text).length;
      if (changed !== 1) continue;
      const correctFirst = rng() < 0.5;
      return {
        text: candidate,
        step: k + 1,
        kind,
        locate: { question: prompt.question, response: candidate, target: `Step ${k + 1}` },
        choose: {
          question: prompt.question,
          responseA: correctFirst ? text : candidate,
          responseB: correctFirst ? candidate : text,
          target: correctFirst ? "A" : "B",
        },
      };
    }
  }
  return null;
}
