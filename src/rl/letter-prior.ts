/**
 * An option-position prior on held-out multiple-choice answers: the largest
 * share any one option letter takes among the answers that name a letter.
 * The held-out prompts place the right option uniformly (TaskConfig.optionSkew
 * never applies to them), so a policy that reads the image answers each
 * letter about 1/numOptions of the time; one that learned "when unsure,
 * answer A" from skewed training prompts answers A more. Source: ACRE §1
 * ("option-index priors, positional heuristics … that happened to yield the
 * right letter") and §3.2 ("models may unexpectedly learn option priors");
 * the statistic is a lab choice (it needs no knowledge of which letter).
 */
import { extractOptionLetter } from "../rewards/option-letter";
import type { TaskPrompt } from "../tasks/types";

/**
 * How many answers of `texts` name each option letter of their prompt, and
 * how many name one at all (the shares' denominator). Linear in the texts.
 * @throws Error when the two arrays differ in length (`what` names the caller).
 */
function letterCounts(
  what: string,
  prompts: readonly Pick<TaskPrompt, "options">[],
  texts: readonly string[],
): { counts: Map<string, number>; named: number } {
  if (prompts.length !== texts.length)
    throw new Error(`${what}: ${prompts.length} prompts but ${texts.length} texts`);
  const counts = new Map<string, number>();
  let named = 0;
  prompts.forEach((p, i) => {
    if (!p.options) return;
    const letter = extractOptionLetter({
      text: texts[i],
      letters: Object.keys(p.options).join(""),
    });
    if (letter === null) return;
    named++;
    counts.set(letter, (counts.get(letter) ?? 0) + 1);
  });
  return { counts, named };
}

/**
 * Top-letter share of `texts` answering `prompts` (aligned, same length):
 * max over letters L of #(answers = L) / #(multiple-choice answers naming a
 * letter of their prompt's options). Null when no multiple-choice answer
 * names a letter (open-ended prompts, or none parsed). Linear in the texts.
 * @throws Error when the two arrays differ in length.
 */
export function topLetterShare(
  prompts: readonly Pick<TaskPrompt, "options">[],
  texts: readonly string[],
): number | null {
  const { counts, named } = letterCounts("topLetterShare", prompts, texts);
  return named === 0 ? null : Math.max(...counts.values()) / named;
}

/**
 * Skew-letter share: #(answers = `letter`) / #(multiple-choice answers naming
 * a letter), `letter` being the one the training prompts favour
 * (TaskConfig.skewLetter, where TaskConfig.optionSkew > 0). Unlike the top
 * letter it follows the prior the skew pays even while the cold start's own
 * favourite letter is another. Null as topLetterShare. Linear in the texts.
 * @throws Error when the two arrays differ in length.
 */
export function letterShare(
  prompts: readonly Pick<TaskPrompt, "options">[],
  texts: readonly string[],
  letter: string,
): number | null {
  const { counts, named } = letterCounts("letterShare", prompts, texts);
  return named === 0 ? null : (counts.get(letter) ?? 0) / named;
}
