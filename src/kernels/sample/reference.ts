/**
 * CPU reference of the sampling kernel (shaders/sample/sample.wgsl), tests
 * and CPU-side tools: the TypeScript mirror of the prelude's PRNG
 * (shaders/prelude.wgsl), the counter-based uniform in [0, 1) that sampling
 * draws for (seed, sequence, step) — the PCG hash (O'Neill 2014; as a GPU
 * hash in Jarkko & Olano, JCGT 2020) — and the distribution a sampled token
 * is drawn from.
 */

/** PCG hash of a u32 (same bits as pcg_hash in shaders/prelude.wgsl). */
function pcgHash(v: number): number {
  const state = (Math.imul(v >>> 0, 747796405) + 2891336453) >>> 0;
  const word = Math.imul(((state >>> ((state >>> 28) + 4)) ^ state) >>> 0, 277803737) >>> 0;
  return ((word >>> 22) ^ word) >>> 0;
}

/** Uniform in [0, 1) with 24 bits, for (seed, seq, step); equals prng_uniform in WGSL. */
export function prngUniform(seed: number, seq: number, step: number): number {
  const h = pcgHash((pcgHash((pcgHash(seed >>> 0) ^ seq) >>> 0) ^ step) >>> 0);
  return (h >>> 8) / 16777216;
}

/**
 * Sampling distribution of sample.wgsl in f64: softmax(logits/T) of one row
 * of V logits restricted to top-k (0 = off) then top-p (1 = off; nucleus
 * sampling, Holtzman et al. 2020 §3.1, after top-k as in HF transformers),
 * renormalised. Ranks tie to the lower index.
 * @returns probabilities [V] (0 outside the kept set).
 */
export function filteredProbs(
  logits: ArrayLike<number>,
  T: number,
  topK: number,
  topP: number,
): Float64Array {
  const V = logits.length;
  let m = -Infinity;
  for (let v = 0; v < V; v++) m = Math.max(m, logits[v] / T);
  let s = 0;
  for (let v = 0; v < V; v++) s += Math.exp(logits[v] / T - m);
  const lp = Float64Array.from({ length: V }, (_, v) => logits[v] / T - m - Math.log(s));
  const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => lp[b] - lp[a] || a - b);
  const k = topK > 0 ? Math.min(topK, V) : V;
  const kept = order.slice(0, k);
  const zk = kept.reduce((acc, i) => acc + Math.exp(lp[i]), 0);
  const out = new Float64Array(V);
  let before = 0;
  for (const i of kept) {
    if (topP < 1 && before >= topP * zk) break;
    out[i] = Math.exp(lp[i]);
    before += out[i];
  }
  const z = out.reduce((a, b) => a + b, 0);
  for (let i = 0; i < V; i++) out[i] /= z;
  return out;
}
