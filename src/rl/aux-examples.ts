/**
 * StructReward's auxiliary examples as model text (StructReward §3.3–3.4,
 * eq. 14–16; docs/reward-spec.md §3, "Auxiliary training"): the rollouts of
 * one RL step recycled into pointwise ("is this response correct?") and
 * pairwise (which of two is correct?) judgments, and their hard negatives
 * (one step rewritten) into detect + locate and choose-the-correct-version
 * examples, laid out in the model's text columns with the loss mask on the
 * target tokens only.
 *
 * Layout of one row (lab choice; the model's text is [prompt columns,
 * promptLen, left-padded][response columns, maxNew, right-padded]):
 *   - one response (pointwise, locate): prompt columns = the task prompt as
 *     the rollout saw it (`<bos> question options <sep>`); response columns =
 *     `response ? target <eos>`.
 *   - two responses (pairwise, choose): prompt columns = `<bos> A' <sep>`,
 *     response columns = `B' ? target <eos>`, where A', B' are the two
 *     responses in compact form (the think block and the final `\boxed{}`
 *     answer after it; the option checks between them are dropped) so both
 *     fit; the question's text is not in the row (the image is).
 * `?` marks where the judgment starts: it occurs only in prompt columns,
 * which no loss covers, so no other training says what follows it, and the
 * policy never writes it in a response, so the verdict trained after it does
 * not teach the policy to write one where a rollout ends. (`<sep>` would
 * clash: after it the response's first token, `<think>`, is trained.)
 * Targets (the masked tokens, each followed by `<eos>`, which is masked too,
 * as in the SFT targets): pointwise `Correct` | `Incorrect` (eq. 14);
 * pairwise and choose `A` | `B`; locate `Incorrect Step k` (detect, then the
 * builder's `Step k`). An example that does not fit its columns, or holds a
 * word outside the vocabulary (a rewritten number past 99), is dropped and
 * counted; when more examples are built than the batch has rows, a seeded
 * random subset is kept and the rest counted as over budget.
 */
import {
  buildPairwiseExamples,
  buildPointwiseExamples,
  makeHardNegative,
  shuffled,
  type Rng,
} from "../rewards/index";
import { BOS_ID, buildModelTokens, encode, EOS_ID, PAD_ID, SEP_ID } from "../tasks/tokenizer";

/** Token that starts the judgment in a row (`?`; see the layout above). */
export const JUDGE_MARK_ID = encode("?")[0];
import type { TaskPrompt } from "../tasks/types";
import type { AuxOptions } from "../settings/aux-config";
import type { TextBatch, TextShape } from "../engine/sequences";

/** The four auxiliary tasks (StructReward §3.3: pointwise, pairwise; §3.4: locate, choose). */
export type AuxKind = "pointwise" | "pairwise" | "locate" | "choose";

/** One example as token ids, before padding. */
interface AuxExample {
  kind: AuxKind;
  /** Index of the rollouts' prompt in the step's prompts: the row's image. */
  prompt: number;
  /** Prompt-column ids (left-padded in the row), ≤ promptLen. */
  context: number[];
  /** Response-column ids before the target (the response and `?`), not in the loss. */
  response: number[];
  /** Target ids then `<eos>`: the tokens of the loss mask. */
  target: number[];
}

/** Why built examples were not trained. */
interface AuxDropped {
  /** Did not fit the prompt or response columns. */
  tooLong: number;
  /** Held a word outside the tokenizer's vocabulary. */
  untokenizable: number;
  /** Built beyond the batch's rows. */
  overBudget: number;
}

/** The auxiliary batch of one step. */
export interface AuxBatch {
  /** The trained examples, in row order (rows past them are PAD with an empty mask). */
  examples: AuxExample[];
  /** Examples built per kind (before dropping). */
  built: Record<AuxKind, number>;
  /** Examples trained per kind. */
  trained: Record<AuxKind, number>;
  dropped: AuxDropped;
  /** tokens and mask [rows, promptLen + maxNew]; mask 1 on target tokens only. */
  text: TextBatch;
  /** Images [rows, H·W·C]: each row its prompt's image (PAD rows: prompt 0's). */
  images: Float32Array;
}

const zeroCounts = (): Record<AuxKind, number> => ({
  pointwise: 0,
  pairwise: 0,
  locate: 0,
  choose: 0,
});

/**
 * The compact form of a response for a two-response row: the text up to and
 * including `</think>`, then the last `\boxed{…}` after it (the final
 * answer); the text itself when it has no `</think>` or no box after it.
 * Linear in the text's length.
 */
export function compactResponse(text: string): string {
  const close = text.indexOf("</think>");
  if (close < 0) return text;
  const thinkEnd = close + "</think>".length;
  const box = text.lastIndexOf("\\boxed{");
  if (box < thinkEnd) return text;
  const end = text.indexOf("}", box);
  if (end < 0) return text;
  return `${text.slice(0, thinkEnd)} ${text.slice(box, end + 1)}`;
}

/** encode(), or null when a word is outside the vocabulary. */
function tryEncode(text: string): number[] | null {
  try {
    return encode(text);
  } catch {
    return null;
  }
}

type Built = { ok: AuxExample } | { drop: "tooLong" | "untokenizable" };

