/**
 * Checker of the sampling kernel (shaders/sample/sample.wgsl, the PRNG of
 * shaders/prelude.wgsl) through the Generator against its definition
 * (src/kernels/sample/reference.ts): token frequencies of the first new token of many identical
 * sequences follow softmax(logits/T) (chi-square at a fixed seed), top-k and
 * top-p never emit a filtered token and renormalise the rest, and each draw is
 * exactly the inverse CDF of the counter-based uniform prngUniform(seed, seq, step).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import { filteredProbs, prngUniform } from "../../../src/kernels/sample/reference";
import { Generator } from "../../../src/model/generate";
import { randomImages, randomParams, TINY } from "../generate-helpers";

const cfg = TINY;
const V = cfg.vocabSize;
const N = 2048;
const PROMPT = 3;
const SEEDS = [11, 12];

/** Upper p-quantile of chi-square with df degrees of freedom (Wilson & Hilferty 1931 approximation). */
function chi2Critical(df: number, z = 3.09 /* p = 0.001 */): number {
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

/** Pearson chi-square of counts against probabilities; bins with expected < 5 are pooled. */
function chiSquare(counts: number[], probs: Float64Array): { stat: number; df: number } {
  const total = counts.reduce((a, b) => a + b, 0);
  let stat = 0;
  let bins = 0;
  let poolO = 0;
  let poolE = 0;
  for (let i = 0; i < probs.length; i++) {
    const e = probs[i] * total;
    if (probs[i] === 0) continue;
    if (e < 5) {
      poolO += counts[i];
      poolE += e;
      continue;
    }
    stat += (counts[i] - e) ** 2 / e;
    bins++;
  }
  if (poolE > 0) {
    stat += (poolO - poolE) ** 2 / poolE;
    bins++;
  }
  return { stat, df: bins - 1 };
}

describe("GPU sampling", () => {
  const gpu = useGpu();
  let gen: Generator;
  let paramsBuf: GPUBuffer;
  let logits: Float32Array; // [V]: identical for every sequence
  const one = randomImages(cfg, 1, 5);
  const images = new Float32Array(N * one.length);
  for (let s = 0; s < N; s++) images.set(one, s * one.length);
  const promptTokens = new Int32Array(N * PROMPT);
  for (let s = 0; s < N; s++) promptTokens.set([0, 4, 7], s * PROMPT);
  const base = { images, promptTokens, eosId: V - 1, padId: 0, maxNew: 1 };

  beforeAll(async () => {
    gen = new Generator(gpu.ctx, cfg, N, PROMPT, 1);
    paramsBuf = gpu.ctx.createBufferFrom("test.params", randomParams(cfg, 3));
    await gen.generate({ ...base, paramsBuf, seed: 0, greedy: true });
    const all = await gen.lastLogits();
    logits = all.slice(0, V);
    for (let s = 1; s < N; s++) for (let v = 0; v < V; v++) expect(all[s * V + v]).toBe(logits[v]);
  });

  /** Counts of the first new token over N sequences × SEEDS; also checks each draw against the CPU inverse CDF. */
  async function draw(opts: {
    temperature: number;
    topK?: number;
    topP?: number;
  }): Promise<number[]> {
    const probs = filteredProbs(logits, opts.temperature, opts.topK ?? 0, opts.topP ?? 1);
    const cdf: number[] = [];
    probs.reduce((acc, p, i) => (cdf[i] = acc + p), 0);
    const counts = new Array(V).fill(0);
    let mismatches = 0;
    for (const seed of SEEDS) {
      const r = await gen.generate({ ...base, paramsBuf, seed, ...opts });
      for (let s = 0; s < N; s++) {
        const tok = r.tokens[s];
        counts[tok]++;
        // Inverse CDF of the same uniform on the CPU (f64); f32 rounding may flip draws within 1e-5 of a boundary.
        const u = prngUniform(seed, s, 0);
        const cpu = cdf.findIndex((c, i) => probs[i] > 0 && c > u);
        if (cpu !== tok) {
          const nearBoundary = cdf.some((c) => Math.abs(c - u) < 1e-5);
          if (!nearBoundary) mismatches++;
        }
        expect(r.logprobs[s]).toBeCloseTo(Math.log(probs[tok]), 4);
      }
    }
    expect(mismatches).toBe(0);
    return counts;
  }

  it("the toy distribution is far from uniform (so the tests below have power)", () => {
    const p = filteredProbs(logits, 1, 0, 1);
    expect(Math.max(...p)).toBeGreaterThan(0.2);
    expect(Math.min(...p)).toBeLessThan(0.01);
  });

  for (const T of [1, 0.7]) {
    it(`frequencies follow softmax(logits/T) at T = ${T} (chi-square, p = 0.001)`, async () => {
      const counts = await draw({ temperature: T });
      const { stat, df } = chiSquare(counts, filteredProbs(logits, T, 0, 1));
      expect(stat).toBeLessThan(chi2Critical(df));
      // Power: the same counts are rejected against the other temperature's distribution.
      const wrong = chiSquare(counts, filteredProbs(logits, T === 1 ? 0.7 : 1, 0, 1));
      expect(wrong.stat).toBeGreaterThan(chi2Critical(wrong.df));
    });
  }

  it("top-k never emits a token outside the k most likely and renormalises the rest", async () => {
    const probs = filteredProbs(logits, 1, 3, 1);
    expect(probs.filter((p) => p > 0).length).toBe(3);
    const counts = await draw({ temperature: 1, topK: 3 });
    for (let i = 0; i < V; i++) if (probs[i] === 0) expect(counts[i]).toBe(0);
    const { stat, df } = chiSquare(counts, probs);
    expect(stat).toBeLessThan(chi2Critical(df));
  });

  it("top-p keeps the smallest most-likely set reaching mass p and renormalises it", async () => {
    const probs = filteredProbs(logits, 1, 0, 0.8);
    const kept = probs.filter((p) => p > 0).length;
    expect(kept).toBeGreaterThan(1);
    expect(kept).toBeLessThan(V - 2);
    const counts = await draw({ temperature: 1, topP: 0.8 });
    for (let i = 0; i < V; i++) if (probs[i] === 0) expect(counts[i]).toBe(0);
    const { stat, df } = chiSquare(counts, probs);
    expect(stat).toBeLessThan(chi2Critical(df));
  });

  it("top-k then top-p at T = 0.7", async () => {
    const probs = filteredProbs(logits, 0.7, 5, 0.9);
    const counts = await draw({ temperature: 0.7, topK: 5, topP: 0.9 });
    for (let i = 0; i < V; i++) if (probs[i] === 0) expect(counts[i]).toBe(0);
    const { stat, df } = chiSquare(counts, probs);
    expect(stat).toBeLessThan(chi2Critical(df));
  });

  it("prngUniform is uniform over (seed, seq, step) grids (CPU mirror of the prelude's prng_uniform)", () => {
    const bins = new Array(20).fill(0);
    let n = 0;
    for (let seed = 0; seed < 5; seed++)
      for (let seq = 0; seq < 100; seq++)
        for (let step = 0; step < 40; step++) {
          bins[Math.floor(prngUniform(seed, seq, step) * 20)]++;
          n++;
        }
    const probs = new Float64Array(20).fill(1 / 20);
    const { stat, df } = chiSquare(bins, probs);
    expect(stat).toBeLessThan(chi2Critical(df));
    expect(n).toBe(20000);
  });
});
