/**
 * The outcome verifier `r_ver(y) = 1[Verify(a, a*)]` (docs/reward-spec.md §0; GRR
 * eq. 1). A letter answer is mapped to its option content; the correct
 * content without a letter also passes (lab choice, docs/reward-spec.md §0). A
 * cut-off answer is N/A and never passes.
 */
import type { TaskPrompt } from "../tasks/types";
import { answersEquivalent } from "./equivalence";
import { parseTrace, type ParsedTrace } from "./trace";

/** What a prompt's answer is compared against. */
export interface GoldAnswer {
  /** The option letter for multiple choice, else the content. */
  gold: string;
  /** Letter → content, or undefined for open-ended prompts. */
  options: Record<string, string> | undefined;
}

/** Gold of a prompt: its letter when it has options, else its content. */
export function goldOf(prompt: Pick<TaskPrompt, "answer" | "options">): GoldAnswer {
  const options =
    prompt.options && Object.keys(prompt.options).length > 0 ? prompt.options : undefined;
  const gold = options && prompt.answer.letter ? prompt.answer.letter : prompt.answer.content;
  return { gold, options };
}

type VerdictReason = "correct" | "wrong" | "no-answer" | "truncated";

export interface VerifierResult {
  /** r_ver ∈ {0, 1}. */
  rVer: 0 | 1;
  passed: boolean;
  /** The final answer as read (even when truncated), or null. */
  answer: string | null;
  /** No valid final answer (missing or cut off): N/A for the metrics. */
  na: boolean;
  reason: VerdictReason;
}

/** Verdict from an already parsed trace (avoids parsing twice). */
export function verifyParsed(parsed: ParsedTrace, gold: GoldAnswer): VerifierResult {
  const answer = parsed.finalAnswer;
  if (parsed.answerTruncated)
    return { rVer: 0, passed: false, answer, na: true, reason: "truncated" };
  if (answer === null) return { rVer: 0, passed: false, answer, na: true, reason: "no-answer" };
  const passed = answersEquivalent({ predicted: answer, gold: gold.gold, options: gold.options });
  return { rVer: passed ? 1 : 0, passed, answer, na: false, reason: passed ? "correct" : "wrong" };
}

/**
 * `verifyRollout({text, prompt})`: r_ver of one rollout text against the
 * prompt's ground truth. Never throws on text.
 */
export function verifyRollout({
  text,
  prompt,
}: {
  text: string;
  prompt: Pick<TaskPrompt, "answer" | "options">;
}): VerifierResult {
  return verifyParsed(parseTrace({ text }), goldOf(prompt));
}
