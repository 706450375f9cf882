/**
 * OSCR (ACRE eq. 2) and what it is made of, on the held-out multiple-choice
 * prompts (docs/reward-spec.md §5.2): the share of index-bound traces, OSCR
 * among bound and among free traces, and OSCR over the re-asks that moved the
 * first answer's letter. CPU, in the trainer worker or the CLI.
 *
 * Why the breakdown: a bound trace (`… is A </think>`) whose re-ask copies
 * the letter agrees exactly when the permutation leaves that letter's content
 * in place (5 of the 23 non-identity permutations of four options), a free
 * trace re-does the option check and agrees almost always, so OSCR alone is
 * about 5/23 + (1 − 5/23)·(share of free traces) and counts which form the
 * policy writes. Over the re-asks that moved the first answer's content to
 * another letter, copying the letter never agrees: no 5/23 floor.
 */
import { answersEquivalent, contentAnswer, isIndexBound, parseTrace } from "../rewards/index";
import type { TaskPrompt } from "../tasks/types";

/** One first answer and its re-ask (null: not re-asked, counted as changed). */
export interface ReaskPair {
  /** The first response's text. */
  text: string;
  /** The first pass's options (letter → content). */
  options: Readonly<Record<string, string>>;
  /** The right option's content. */
  gold: string;
  /** The re-asked response's text and its shuffled options; null when not re-asked. */
  reask: { text: string; options: Readonly<Record<string, string>> } | null;
}

/**
 * The option-shuffle metrics of `pairs`, rates in [0, 1]:
 *   oscr       agreeing pairs / pairs (ACRE eq. 2; a pair without a re-ask or
 *              without an answer disagrees)
 *   boundRate  pairs whose first text is index-bound (isIndexBound) / pairs
 *   oscrBound  oscr among the bound pairs (absent when none is bound)
 *   oscrFree   oscr among the others (absent when every pair is bound)
 *   accBound   first answers right among the bound pairs (absent when none)
 *   accFree    first answers right among the others (absent when none)
 *   oscrMoved  oscr among the re-asked pairs whose first answer names an
 *              option whose content sits at another letter after the shuffle
 *              (absent when none did)
 * Lab metrics beside ACRE eq. 2 (docs/reward-spec.md §5.2). Empty → {}.
 * Linear in the texts; never throws on model text.
 */
export function optionShuffleMetrics(pairs: readonly ReaskPair[]): {
  oscr?: number;
  boundRate?: number;
  oscrBound?: number;
  oscrFree?: number;
  oscrMoved?: number;
  accBound?: number;
  accFree?: number;
} {
  if (pairs.length === 0) return {};
  const tally = { all: [0, 0], bound: [0, 0], free: [0, 0], moved: [0, 0] };
  const right = { bound: 0, free: 0 };
  for (const p of pairs) {
    const letters = Object.keys(p.options).join("");
    const first = parseTrace({ text: p.text });
    // As evalMetrics' oscr (ACRE eq. 2 as the lab computes it): the parsed final answers.
    const a = contentAnswer(first.finalAnswer, p.options);
    let agree = false;
    let moved = false;
    if (p.reask) {
      const second = parseTrace({ text: p.reask.text });
      const b = contentAnswer(second.finalAnswer, p.reask.options);
      agree = a !== null && b !== null && answersEquivalent({ predicted: a, gold: b });
      // The letter that showed the first answer's content; moved when the shuffle put other content there.
      const letter =
        a === null
          ? undefined
          : Object.keys(p.options).find((l) =>
              answersEquivalent({ predicted: p.options[l], gold: a }),
            );
      moved =
        letter !== undefined &&
        p.reask.options[letter] !== undefined &&
        !answersEquivalent({ predicted: p.reask.options[letter], gold: a as string });
    }
    const isBound = isIndexBound({ text: p.text, letters });
    const form = isBound ? tally.bound : tally.free;
    if (a !== null && answersEquivalent({ predicted: a, gold: p.gold }))
      right[isBound ? "bound" : "free"]++;
    for (const t of moved ? [tally.all, form, tally.moved] : [tally.all, form]) {
      t[0] += agree ? 1 : 0;
      t[1] += 1;
    }
  }
  const rate = ([k, n]: number[]) => (n > 0 ? { v: k / n } : null);
  const out: ReturnType<typeof optionShuffleMetrics> = {
    oscr: tally.all[0] / tally.all[1],
    boundRate: tally.bound[1] / tally.all[1],
  };
  const bound = rate(tally.bound);
  const free = rate(tally.free);
  const moved = rate(tally.moved);
  if (bound) {
    out.oscrBound = bound.v;
    out.accBound = right.bound / tally.bound[1];
  }
  if (free) {
    out.oscrFree = free.v;
    out.accFree = right.free / tally.free[1];
  }
  if (moved) out.oscrMoved = moved.v;
  return out;
}

/**
 * The pairs of `prompts` (only the multiple-choice ones, in order) from the
 * first texts and the re-ask aligned with the prompts (null entries: not
 * re-asked).
 * @throws Error when the arrays differ in length.
 */
export function reaskPairs(
  prompts: readonly Pick<TaskPrompt, "options" | "answer">[],
  texts: readonly string[],
  reask: {
    options: ReadonlyArray<Readonly<Record<string, string>> | null>;
    texts: ReadonlyArray<string | null>;
  },
): ReaskPair[] {
  if (texts.length !== prompts.length || reask.texts.length !== prompts.length)
    throw new Error(
      `reaskPairs: ${prompts.length} prompts, ${texts.length} texts, ${reask.texts.length} re-asks`,
    );
  return prompts.flatMap((p, i) => {
    if (!p.options) return [];
    const t = reask.texts[i];
    const o = reask.options[i];
    return [
      {
        text: texts[i],
        options: p.options,
        gold: p.answer.content,
        reask:
          t !== null && t !== undefined && o !== null && o !== undefined
            ? { text: t, options: o }
            : null,
      },
    ];
  });
}
