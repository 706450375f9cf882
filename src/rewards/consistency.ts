/**
 * Per-response reasoning–answer inconsistency judgment (GRR §4.1 "Reasoning-
 * Answer Inconsistency Judge"; docs/reward-spec.md §2 Metrics): (i) the trace's
 * conclusion = its last local result, (ii) the final answer with letters
 * mapped to option contents, (iii) compare with `≡`, (iv) N/A without a
 * valid final answer.
 */
import { answersEquivalent } from "./equivalence";
import { parseTrace, type ParsedTrace } from "./trace";

export type ConsistencyJudgment = "consistent" | "inconsistent" | "na";

export interface ConsistencyResult {
  judgment: ConsistencyJudgment;
  /** Last local result of the trace, or null. */
  conclusion: string | null;
  finalAnswer: string | null;
}

export interface ConsistencyOptions {
  /** Letter → content map of the prompt (for letter answers). */
  options?: Record<string, string> | null;
  /**
   * Verdict for a valid final answer whose trace implies no conclusion (no
   * boxed local result). Default "inconsistent": the trace "does not justify
   * the boxed answer" (GRR §4.1); lab choice, docs/reward-spec.md §2.
   */
  noConclusion?: "inconsistent" | "na";
}

/** The last parseable local result of a trace (docs/reward-spec.md §3 a_reasoned), or null. */
export function lastLocalResult(parsed: ParsedTrace): string | null {
  for (let i = parsed.steps.length - 1; i >= 0; i--) {
    const b = parsed.steps[i].boxed;
    if (b !== null) return b;
  }
  return null;
}

/** Judgment from an already parsed trace. */
export function judgeParsedConsistency(
  parsed: ParsedTrace,
  opts: ConsistencyOptions = {},
): ConsistencyResult {
  const finalAnswer = parsed.finalAnswer;
  const conclusion = lastLocalResult(parsed);
  if (finalAnswer === null || parsed.answerTruncated)
    return { judgment: "na", conclusion, finalAnswer };
  if (conclusion === null) {
    return {
      judgment: opts.noConclusion === "na" ? "na" : "inconsistent",
      conclusion,
      finalAnswer,
    };
  }
  const same = answersEquivalent({
    predicted: finalAnswer,
    gold: conclusion,
    options: opts.options ?? undefined,
  });
  return { judgment: same ? "consistent" : "inconsistent", conclusion, finalAnswer };
}

/**
 * `judgeConsistency({text, options?, noConclusion?})`: "consistent",
 * "inconsistent" or "na" for one response. Never throws on text.
 */
export function judgeConsistency({
  text,
  ...opts
}: { text: string } & ConsistencyOptions): ConsistencyResult {
  if (
    opts.noConclusion !== undefined &&
    opts.noConclusion !== "inconsistent" &&
    opts.noConclusion !== "na"
  ) {
    throw new Error(`judgeConsistency: noConclusion must be "inconsistent" or "na"`);
  }
  return judgeParsedConsistency(parseTrace({ text }), opts);
}
