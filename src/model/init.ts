/**
 * Seeded parameter initialisation (nanoGPT's scheme): weights ~ N(0, 0.02),
 * residual projections (attn.wo, mlp.wproj) scaled by 1/sqrt(2·nLayers),
 * LayerNorm gains 1, biases 0.
 */
import { paramLayout, type ModelConfig } from "./config";

/** splitmix32-style generator returning floats in [0, 1); deterministic per seed. */
export function seededUniform(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 4294967296;
  };
}

/** Standard normal samples by Box–Muller from a seeded uniform source. */
export function seededNormal(seed: number): () => number {
  const u = seededUniform(seed);
  return () => {
    const a = Math.max(u(), 1e-12);
    return Math.sqrt(-2 * Math.log(a)) * Math.cos(2 * Math.PI * u());
  };
}

/**
 * Returns the flat f32 parameter vector (layout of `paramLayout`, padding
 * zero) for `seed`. Same seed, same bytes.
 */
export function initParams(c: ModelConfig, seed: number): Float32Array {
  const layout = paramLayout(c);
  const out = new Float32Array(layout.totalFloats);
  const randn = seededNormal(seed);
  const residualScale = 1 / Math.sqrt(2 * c.nLayers);
  for (const t of layout.tensors) {
    const leaf = t.name.split(".").slice(-1)[0];
    if (t.name.endsWith(".g")) out.fill(1, t.offset, t.offset + t.size);
    else if (leaf === "b" || leaf.startsWith("b"))
      continue; // biases (b, bqkv, bo, bfc, bproj) stay 0
    else {
      const std =
        0.02 * (t.name.endsWith("attn.wo") || t.name.endsWith("mlp.wproj") ? residualScale : 1);
      for (let i = 0; i < t.size; i++) out[t.offset + i] = randn() * std;
    }
  }
  return out;
}
