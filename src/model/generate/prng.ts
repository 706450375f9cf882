/**
 * TypeScript mirror of shaders/prng.wgsl (tests and CPU-side tools): the
 * counter-based uniform in [0, 1) that sampling draws for (seed, sequence, step).
 * Source: the PCG hash (O'Neill 2014; as a GPU hash in Jarkko & Olano, JCGT 2020).
 */

/** PCG hash of a u32 (same bits as pcg_hash in prng.wgsl). */
export function pcgHash(v: number): number {
  const state = (Math.imul(v >>> 0, 747796405) + 2891336453) >>> 0;
  const word = Math.imul(((state >>> ((state >>> 28) + 4)) ^ state) >>> 0, 277803737) >>> 0;
  return ((word >>> 22) ^ word) >>> 0;
}

/** Uniform in [0, 1) with 24 bits, for (seed, seq, step); equals prng_uniform in WGSL. */
export function prngUniform(seed: number, seq: number, step: number): number {
  const h = pcgHash((pcgHash((pcgHash(seed >>> 0) ^ seq) >>> 0) ^ step) >>> 0);
  return (h >>> 8) / 16777216;
}
