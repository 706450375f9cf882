/**
 * The prefill plan of one Generator.generate call (src/model/generate.ts):
 * which positions of each sequence the prefill runs, in three segments, and
 * which of them a group of G sequences (GeneratorOptions.groupSize) shares.
 *
 *   patches  positions [0, P): once per group (the G images of a group are
 *            equal: a caller's promise, checked), else once per sequence;
 *   prompt   positions [P + lead, T0 − 1): the prompt without the `lead`
 *            leading columns that are PAD in every sequence (PAD keys are
 *            masked and no later row reads a PAD row, so leaving them out
 *            changes no value) and without its last column; once per group
 *            when the G prompts of every group are equal too, else once per
 *            sequence;
 *   tail     positions [T0 − 1, T0 + forced): per sequence, the last prompt
 *            column and the first prefilled[n] ≤ forced tokens of the
 *            sequence's forced prefix, filling the KV cache in the same pass.
 *            Rows past prefilled[n] are placeholders (PAD text): their cache
 *            slots are written again by the decode steps before any query
 *            reads them, and their outputs are not read.
 *
 * Each segment reads the keys and values of the earlier ones from the cache,
 * so the logits, tokens and logprobs are those of running every position
 * (model semantics: src/model/reference.ts). Lab choice (issue 25 item 6,
 * issue 29 item 1): the prefix a group shares is computed once and the
 * forced tokens cost one batched pass instead of one decode step each.
 */

/** What generate() prefills (see the file header). */
export interface PrefillPlan {
  /** Leading prompt columns left out: PAD in every sequence, at most promptLen − 1. */
  lead: number;
  /** The patches run once per group (G > 1). */
  shareImages: boolean;
  /** The prompt runs once per group (G > 1 and every group's prompts are equal). */
  sharePrompts: boolean;
  /** The largest prefilled count: the tail segment has forced + 1 rows per sequence. */
  forced: number;
  /** [N] forced tokens prefilled per sequence (the decode steps start at column prefilled[n]). */
  prefilled: Int32Array;
}

/** Inputs of prefillPlan; shapes as GenerateOptions (N sequences). */
export interface PrefillPlanInputs {
  /** Sequences N. */
  n: number;
  /** Sequences per group G (divides N). */
  groupSize: number;
  promptLen: number;
  /** Floats per image (H·W·C). */
  pixels: number;
  /** [N, pixels]. */
  images: Float32Array;
  /** [N, promptLen], left-padded with padId. */
  promptTokens: Int32Array;
  padId: number;
  eosId: number;
  /** Per sequence, the forced prefix (null or empty: none). */
  forcedPrefix: ReadonlyArray<ArrayLike<number> | null> | null;
  /** New tokens of the call M: at most M − 1 forced tokens are prefilled (a column is left to sample). */
  maxNew: number;
  /** Prefill the forced tokens (false: every forced token goes through a decode step). */
  prefillForced: boolean;
  /** Most forced tokens per sequence the tail segment holds (its buffers' rows / N − 1). */
  maxForced: number;
}

/**
 * The plan of one call (see the file header). Linear in the input sizes.
 * Forced tokens are prefilled up to the first forced EOS (exclusive: the
 * sampling kernel ends the sequence there), M − 1 and maxForced.
 * @throws Error when groupSize > 1 and two images of a group differ.
 */
export function prefillPlan(a: PrefillPlanInputs): PrefillPlan {
  const { n, groupSize: G, promptLen, pixels, images, promptTokens } = a;
  let sharePrompts = G > 1;
  for (let s = 0; s < n; s++) {
    const first = s - (s % G);
    if (first === s) continue;
    for (let i = 0; i < pixels; i++) {
      if (images[s * pixels + i] !== images[first * pixels + i])
        throw new Error(
          `generate: groupSize ${G}: the image of sequence ${s} differs from sequence ${first}'s (sequences of a group must share their image)`,
        );
    }
    if (!sharePrompts) continue;
    for (let i = 0; i < promptLen; i++) {
      if (promptTokens[s * promptLen + i] !== promptTokens[first * promptLen + i]) {
        sharePrompts = false;
        break;
      }
    }
  }
  let lead = promptLen - 1;
  for (let s = 0; s < n && lead > 0; s++) {
    let c = 0;
    while (c < lead && promptTokens[s * promptLen + c] === a.padId) c++;
    lead = c;
  }
  const prefilled = new Int32Array(n);
  let forced = 0;
  if (a.prefillForced && a.forcedPrefix) {
    const cap = Math.max(0, Math.min(a.maxNew - 1, a.maxForced));
    for (let s = 0; s < n; s++) {
      const pre = a.forcedPrefix[s];
      if (!pre) continue;
      let k = 0;
      while (k < pre.length && k < cap && pre[k] !== a.eosId) k++;
      prefilled[s] = k;
      if (k > forced) forced = k;
    }
  }
  return { lead, shareImages: G > 1, sharePrompts, forced, prefilled };
}
