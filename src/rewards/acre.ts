/**
 * Answer-Consistent RL (docs/reward-spec.md §5): the consistency reward between the
 * first answer and the answer re-asked with shuffled options and the same
 * trace, compared by option CONTENT, plus the optional length reward.
 */
import type { TaskPrompt } from "../tasks/types";
import { answersEquivalent } from "./equivalence";
import { contentAnswer } from "./metrics";
import { shuffled, type Rng } from "./rng";
import { requireNonNegative, type GroupScore, type RolloutScore } from "./rollout";
import { parseTrace } from "./trace";
import { goldOf, verifyParsed } from "./verifier";

/** Paper defaults α1 = 1, α2 = 0.9, α3 = 0.3 (ACRE §3, ablation Tab.). */
export const ACRE_DEFAULT_ALPHAS: readonly [number, number, number] = [1, 0.9, 0.3];
/** Paper length reward ω = 0.2 for 320–512 tokens (ACRE; scale to the lab's lengths). */
const ACRE_LENGTH_DEFAULT = { omega: 0.2, lMin: 320, lMax: 512 } as const;

function sameContent(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && answersEquivalent({ predicted: a, gold: b });
}

/**
 * `acreConsistency({first, second, gold, alphas = [1, 0.9, 0.3], options?, secondOptions?})`:
 * r_c = α1 if both agree and are correct; α2 if they disagree and exactly one
 * is correct; α3 if they agree and are both wrong; 0 otherwise (ACRE eq. 3).
 * Answers are compared by option content: a letter is mapped through
 * `options` (first pass) / `secondOptions` (shuffled second pass, default
 * `options`). `gold` is the correct content (or letter of `options`). A null
 * answer agrees with nothing and is wrong. Throws an Error naming `alphas`
 * unless it is three finite numbers ≥ 0.
 */
export function acreConsistency({
  first,
  second,
  gold,
  alphas = ACRE_DEFAULT_ALPHAS,
  options,
  secondOptions,
}: {
  first: string | null;
  second: string | null;
  gold: string;
  alphas?: readonly number[];
  options?: Record<string, string> | null;
  secondOptions?: Record<string, string> | null;
}): number {
  if (!Array.isArray(alphas) || alphas.length !== 3)
    throw new Error("acreConsistency: alphas must be [α1, α2, α3]");
  alphas.forEach((a, i) => {
    requireNonNegative(a, `alphas[${i}]`);
  });
  const a = contentAnswer(first, options);
  const b = contentAnswer(second, secondOptions ?? options);
  const y = contentAnswer(gold, options);
  const agree = sameContent(a, b);
  const corrA = sameContent(a, y);
  const corrB = sameContent(b, y);
  if (agree && corrA && corrB) return alphas[0];
  if (!agree && corrA !== corrB) return alphas[1];
  if (agree && !corrA && !corrB) return alphas[2];
  return 0;
}

/**
 * `acreLengthReward({correct, length, omega, lMin, lMax})`: +ω when correct
 * and lMin ≤ length ≤ lMax (ACRE; paper ω = 0.2, 320–512 tokens). Throws
 * naming the field for ω < 0 or lMin > lMax.
 */
export function acreLengthReward({
  correct,
  length,
  omega = ACRE_LENGTH_DEFAULT.omega,
  lMin = ACRE_LENGTH_DEFAULT.lMin,
  lMax = ACRE_LENGTH_DEFAULT.lMax,
}: {
  correct: boolean;
  length: number;
  omega?: number;
  lMin?: number;
  lMax?: number;
}): number {
  requireNonNegative(omega, "omega");
  if (!(lMin <= lMax)) throw new Error("acreLengthReward: lMin must be <= lMax");
  return correct && length >= lMin && length <= lMax ? omega : 0;
}

/** Shuffles option contents over the same letters (ACRE's S(q)); returns the new map. */
export function shuffleOptions(options: Record<string, string>, rng: Rng): Record<string, string> {
  const keys = Object.keys(options);
  const contents = shuffled(
    keys.map((k) => options[k]),
    rng,
  );
  return Object.fromEntries(keys.map((k, i) => [k, contents[i]]));
}

/**
 * Variant scorer: R_i = r_acc + r_fmt + r_c (+ length reward when `length`
 * is given), docs/reward-spec.md §5. `secondTexts[i]` is the second-pass answer text
 * of rollout i, asked with `secondOptions[i]`.
 */
export function scoreACRE(
  prompt: TaskPrompt,
  texts: readonly string[],
  second: { texts: readonly string[]; options: ReadonlyArray<Record<string, string> | null> },
  options: {
    alphas?: readonly number[];
    length?: { omega?: number; lMin: number; lMax: number };
  } = {},
): GroupScore {
  if (second.texts.length !== texts.length || second.options.length !== texts.length) {
    throw new Error("scoreACRE: second.texts and second.options need one entry per rollout");
  }
  const gold = goldOf(prompt);
  const goldContent = prompt.answer.content;
  const rollouts = texts.map((text, i): RolloutScore => {
    const parsed = parseTrace({ text });
    const ver = verifyParsed(parsed, gold);
    const rFmt = parsed.formatOk && !parsed.answerTruncated ? 1 : 0;
    const p2 = parseTrace({ text: second.texts[i] });
    const firstAnswer = ver.na ? null : ver.answer;
    const secondAnswer = p2.answerTruncated ? null : p2.finalAnswer;
    const rC = acreConsistency({
      first: firstAnswer,
      second: secondAnswer,
      gold: goldContent,
      alphas: options.alphas,
      options: gold.options,
      secondOptions: second.options[i] ?? gold.options,
    });
    const tokens = text.split(/\s+/).filter((t) => t.length > 0).length;
    const rLen = options.length
      ? acreLengthReward({ correct: ver.passed, length: tokens, ...options.length })
      : 0;
    return {
      total: ver.rVer + rFmt + rC + rLen,
      components: { rAcc: ver.rVer, rFmt, rC, rLen },
      verifierPassed: ver.passed,
      answer: ver.answer,
    };
  });
  return { rollouts, judgeCalls: 0, judgeFailures: 0 };
}

/**
 * ACRE's baseline scorer: R_i = r_acc + r_fmt (+ the length reward when
 * `length` is given), the terms ACRE's r_c is built on (ACRE §3: R = r_i +
 * r_c with r_i accuracy + format; eq. 7's length reward in training), so
 * ACRE − this isolates r_c (docs/reward-spec.md §5). r_fmt and r_len exactly
 * as in scoreACRE. No second pass.
 */
export function scoreAcreBaseline(
  prompt: TaskPrompt,
  texts: readonly string[],
  options: { length?: { omega?: number; lMin: number; lMax: number } } = {},
): GroupScore {
  const gold = goldOf(prompt);
  const rollouts = texts.map((text): RolloutScore => {
    const parsed = parseTrace({ text });
    const ver = verifyParsed(parsed, gold);
    const rFmt = parsed.formatOk && !parsed.answerTruncated ? 1 : 0;
    const tokens = text.split(/\s+/).filter((t) => t.length > 0).length;
    const rLen = options.length
      ? acreLengthReward({ correct: ver.passed, length: tokens, ...options.length })
      : 0;
    return {
      total: ver.rVer + rFmt + rLen,
      components: { rAcc: ver.rVer, rFmt, rLen },
      verifierPassed: ver.passed,
      answer: ver.answer,
    };
  });
  return { rollouts, judgeCalls: 0, judgeFailures: 0 };
}
