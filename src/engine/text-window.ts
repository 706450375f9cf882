/**
 * The used text columns of a batch of rollouts, for the RL update.
 *
 * A batch is laid out [N, promptLen + maxNew] (src/engine/sequences.ts): prompts
 * left-padded, responses right-padded. Most columns can be PAD in every row
 * (short prompts, responses that stopped early: on the default experiment
 * 25 of 40 prompt columns and 6 of 40 response columns). PAD rows feed no
 * loss and are masked as attention keys, so the update runs on the window of
 * columns that holds every non-PAD token, at the positions those columns have
 * in the whole text (TrainGraph.setTextOffset): the same loss and gradients
 * for fewer positions (lab choice).
 */
import { PAD_ID } from "../tasks/tokenizer";
import type { TextBatch, TextShape } from "./sequences";

/** Columns [start, start + len) of the text kept for the update. */
export interface TextWindow {
  start: number;
  len: number;
}

/**
 * The window of `batch` that holds every non-PAD token and every column in
 * the loss mask, its length rounded up to a multiple of `quantum` (fewer
 * distinct lengths: fewer window graphs) but never past the text's end.
 * Linear in the batch size.
 * @param batch tokens and mask [N, promptLen + maxNew] (joinPromptResponse).
 * @param quantum a positive integer (lab choice in LabEngine: 1).
 * @throws Error when the batch does not fit the shape or quantum is not a positive integer.
 */
export function textWindow(batch: TextBatch, shape: TextShape, quantum = 1): TextWindow {
  const L = shape.promptLen + shape.maxNew;
  const n = batch.tokens.length / L;
  if (!Number.isInteger(n) || batch.mask.length !== batch.tokens.length)
    throw new Error(
      `textWindow: tokens [${batch.tokens.length}] and mask [${batch.mask.length}] do not both fit [N, ${L}]`,
    );
  if (!Number.isInteger(quantum) || quantum < 1)
    throw new Error(`textWindow: quantum must be a positive integer, got ${quantum}`);
  // The first response token is predicted by the column before it: keep ≥ 1 prompt column.
  let lead = shape.promptLen - 1; // leading columns that are PAD and out of the loss in every row
  let end = shape.promptLen; // one past the last column that is non-PAD or in the loss in some row
  const used = (k: number) => batch.tokens[k] !== PAD_ID || batch.mask[k] !== 0;
  for (let i = 0; i < n; i++) {
    const r = i * L;
    let s = 0;
    while (s < lead && !used(r + s)) s++;
    lead = s;
    let e = L;
    while (e > end && !used(r + e - 1)) e--;
    end = e;
  }
  const width = end - lead;
  const len = Math.min(L, Math.max(2, Math.ceil(width / quantum) * quantum));
  return { start: Math.min(lead, L - len), len };
}

/**
 * Columns [w.start, w.start + w.len) of each row of an [N, L] array, as a new [N, w.len] array.
 * @throws Error when the window does not fit L or the array is not [N, L].
 */
export function sliceColumns<T extends Int32Array | Float32Array>(
  a: T,
  L: number,
  w: TextWindow,
): T {
  const n = a.length / L;
  if (!Number.isInteger(n) || w.start < 0 || w.len < 1 || w.start + w.len > L)
    throw new Error(
      `sliceColumns: window [${w.start}, ${w.start + w.len}) does not fit rows of ${L} (array of ${a.length})`,
    );
  const out = new (a.constructor as new (n: number) => T)(n * w.len);
  for (let i = 0; i < n; i++)
    out.set(a.subarray(i * L + w.start, i * L + w.start + w.len), i * w.len);
  return out;
}