function oneResponse(
  kind: AuxKind,
  prompt: number,
  context: number[],
  response: string,
  target: string,
  shape: TextShape,
): Built {
  const r = tryEncode(response);
  const t = tryEncode(target);
  if (r === null || t === null) return { drop: "untokenizable" };
  if (r.length + 1 + t.length + 1 > shape.maxNew) return { drop: "tooLong" };
  return {
    ok: { kind, prompt, context, response: [...r, JUDGE_MARK_ID], target: [...t, EOS_ID] },
  };
}

function twoResponses(
  kind: AuxKind,
  prompt: number,
  a: string,
  b: string,
  target: string,
  shape: TextShape,
): Built {
  const ra = tryEncode(compactResponse(a));
  const rb = tryEncode(compactResponse(b));
  const t = tryEncode(target);
  if (ra === null || rb === null || t === null) return { drop: "untokenizable" };
  if (ra.length + 2 > shape.promptLen || rb.length + 1 + t.length + 1 > shape.maxNew)
    return { drop: "tooLong" };
  return {
    ok: {
      kind,
      prompt,
      context: [BOS_ID, ...ra, SEP_ID],
      response: [...rb, JUDGE_MARK_ID],
      target: [...t, EOS_ID],
    },
  };
}

/**
 * The auxiliary batch of one RL step.
 * @param prompts the step's prompts [P]; @param texts their rollout texts [P][G]
 *   (decoded responses, as the rewards scored them).
 * @param rows the batch's rows (the step's rollouts P·G, so the update's
 *   graph serves it; lab choice).
 * @param rng seeded randomness: A/B order, the rewritten step and its
 *   rewrite, the over-budget subset.
 * @returns the examples built, dropped and trained, and the padded batch;
 *   `examples` is empty when both options are off or nothing qualified.
 * @throws Error when `texts` does not have one group per prompt or `rows` is
 *   not a positive integer. Never throws on rollout text.
 */
export function buildAuxBatch(args: {
  prompts: readonly TaskPrompt[];
  texts: readonly (readonly string[])[];
  options: AuxOptions;
  shape: TextShape;
  rows: number;
  rng: Rng;
}): AuxBatch {
  const { prompts, texts, options, shape, rows, rng } = args;
  if (texts.length !== prompts.length)
    throw new Error(`buildAuxBatch: ${texts.length} rollout groups for ${prompts.length} prompts`);
  if (!Number.isInteger(rows) || rows < 1)
    throw new Error(`buildAuxBatch: rows must be a positive integer, got ${rows}`);
  const built = zeroCounts();
  const dropped: AuxDropped = { tooLong: 0, untokenizable: 0, overBudget: 0 };
  const all: AuxExample[] = [];
  const countBuilt = (kind: AuxKind, b: Built) => {
    built[kind]++;
    if ("ok" in b) all.push(b.ok);
    else dropped[b.drop]++;
  };
  prompts.forEach((prompt, p) => {
    const context = buildModelTokens(prompt).prompt;
    const group = texts[p];
    if (options.recycle) {
      for (const ex of buildPointwiseExamples({ prompt, texts: group }))
        countBuilt(
          "pointwise",
          oneResponse("pointwise", p, context, ex.response, ex.target, shape),
        );
      for (const ex of buildPairwiseExamples({ prompt, texts: group, rng }))
        countBuilt(
          "pairwise",
          twoResponses("pairwise", p, ex.responseA, ex.responseB, ex.target, shape),
        );
    }
    if (options.hardNegatives) {
      for (const text of group) {
        const hn = makeHardNegative({ prompt, text, rng });
        if (!hn) continue;
        countBuilt(
          "locate",
          oneResponse(
            "locate",
            p,
            context,
            hn.locate.response,
            `Incorrect ${hn.locate.target}`,
            shape,
          ),
        );
        const c = hn.choose;
        countBuilt("choose", twoResponses("choose", p, c.responseA, c.responseB, c.target, shape));
      }
    }
  });
  let examples = all;
  if (all.length > rows) {
    examples = shuffled(all, rng).slice(0, rows);
    dropped.overBudget = all.length - rows;
  }
  const trained = zeroCounts();
  for (const ex of examples) trained[ex.kind]++;
  return { examples, built, trained, dropped, ...auxTensors(examples, prompts, shape, rows) };
}

/**
 * The padded tensors of `examples` [rows, promptLen + maxNew] (text) and
 * [rows, H·W·C] (images); rows past the examples are PAD with an empty mask
 * and prompt 0's image. `lengths` = response-column tokens per row.
 */
function auxTensors(
  examples: readonly AuxExample[],
  prompts: readonly TaskPrompt[],
  shape: TextShape,
  rows: number,
): { text: TextBatch; images: Float32Array } {
  const { promptLen, maxNew } = shape;
  const L = promptLen + maxNew;
  const tokens = new Int32Array(rows * L).fill(PAD_ID);
  const mask = new Float32Array(rows * L);
  const lengths = new Int32Array(rows);
  const size = prompts.length ? prompts[0].image.length : 0;
  const images = new Float32Array(rows * size);
  for (let i = 0; i < rows; i++) {
    const ex = examples[i];
    const prompt = prompts[ex ? ex.prompt : 0];
    if (prompt) images.set(prompt.image, i * size);
    if (!ex) continue;
    const r = i * L;
    tokens.set(ex.context, r + promptLen - ex.context.length);
    tokens.set(ex.response, r + promptLen);
    const t0 = r + promptLen + ex.response.length;
    tokens.set(ex.target, t0);
    mask.fill(1, t0, t0 + ex.target.length);
    lengths[i] = ex.response.length + ex.target.length;
  }
  return { text: { tokens, mask, lengths }, images };
}
