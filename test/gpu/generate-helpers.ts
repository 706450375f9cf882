/**
 * Shared helpers of the generation tests: a tiny config, decisive random
 * parameters, and CPU f64 log-softmax utilities.
 */
import { paramLayout, type ModelConfig } from "../../src/model/config";
import { seededNormal, seededUniform } from "../../src/model/init";

/** 8×8 grayscale image in 4×4 patches (P = 4), d = 24, 2 layers, 2 heads (hd = 12), V = 14 (not a multiple of 4). */
export const TINY: ModelConfig = {
  imageHeight: 8,
  imageWidth: 8,
  imageChannels: 1,
  patchSize: 4,
  dModel: 24,
  nLayers: 2,
  nHeads: 2,
  mlpRatio: 4,
  vocabSize: 14,
  maxSeqLen: 24,
};

/**
 * Random parameters with every tensor non-trivial (biases and LayerNorm
 * parameters too), weights ~ N(0, scale²): large enough that greedy choices
 * are decisive compared to f32 rounding.
 */
export function randomParams(c: ModelConfig, seed: number, scale = 0.5): Float32Array {
  const layout = paramLayout(c);
  const out = new Float32Array(layout.totalFloats);
  const randn = seededNormal(seed);
  for (const t of layout.tensors) {
    const leaf = t.name.split(".").slice(-1)[0];
    for (let i = 0; i < t.size; i++) {
      if (leaf === "g") out[t.offset + i] = 1 + 0.2 * randn();
      else if (leaf.startsWith("b")) out[t.offset + i] = 0.2 * randn();
      else out[t.offset + i] = scale * randn();
    }
  }
  return out;
}

/** Uniform random images [B, H·W·C] in [0, 1). */
export function randomImages(c: ModelConfig, B: number, seed: number): Float32Array {
  const u = seededUniform(seed);
  return Float32Array.from({ length: B * c.imageHeight * c.imageWidth * c.imageChannels }, () =>
    u(),
  );
}

/** log softmax of row `row` of logits [*, V] divided by T, in f64. */
export function logSoftmaxRow(
  logits: ArrayLike<number>,
  row: number,
  V: number,
  T = 1,
): Float64Array {
  const out = new Float64Array(V);
  let m = -Infinity;
  for (let v = 0; v < V; v++) m = Math.max(m, logits[row * V + v] / T);
  let s = 0;
  for (let v = 0; v < V; v++) s += Math.exp(logits[row * V + v] / T - m);
  for (let v = 0; v < V; v++) out[v] = logits[row * V + v] / T - m - Math.log(s);
  return out;
}
