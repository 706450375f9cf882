/**
 * The `oracle-auditor` judge: the lab's judge until 2026-12-03, kept
 * selectable for the record (docs/reward-spec.md §2 "The lab's judges"; the
 * default is now the text auditor of ./text-auditor.ts). It knows the prompt's true step values and scores a trace by step
 * correctness, arithmetic validity, agreement of the final answer with the
 * last local result, and completeness. Noise makes it behave like an LLM
 * judge (lab choice, user-visible): per-candidate perception noise σ_j, a
 * per-call calibration offset σ_b for pointwise calls only, and a tie margin
 * δ for groupwise calls. It emits the JSON an LLM would; the scorers parse it
 * with the same robust parsers.
 */
import type { TaskPrompt } from "../tasks/types";
import { lastLocalResult } from "./consistency";
import { answersEquivalent } from "./equivalence";
import type { Judge } from "./grr";
import { gaussian, type Rng } from "./rng";
import { requireNonNegative } from "./rollout";
import { matchSteps, referenceValues } from "./step-matching";
import { parseTrace } from "./trace";
import { ARITHMETIC_STEP, evaluateChain } from "./step-arithmetic";

/** Rubric weights of the audit score (lab choice, docs/reward-spec.md §2). Sum = 1. */
export const AUDIT_WEIGHTS = {
  steps: 0.4,
  arithmetic: 0.2,
  agreement: 0.2,
  completeness: 0.2,
} as const;

export interface AuditorConfig {
  /**
   * Per-candidate perception noise σ_j (score units). Default 0.13: with
   * σ_b 0.17 and δ 0.15 the lab's judge is as unstable as GRR §4.3.4
   * measured its LLM judge (per-rollout reward variance 0.026 pointwise,
   * 0.016 groupwise; the lab: 0.0256 and 0.0158 on 32 × 8 cold-start
   * rollouts, `npm run stability -- --prompts 32 --sigma-j 0.11,0.12,0.13
   * --sigma-b 0.15,0.16,0.17,0.18`). Calibrated, not a paper constant.
   */
  sigmaJ: number;
  /** Per-call calibration offset σ_b, pointwise calls only. Default 0.17 (calibrated with σ_j, above). */
  sigmaB: number;
  /**
   * Groupwise tie margin δ: noisy scores closer than δ to a tier's best share
   * it. Default 0.15 (lab choice, kept when σ_j was calibrated: it was
   * about 2·√2·σ_j for the earlier σ_j 0.05, so equally good traces tie).
   */
  delta: number;
  /** Probability that a call returns an unparseable reply (failure injection). Default 0. */
  failureRate: number;
}

export const DEFAULT_AUDITOR: AuditorConfig = {
  sigmaJ: 0.13,
  sigmaB: 0.17,
  delta: 0.15,
  failureRate: 0,
};

export interface Audit {
  /** Noise-free rubric score in [0, 1]. */
  score: number;
  steps: number;
  arithmetic: number;
  agreement: number;
  completeness: number;
  /** Short human-readable notes, used as feedback/justification. */
  notes: string[];
}

/**
 * `auditTrace({prompt, text})`: the noise-free rubric score and its parts.
 * No valid final answer or no steps → score 0 ("missing or nonsense", GRR
 * App. B.1 anchor 0.0). Never throws on text.
 */
