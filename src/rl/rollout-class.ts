/**
 * The class of one training rollout (../settings/credit-table.ts
 * ROLLOUT_CLASSES, docs/reward-spec.md §6): what kind of answer it is, read
 * from the prompt and the rollout's text alone, so every variant's rollouts
 * are classed by one rule whatever its reward pays.
 */
import { judgeParsedConsistency } from "../rewards/consistency";
import { parseTrace, type ParsedTrace } from "../rewards/trace";
import { goldOf, verifyParsed } from "../rewards/verifier";
import type { RolloutClassKey } from "../settings/credit-table";
import type { TaskPrompt } from "../tasks/types";
import { reasoningMatchesReference } from "./eval-metrics";

// A letter closing the think block: `… is B`, `… (B)`, `… B.`. Anchored at the end; each
// try reads a bounded number of characters, so the scan stays linear.
const TRAILING_LETTER = /(?:^|\s)\(?([A-Za-z])\)?[.:]?$/;

/**
 * The option letter a trace names right before its `</think>` (the last
 * think block's last word, a single letter of `options`), or null. The lab's
 * form of ACRE §3.3's index binding ("thus the answer is (C)" at the end of
 * the reasoning): src/tasks/format.ts formatResponse `bound`.
 */
function traceLetter(
  parsed: ParsedTrace,
  options: Readonly<Record<string, string>>,
): string | null {
  if (!parsed.thinkClosed) return null;
  const last = parsed.thinkBlocks.at(-1) ?? "";
  const m = TRAILING_LETTER.exec(last);
  if (!m) return null;
  const letter = m[1].toUpperCase();
  return Object.hasOwn(options, letter) ? letter : null;
}

/** What the class rule and the credit contrasts read of one rollout. */
export interface RolloutFacts {
  cls: RolloutClassKey;
  /** The verifier passes (letters by option content). */
  right: boolean;
  /** The reasoning is the reference solution's (reasoningMatchesReference). */
  referenceSteps: boolean;
  /** The answer is not the trace's own conclusion (GRR §4.1 "inconsistent"). */
  unsupported: boolean;
  /** The trace names an option letter before `</think>` and the answer copies it. */
  indexBound: boolean;
}

/**
 * `rolloutFacts(prompt, text)`: the rollout's class and the facts it is
 * decided from. The class is the first of these that applies
 * (docs/reward-spec.md §6; ROLLOUT_CLASSES):
 *   no-answer       no final answer parsed, or it was cut off (GRR §4.1 N/A)
 *   unsupported     the answer is not the trace's last boxed step result, or the
 *                   trace boxes none (GRR §4.1 inconsistency, the judgment of
 *                   ../rewards/consistency.ts with its default for no conclusion)
 *   index-bound     multiple choice: the trace ends with an option letter before
 *                   `</think>` and the final answer is that letter (ACRE §3.3)
 *   flawed-right    right answer, reasoning not the reference's (ACRE §1 WR–CA);
 *                   the steps conclude it, so no guess (a right guess is unsupported)
 *   faithful-right  right answer, reasoning the reference's
 *   faithful-wrong  wrong answer that the trace's last step concludes
 * "Right" is the verifier's (letters by option content). Never throws on text.
 */
export function rolloutFacts(
  prompt: Pick<TaskPrompt, "answer" | "options" | "referenceSteps">,
  text: string,
): RolloutFacts {
  const parsed = parseTrace({ text });
  const judgment = judgeParsedConsistency(parsed, { options: prompt.options }).judgment;
  const right = verifyParsed(parsed, goldOf(prompt)).passed;
  const referenceSteps = reasoningMatchesReference(parsed, prompt.referenceSteps);
  let indexBound = false;
  if (prompt.options && judgment !== "na") {
    const letter = traceLetter(parsed, prompt.options);
    const answer = parsed.finalAnswer
      ?.trim()
      .replace(/^\((.)\)$/, "$1")
      .toUpperCase();
    indexBound = letter !== null && answer === letter;
  }
  const unsupported = judgment === "inconsistent";
  const cls: RolloutClassKey =
    judgment === "na"
      ? "no-answer"
      : unsupported
        ? "unsupported"
        : indexBound
          ? "index-bound"
          : !right
            ? "faithful-wrong"
            : referenceSteps
              ? "faithful-right"
              : "flawed-right";
  return { cls, right, referenceSteps, unsupported, indexBound };
}

/** The class of a rollout (rolloutFacts' `cls`). Never throws on text. */
export function rolloutClass(
  prompt: Pick<TaskPrompt, "answer" | "options" | "referenceSteps">,
  text: string,
): RolloutClassKey {
  return rolloutFacts(prompt, text).cls;
}
