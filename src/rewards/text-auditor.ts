/**
 * The `text-auditor` judge (docs/reward-spec.md §2 "The lab's judges", design
 * of 2026-12-03): GRR App. B.1's pointwise and groupwise judges as rubric
 * auditors that read only what those instructions give a text-only judge.
 *
 * - Pointwise reads the question text and one response (no reference
 *   answer, no image, no true digits) and returns one of the instruction's
 *   five anchored levels 1.0 / 0.8 / 0.5 / 0.2 / 0.0.
 * - Groupwise reads the question, the reference answer and all
 *   verifier-passed candidates in one call (no image, no true intermediate
 *   values) and ranks them by level, ties kept (GRR §3.2).
 *
 * The rubric functions take a *view* (question, options, and for groupwise
 * the reference answer), never the prompt: nothing here can read the true
 * step values. Noise: `level + σ_j·z_text + σ_b·z_call`, snapped to the
 * nearest anchor; z_call drawn once per call, z_text once per distinct text
 * (white space collapsed) per call. It emits the JSON an LLM would; the
 * scorers parse it with the same parsers.
 */
import type { TaskPrompt } from "../tasks/types";
import { answersEquivalent } from "./equivalence";
import type { Judge } from "./grr";
import { gaussian, type Rng } from "./rng";
import { requireNonNegative } from "./rollout";
import { checkableStep, numbersIn } from "./step-arithmetic";
import { parseTrace } from "./trace";

/** The anchored levels of GRR App. B.1's pointwise rubric, best first. */
export const RUBRIC_LEVELS = [1, 0.8, 0.5, 0.2, 0] as const;
export type RubricLevel = (typeof RUBRIC_LEVELS)[number];

/** What the pointwise judge reads of a prompt (GRR App. B.1 slot `{problem}`). */
export interface PointwiseView {
  /** The question text as the policy read it (an answer hint included, when it has one). */
  question: string;
  /** Option letter → content; null for an open-ended question. */
  options: Readonly<Record<string, string>> | null;
}

/** What the groupwise judge reads: the pointwise view and the reference answer (slot `{reference_answer}`). */
interface GroupwiseView extends PointwiseView {
  /** The reference answer: its letter (multiple choice; null otherwise) and content. */
  reference: { letter: string | null; content: string };
}

/** The pointwise view of a prompt: its question and options, nothing else. */
export function pointwiseView(prompt: Pick<TaskPrompt, "question" | "options">): PointwiseView {
  return { question: prompt.question, options: prompt.options };
}

/** The groupwise view of a prompt: question, options and the reference answer. */
function groupwiseView(prompt: Pick<TaskPrompt, "question" | "options" | "answer">): GroupwiseView {
  return {
    question: prompt.question,
    options: prompt.options,
    reference: { letter: prompt.answer.letter, content: prompt.answer.content },
  };
}

/** What a text-only reader finds in one response (docs/reward-spec.md §2). */
export interface TextFindings {
  /** No final answer, an answer cut off, or no step. */
  missing: boolean;
  /** Recomputable steps whose boxed result is not ≡ the value of their expression. */
  arithmeticErrors: number;
  /** The final answer (letter → option content) is not ≡ the last local result. */
  unfollowed: boolean;
  /** A computing step uses a number no earlier step states and the question lacks, or reads are never combined. */
  incomplete: boolean;
}

/** A text audit: the findings, their noise-free level and short notes (feedback text). */
export interface TextAudit {
  findings: TextFindings;
  level: RubricLevel;
  notes: string[];
}

/**
 * The level of a set of findings (lab choice, docs/reward-spec.md §2):
 * missing 0.0; two or more major issues (arithmetic errors and
 * `unfollowed`) 0.2; one 0.5; only `incomplete` 0.8; none 1.0.
 */
function levelOf(f: TextFindings): RubricLevel {
  if (f.missing) return 0;
  const major = f.arithmeticErrors + (f.unfollowed ? 1 : 0);
  if (major >= 2) return 0.2;
  if (major === 1) return 0.5;
  return f.incomplete ? 0.8 : 1;
}