export function auditTrace({ prompt, text }: { prompt: TaskPrompt; text: string }): Audit {
  const parsed = parseTrace({ text });
  const notes: string[] = [];
  if (parsed.finalAnswer === null || parsed.answerTruncated || parsed.stepCount === 0) {
    return {
      score: 0,
      steps: 0,
      arithmetic: 0,
      agreement: 0,
      completeness: 0,
      notes: ["reasoning or answer missing"],
    };
  }
  const reference = referenceValues(prompt.referenceSteps);
  const match = matchSteps(
    parsed.steps.map((s) => s.boxed),
    reference,
  );
  const steps = match.count / parsed.stepCount;
  if (match.count < parsed.stepCount)
    notes.push(`${parsed.stepCount - match.count} step(s) with a wrong local result`);
  let checkable = 0;
  let valid = 0;
  for (const s of parsed.steps) {
    const m = ARITHMETIC_STEP.exec(s.text.replace(/^\s*Step\s*\d+\s*:/, ""));
    if (!m) continue;
    checkable++;
    const want = evaluateChain(m[1]);
    if (Number.isFinite(want) && answersEquivalent({ predicted: m[2], gold: String(want) }))
      valid++;
  }
  const arithmetic = checkable === 0 ? 1 : valid / checkable;
  if (valid < checkable) notes.push("arithmetic error");
  const last = lastLocalResult(parsed);
  const agreement =
    last !== null &&
    answersEquivalent({
      predicted: parsed.finalAnswer,
      gold: last,
      options: prompt.options ?? undefined,
    })
      ? 1
      : 0;
  if (!agreement) notes.push("final answer does not follow from the last step");
  const completeness = reference.length === 0 ? 1 : Math.min(1, match.count / reference.length);
  if (completeness < 1) notes.push("incomplete derivation");
  const w = AUDIT_WEIGHTS;
  const score =
    w.steps * steps +
    w.arithmetic * arithmetic +
    w.agreement * agreement +
    w.completeness * completeness;
  if (notes.length === 0) notes.push("clear and sound derivation");
  return { score, steps, arithmetic, agreement, completeness, notes };
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

function validateConfig(c: AuditorConfig): AuditorConfig {
  requireNonNegative(c.sigmaJ, "auditor.sigmaJ");
  requireNonNegative(c.sigmaB, "auditor.sigmaB");
  requireNonNegative(c.delta, "auditor.delta");
  requireNonNegative(c.failureRate, "auditor.failureRate");
  if (c.failureRate > 1) throw new Error("auditor.failureRate must be <= 1");
  return c;
}

/** A malformed reply of the kinds real judges produce (refusal, truncation). */
function garbled(rng: Rng, json: string): string {
  return rng() < 0.5
    ? "I am unable to evaluate these responses."
    : json.slice(0, Math.floor(json.length * 0.3));
}

/**
 * Tiers from noisy scores: sorted best first, a candidate joins the current
 * tier when its score is within δ of that tier's best (docs/reward-spec.md §2).
 * Returns dense ranks 1..M per candidate.
 */
export function tiersFromScores(scores: readonly number[], delta: number): number[] {
  const order = scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i);
  const ranks = new Array<number>(scores.length).fill(0);
  let tier = 0;
  let top = Infinity;
  for (const { s, i } of order) {
    if (tier === 0 || top - s >= delta) {
      tier++;
      top = s;
    }
    ranks[i] = tier;
  }
  return ranks;
}

/** Creates the rubric auditor judge. Throws an Error naming the field for a negative σ or δ. */
export function createAuditorJudge(
  config: Partial<AuditorConfig> = {},
): Judge & { config: AuditorConfig } {
  const cfg = validateConfig({ ...DEFAULT_AUDITOR, ...config });
  return {
    config: cfg,
    pointwise({ prompt, text, rng }) {
      const audit = auditTrace({ prompt, text });
      const offset = cfg.sigmaB * gaussian(rng); // this call's own standard
      const score = clamp01(audit.score + cfg.sigmaJ * gaussian(rng) + offset);
      const json = JSON.stringify({
        reasoning_feedback: audit.notes.join("; "),
        judge_score: Math.round(score * 1000) / 1000,
      });
      return cfg.failureRate > 0 && rng() < cfg.failureRate ? garbled(rng, json) : json;
    },
    groupwise({ prompt, texts, rng }) {
      const audits = texts.map((text) => auditTrace({ prompt, text }));
      // One call, one standard: no calibration offset, only perception noise.
      const noisy = audits.map((a) => a.score + cfg.sigmaJ * gaussian(rng));
      const ranks = tiersFromScores(noisy, cfg.delta);
      const json = JSON.stringify({
        solutions: audits.map((a, k) => ({
          index: k + 1,
          rank: ranks[k],
          justification: a.notes.join("; "),
          agreement_with_reference: a.agreement === 1 ? "agrees" : "disagrees",
          errors: a.notes.filter((n) => n !== "clear and sound derivation"),
        })),
      });
      return cfg.failureRate > 0 && rng() < cfg.failureRate ? garbled(rng, json) : json;
    },
  };
}
