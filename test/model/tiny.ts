/**
 * Shared fixtures for model tests: a tiny config (d 16, 2 layers, 2 heads,
 * 8×8 image in 4×4 patches → P = 4, V = 12), seeded random batches with a
 * left-padded prompt (the tolerance checker is test/support/expect-close.ts).
 */
import type { ModelConfig } from "../../src/model/config";
import { seededUniform } from "../../src/model/init";

export const TINY: ModelConfig = {
  imageHeight: 8,
  imageWidth: 8,
  imageChannels: 1,
  patchSize: 4,
  dModel: 16,
  nLayers: 2,
  nHeads: 2,
  mlpRatio: 4,
  vocabSize: 12,
  maxSeqLen: 12,
};
export const PAD = 0;

/**
 * B examples of L text tokens: prompt of `promptLen` (example b has b+1
 * leading PADs, capped to promptLen−1), then a response of random ids ≥ 2.
 * Response mask [B, L] is 1 on the response tokens.
 */
export function tinyBatch(
  config: ModelConfig,
  B: number,
  L: number,
  promptLen: number,
  seed: number,
) {
  const u = seededUniform(seed);
  const pixels = config.imageHeight * config.imageWidth * config.imageChannels;
  const images = Float32Array.from({ length: B * pixels }, () => u());
  const tokens = new Int32Array(B * L);
  const mask = new Float32Array(B * L);
  for (let b = 0; b < B; b++) {
    const pads = Math.min(b + 1, promptLen - 1);
    for (let s = 0; s < L; s++) {
      tokens[b * L + s] = s < pads ? PAD : 2 + Math.floor(u() * (config.vocabSize - 2));
      mask[b * L + s] = s >= promptLen ? 1 : 0;
    }
  }
  return { B, textLen: L, images, tokens, mask, padId: PAD };
}

/** Uniform random floats in [lo, hi), seeded. */
export function randArray(n: number, seed: number, lo = -1, hi = 1): Float32Array {
  const u = seededUniform(seed);
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * u());
}
