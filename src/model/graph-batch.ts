/**
 * The CPU side of TrainGraph.setBatch (./graph.ts): the prefix layout of a
 * shared-prefix graph (the positions each group of G rollouts shares,
 * ./prefix-layout.ts), the embedding backward's token order and a compacted
 * graph's row maps (kernels/rows). Linear in the batch size.
 */
import * as K from "../kernels";
import { prefixLayout, sharedPositions, type PrefixLayout } from "../layout/prefix-layout";
import type { TrainBatch } from "./graph-types";

/** What setBatch writes besides the batch itself. */
export interface BatchPlan {
  /** The step's prefix layout (shared-prefix graphs), else null. */
  prefix: PrefixLayout | null;
  /** The embedding backward's lookup: positions (a prefix layout: rows) by token id, and each id's start. */
  order: Int32Array;
  start: Int32Array;
  /** The compacted last layer's row maps, or null. */
  rows: K.LossRows | K.PrefixLossRows | null;
}

/**
 * Plans a batch of B rollouts of L text tokens (P patches, vocabulary V,
 * images of `pixels` floats).
 * @throws Error on images or a mask of the wrong size or not on the CPU
 *   where the plan needs them (sharedPrefix, compact).
 */
export function planBatch(
  batch: TrainBatch,
  g: {
    B: number;
    L: number;
    P: number;
    V: number;
    pixels: number;
    sharedPrefix: number | null;
    compact: boolean;
    quantum: number;
  },
): BatchPlan {
  const { B, L, P, V, pixels } = g;
  const mask = batch.mask as Float32Array;
  let prefix: PrefixLayout | null = null;
  if (g.sharedPrefix !== null) {
    if (!(batch.images instanceof Float32Array))
      throw new Error(
        "TrainGraph.setBatch: a shared-prefix graph (sharedPrefix) needs the images as a CPU array",
      );
    if (batch.images.length !== B * pixels)
      throw new Error(
        `TrainGraph: images has ${batch.images.length} values, expected ${B * pixels}`,
      );
    if (mask.length !== B * L)
      throw new Error(`TrainGraph: mask has ${mask.length} values, expected ${B * L}`);
    const G = g.sharedPrefix;
    const S = sharedPositions(batch.images, batch.tokens, mask, { B, G, L, P, pixels });
    prefix = prefixLayout(B, G, P + L, S);
  }
  const { order, start } = prefix
    ? K.prefixTokenOrder(batch.tokens, prefix, P, L, V)
    : K.tokenOrder(batch.tokens, V);
  const rows = !g.compact
    ? null
    : prefix
      ? K.prefixLossRows(mask, prefix, P, g.quantum)
      : K.lossRows(mask, B, L, P, g.quantum);
  return { prefix, order, start, rows };
}