/** Same numeric value (relative tolerance 1e-6, the lab's answer equivalence). */
function sameNumber(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * `textAudit(view, text)`: what a text-only reader finds in one response and
 * its noise-free level. Reads the response and the view only. Never throws
 * on text; linear in the text's length (parseTrace, one pass over the steps).
 */
export function textAudit(view: PointwiseView, text: string): TextAudit {
  const parsed = parseTrace({ text });
  if (parsed.finalAnswer === null || parsed.answerTruncated || parsed.stepCount === 0) {
    const findings = { missing: true, arithmeticErrors: 0, unfollowed: false, incomplete: false };
    return { findings, level: 0, notes: ["reasoning or answer missing"] };
  }
  const notes: string[] = [];
  const given = numbersIn(view.question);
  const stated: number[] = []; // the numeric results of the steps so far
  let arithmeticErrors = 0;
  let unsupported = false;
  let reads = 0;
  let computes = 0;
  for (const s of parsed.steps) {
    const c = checkableStep(s.text, { extrema: true });
    if (c) {
      computes++;
      const right =
        Number.isFinite(c.value) &&
        answersEquivalent({ predicted: c.result, gold: String(c.value) });
      if (!right) arithmeticErrors++;
      for (const x of c.operands) {
        const known =
          stated.some((v) => sameNumber(v, x)) || given.some((v) => sameNumber(v, Math.abs(x)));
        if (!known) unsupported = true;
      }
    } else if (s.boxed !== null) reads++;
    const v = s.boxed === null ? Number.NaN : Number(s.boxed.trim());
    if (Number.isFinite(v)) stated.push(v);
  }
  if (arithmeticErrors > 0) notes.push(`${arithmeticErrors} step(s) with an arithmetic error`);
  let last: string | null = null;
  for (let i = parsed.steps.length - 1; i >= 0 && last === null; i--) last = parsed.steps[i].boxed;
  const unfollowed =
    last === null ||
    !answersEquivalent({
      predicted: parsed.finalAnswer,
      gold: last,
      options: view.options ?? undefined,
    });
  if (unfollowed) notes.push("final answer does not follow from the last step");
  const incomplete = unsupported || (reads >= 2 && computes === 0);
  if (unsupported) notes.push("a step uses a value no earlier step states");
  else if (incomplete) notes.push("values read but never combined");
  const findings = { missing: false, arithmeticErrors, unfollowed, incomplete };
  if (notes.length === 0) notes.push("clear and sound derivation");
  return { findings, level: levelOf(findings), notes };
}

/** The anchored level nearest to x (x clamped to [0, 1] first; boundaries 0.1, 0.35, 0.65, 0.9). */
export function snapToLevel(x: number): RubricLevel {
  const v = Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
  let best: RubricLevel = RUBRIC_LEVELS[0];
  for (const l of RUBRIC_LEVELS) if (Math.abs(v - l) < Math.abs(v - best)) best = l;
  return best;
}

/** Texts a reader cannot tell apart share one key: white space collapsed, ends trimmed. */
function readerKey(text: string): string {
  return (typeof text === "string" ? text : "").replace(/\s+/g, " ").trim();
}

/** Dense ranks (1 = best) of levels, best first; equal levels share a rank (GRR §3.2, ties kept). */
export function ranksOfLevels(levels: readonly number[]): number[] {
  const distinct = [...new Set(levels)].sort((a, b) => b - a);
  return levels.map((l) => distinct.indexOf(l) + 1);
}

export interface TextAuditorConfig {
  /**
   * Perception noise σ_j (level units), one draw per distinct text per call.
   * Default 0.25, from the calibration of docs/reward-spec.md §2 (the grid
   * point nearest GRR §4.3.4's 0.026 / 0.016 on draws 201–205: pooled
   * 0.0325 pointwise, 0.0045 groupwise; no grid point came nearer the
   * groupwise figure without a far larger pointwise one).
   */
  sigmaJ: number;
  /**
   * Calibration offset σ_b (level units), one draw per call, shared by
   * everything the call judges. Default 0 (the same calibration chose it).
   */
  sigmaB: number;
  /** Probability that a call returns an unparseable reply (failure injection). Default 0. */
  failureRate: number;
}

export const DEFAULT_TEXT_AUDITOR: TextAuditorConfig = {
  sigmaJ: 0.25,
  sigmaB: 0,
  failureRate: 0,
};

function validate(c: TextAuditorConfig): TextAuditorConfig {
  requireNonNegative(c.sigmaJ, "judge.sigmaJ");
  requireNonNegative(c.sigmaB, "judge.sigmaB");
  requireNonNegative(c.failureRate, "judge.failureRate");
  if (c.failureRate > 1) throw new Error("judge.failureRate must be <= 1");
  return c;
}

/** A malformed reply of the kinds real judges produce (refusal, truncation). */
function garbled(rng: Rng, json: string): string {
  return rng() < 0.5
    ? "I am unable to evaluate these responses."
    : json.slice(0, Math.floor(json.length * 0.3));
}

/** 3 decimals, as a judge writes a score. */
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Creates the text auditor. Pointwise: one call per response, draws z_call
 * then z_text (two normals per call, whatever the σ's). Groupwise: z_call,
 * then one z_text per distinct text in order of first appearance. A
 * candidate whose final answer is not ≡ the reference is ranked below every
 * one that matches (GRR App. B.1 principle 2: its level is capped at 0.2
 * before the noise).
 * @throws Error naming `judge.sigmaJ`, `judge.sigmaB` or `judge.failureRate`
 *   for a negative or non-finite value (failureRate also above 1).
 */
export function createTextAuditor(
  config: Partial<TextAuditorConfig> = {},
): Judge & { config: TextAuditorConfig } {
  const cfg = validate({ ...DEFAULT_TEXT_AUDITOR, ...config });
  return {
    config: cfg,
    pointwise({ prompt, text, rng }) {
      const audit = textAudit(pointwiseView(prompt), text);
      const zCall = gaussian(rng);
      const zText = gaussian(rng);
      const score = snapToLevel(audit.level + cfg.sigmaJ * zText + cfg.sigmaB * zCall);
      const json = JSON.stringify({
        reasoning_feedback: audit.notes.join("; "),
        judge_score: score,
      });
      return cfg.failureRate > 0 && rng() < cfg.failureRate ? garbled(rng, json) : json;
    },
    groupwise({ prompt, texts, rng }) {
      const view = groupwiseView(prompt);
      const zCall = gaussian(rng); // this call's one standard, shared by every candidate
      const perceived = new Map<string, number>();
      const solutions = texts.map((text, k) => {
        const key = readerKey(text);
        const audit = textAudit(view, text);
        const final = parseTrace({ text }).finalAnswer;
        const agreement =
          final === null
            ? "unknown"
            : answersEquivalent({
                  predicted: final,
                  gold: view.reference.letter ?? view.reference.content,
                  options: view.options ?? undefined,
                })
              ? "match"
              : "different";
        let level = perceived.get(key);
        if (level === undefined) {
          const base = agreement === "match" ? audit.level : Math.min(audit.level, 0.2);
          level = snapToLevel(base + cfg.sigmaJ * gaussian(rng) + cfg.sigmaB * zCall);
          perceived.set(key, level);
        }
        return { k, level, audit, agreement };
      });
      const ranks = ranksOfLevels(solutions.map((s) => s.level));
      const json = JSON.stringify({
        solutions: solutions.map((s) => ({
          index: s.k + 1,
          rank: ranks[s.k],
          justification: `${s.audit.notes.join("; ")} (level ${round3(s.level)})`,
          agreement_with_reference: s.agreement,
          errors: s.audit.notes.filter((n) => n !== "clear and sound derivation"),
        })),
      });
      return cfg.failureRate > 0 && rng() < cfg.failureRate ? garbled(rng, json) : json;
    },
  };
}
