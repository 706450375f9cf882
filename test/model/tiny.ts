/**
 * Shared fixtures for model tests: a tiny config (d 16, 2 layers, 2 heads,
 * 8×8 image in 4×4 patches → P = 4, V = 12), seeded random batches with a
 * left-padded prompt, and a tolerance checker in llm.c's style.
 */
import { expect } from "vitest";
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

/**
 * Asserts |got − ref| ≤ atol + rtol·|ref| elementwise (llm.c dev/cuda
 * validate_result); on failure prints the first mismatches side by side.
 */
export function expectClose(
  name: string,
  got: ArrayLike<number>,
  ref: ArrayLike<number>,
  atol: number,
  rtol: number,
): void {
  expect(got.length, `${name}: length`).toBe(ref.length);
  const bad: string[] = [];
  let maxErr = 0;
  for (let i = 0; i < ref.length; i++) {
    const err = Math.abs(got[i] - ref[i]);
    if (!Number.isFinite(got[i]) || err > atol + rtol * Math.abs(ref[i])) {
      if (bad.length < 10) bad.push(`  [${i}] got ${got[i]} ref ${ref[i]}`);
    }
    if (err > maxErr) maxErr = err;
  }
  if (bad.length)
    throw new Error(
      `${name}: mismatch (max |err| ${maxErr.toExponential(2)}, atol ${atol}, rtol ${rtol})\n${bad.join("\n")}`,
    );
}
