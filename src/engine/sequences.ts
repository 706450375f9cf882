/**
 * Token tensors for the model, built on the CPU from prompts and responses
 * (the only model-facing work the CPU does: scheduling and (de)tokenizing).
 *
 * Layout (src/model/config.ts): text = [prompt left-padded to promptLen][response
 * right-padded to maxNew], so every response starts at text index promptLen.
 */
import { buildModelTokens, EOS_ID, PAD_ID, encode } from "../tasks/tokenizer";
import type { TaskPrompt } from "../tasks/types";

/** Shape of the text part of every sequence of a run. */
export interface TextShape {
  /** Prompt tokens per sequence (left-padded with PAD). */
  promptLen: number;
  /** Response tokens per sequence (right-padded with PAD). */
  maxNew: number;
}

/**
 * Prompt ids of each prompt, left-padded: Int32Array [N, promptLen].
 * Each prompt is repeated `repeat` times in a row (G rollouts per prompt).
 * @throws Error naming the prompt whose tokens exceed promptLen.
 */
export function promptTensor(
  prompts: readonly TaskPrompt[],
  promptLen: number,
  repeat = 1,
): Int32Array {
  const out = new Int32Array(prompts.length * repeat * promptLen).fill(PAD_ID);
  prompts.forEach((p, i) => {
    const ids = buildModelTokens(p).prompt;
    if (ids.length > promptLen)
      throw new Error(`prompt ${p.id} has ${ids.length} tokens, over promptLen ${promptLen}`);
    for (let r = 0; r < repeat; r++)
      out.set(ids, (i * repeat + r) * promptLen + (promptLen - ids.length));
  });
  return out;
}

/**
 * Images of each prompt, repeated `repeat` times: Float32Array [N, H·W·C].
 * @throws Error when the prompts' images differ in size.
 */
export function imageTensor(prompts: readonly TaskPrompt[], repeat = 1): Float32Array {
  if (prompts.length === 0) return new Float32Array(0);
  const size = prompts[0].image.length;
  const out = new Float32Array(prompts.length * repeat * size);
  prompts.forEach((p, i) => {
    if (p.image.length !== size)
      throw new Error(`prompt ${p.id} image has ${p.image.length} values, expected ${size}`);
    for (let r = 0; r < repeat; r++) out.set(p.image, (i * repeat + r) * size);
  });
  return out;
}

/** A training batch's text part: ids and loss mask, both [N, promptLen + maxNew]. */
export interface TextBatch {
  tokens: Int32Array;
  /** 1 on response tokens up to and including EOS, else 0. */
  mask: Float32Array;
  /** Response length per row (tokens up to and including EOS). */
  lengths: Int32Array;
}

/**
 * Joins prompts [N, promptLen] and responses [N, maxNew] into one text batch.
 * A response row ends at its first EOS; later positions become PAD and are
 * masked out.
 */
export function joinPromptResponse(
  prompts: Int32Array,
  responses: Int32Array,
  shape: TextShape,
): TextBatch {
  const { promptLen, maxNew } = shape;
  const n = prompts.length / promptLen;
  if (!Number.isInteger(n) || responses.length !== n * maxNew) {
    throw new Error(
      `joinPromptResponse: prompts [${prompts.length}] and responses [${responses.length}] do not fit [N, ${promptLen}] and [N, ${maxNew}]`,
    );
  }
  const L = promptLen + maxNew;
  const tokens = new Int32Array(n * L).fill(PAD_ID);
  const mask = new Float32Array(n * L);
  const lengths = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    tokens.set(prompts.subarray(i * promptLen, (i + 1) * promptLen), i * L);
    let len = 0;
    for (let s = 0; s < maxNew; s++) {
      const id = responses[i * maxNew + s];
      tokens[i * L + promptLen + s] = id;
      mask[i * L + promptLen + s] = 1;
      len++;
      if (id === EOS_ID) break;
    }
    // Only a PAD-filled tail follows: a row that was cut off (no EOS) keeps all maxNew tokens.
    lengths[i] = len;
  }
  return { tokens, mask, lengths };
}

/**
 * SFT targets (`sftTarget <eos>`) of each prompt as a response tensor [N, maxNew].
 * @throws Error naming the prompt whose target exceeds maxNew.
 */
export function targetTensor(prompts: readonly TaskPrompt[], maxNew: number): Int32Array {
  const out = new Int32Array(prompts.length * maxNew).fill(PAD_ID);
  prompts.forEach((p, i) => {
    const ids = [...encode(p.sftTarget), EOS_ID];
    if (ids.length > maxNew)
      throw new Error(`target of ${p.id} has ${ids.length} tokens, over maxNew ${maxNew}`);
    out.set(ids, i * maxNew);
  });
  return out;
}

/** Row i of an [N, width] tensor. */
export function row<T extends Int32Array | Float32Array>(t: T, i: number, width: number): T {
  return t.subarray(i * width, (i + 1) * width) as T;
}
