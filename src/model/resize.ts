/**
 * Carrying a checkpoint into a model with more positions: when a task's
 * answers grow (the multiple-choice answer names its option's content), the
 * text shape gains a few response positions and the position table `wpe`
 * [maxSeqLen, d] gains rows. Every other tensor is copied as it is.
 */
import { paramLayout, type ModelConfig } from "./config";

/**
 * `extendPositions(params, from, to)`: `params` laid out for `from` (flat,
 * paramLayout order), returned laid out for `to`, where `to` equals `from`
 * except for a maxSeqLen at least as large. The new `wpe` rows (positions
 * from.maxSeqLen … to.maxSeqLen − 1, the end of the response) start as
 * copies of the last old row (lab choice: the nearest trained position, so a
 * resumed run starts where the old one ended). The other rows and tensors
 * are bit-identical.
 * @throws Error naming the field when the configs differ elsewhere, when
 *   to.maxSeqLen is smaller, or when `params` is not `from`'s size.
 */
export function extendPositions(
  params: Float32Array,
  from: ModelConfig,
  to: ModelConfig,
): Float32Array {
  for (const key of Object.keys(from) as (keyof ModelConfig)[])
    if (key !== "maxSeqLen" && from[key] !== to[key])
      throw new Error(`extendPositions: ${key} differs (${from[key]} vs ${to[key]})`);
  if (to.maxSeqLen < from.maxSeqLen)
    throw new Error(
      `extendPositions: maxSeqLen ${to.maxSeqLen} is smaller than the checkpoint's ${from.maxSeqLen}`,
    );
  const src = paramLayout(from);
  if (params.length !== src.totalFloats)
    throw new Error(
      `extendPositions: params has ${params.length} floats, the checkpoint's layout ${src.totalFloats}`,
    );
  const dst = paramLayout(to);
  const out = new Float32Array(dst.totalFloats);
  for (const t of dst.tensors) {
    const s = src.byName.get(t.name)!;
    out.set(params.subarray(s.offset, s.offset + s.size), t.offset);
    if (t.name !== "wpe") continue;
    const d = from.dModel;
    const last = params.subarray(s.offset + s.size - d, s.offset + s.size);
    for (let row = from.maxSeqLen; row < to.maxSeqLen; row++) out.set(last, t.offset + row * d);
  }
  return out;
}
