/**
 * The tiny VLM's configuration, presets, validation and flat parameter layout.
 *
 * Sequence layout of one example (docs/design.md, "The tiny VLM"):
 *   [P patch tokens][L_text text tokens]   with P = (H/p)·(W/p)
 * Text tokens are the prompt (left-padded with PAD to a fixed prompt length)
 * followed by the response; PAD positions are masked as attention keys.
 * Position embeddings are learned over all maxSeqLen = P + L_text positions.
 *
 * All weights are row-major [in, out] so that y = x · W (nanoGPT's Linear,
 * transposed); every tensor starts at a 64-float (256-byte) boundary of one
 * flat buffer, so kernels can bind any tensor as an aligned subrange and
 * AdamW can update all parameters in one dispatch.
 */
import { ALIGN_FLOATS, type ParamLayout, type TensorSlot } from "../layout/param-layout";

/** Model hyperparameters. Sizes are counts, not bytes. */
export interface ModelConfig {
  imageHeight: number;
  imageWidth: number;
  imageChannels: number;
  /** Square patch side in pixels; image sides must be multiples of it. */
  patchSize: number;
  dModel: number;
  nLayers: number;
  nHeads: number;
  /** MLP hidden width = mlpRatio · dModel. */
  mlpRatio: number;
  vocabSize: number;
  /** Total positions: patch tokens + text tokens. */
  maxSeqLen: number;
}

/** Default model of docs/design.md: d = 128, 4 layers, 4 heads, GELU MLP 4×, 28×56 digits in 7×7 patches. */
export const DEFAULT_CONFIG: ModelConfig = {
  imageHeight: 28,
  imageWidth: 56,
  imageChannels: 1,
  patchSize: 7,
  dModel: 128,
  nLayers: 4,
  nHeads: 4,
  mlpRatio: 4,
  vocabSize: 196, // the word-level tokenizer of src/tasks/tokenizer.ts
  maxSeqLen: 128, // 32 patches + 40 prompt + up to 56 response tokens
};

/** Small model for CPU (SwiftShader) adapters and CI presets (lab choice). */
export const SMALL_CONFIG: ModelConfig = { ...DEFAULT_CONFIG, dModel: 64, nLayers: 2, nHeads: 4 };

/** Number of patch tokens P. */
export function numPatches(c: ModelConfig): number {
  return (c.imageHeight / c.patchSize) * (c.imageWidth / c.patchSize);
}

/** Pixels per patch (p·p·C): the patch embedding's input width. */
export function patchDim(c: ModelConfig): number {
  return c.patchSize * c.patchSize * c.imageChannels;
}

/** Number of text positions available after the patches. */
function maxTextLen(c: ModelConfig): number {
  return c.maxSeqLen - numPatches(c);
}

/**
 * Validates a config.
 * @throws Error naming the field and the limit that is broken.
 */
export function validateConfig(
  c: ModelConfig,
  limits?: { maxStorageBufferBindingSize: number },
): void {
  const ints: Array<keyof ModelConfig> = [
    "imageHeight",
    "imageWidth",
    "imageChannels",
    "patchSize",
    "dModel",
    "nLayers",
    "nHeads",
    "mlpRatio",
    "vocabSize",
    "maxSeqLen",
  ];
  for (const k of ints) {
    const v = c[k];
    if (!Number.isInteger(v) || v < 1)
      throw new Error(`config.${k} must be a positive integer, got ${v}`);
  }
  if (c.imageHeight % c.patchSize !== 0)
    throw new Error(
      `config.imageHeight (${c.imageHeight}) must be divisible by config.patchSize (${c.patchSize})`,
    );
  if (c.imageWidth % c.patchSize !== 0)
    throw new Error(
      `config.imageWidth (${c.imageWidth}) must be divisible by config.patchSize (${c.patchSize})`,
    );
  if (c.dModel % c.nHeads !== 0)
    throw new Error(`config.dModel (${c.dModel}) must be divisible by config.nHeads (${c.nHeads})`);
  if (c.dModel % 4 !== 0)
    throw new Error(`config.dModel (${c.dModel}) must be a multiple of 4 (vec4 kernels)`);
  if (maxTextLen(c) < 2)
    throw new Error(
      `config.maxSeqLen (${c.maxSeqLen}) must exceed the ${numPatches(c)} patch tokens by at least 2`,
    );
  if (c.imageChannels > 4)
    throw new Error(`config.imageChannels (${c.imageChannels}) must be at most 4`);
  if (limits) {
    const layout = paramLayout(c);
    const bytes = layout.totalFloats * 4;
    if (bytes > limits.maxStorageBufferBindingSize) {
      throw new Error(
        `config gives ${layout.totalFloats} parameters (${bytes} bytes), over the adapter's maxStorageBufferBindingSize of ${limits.maxStorageBufferBindingSize}; reduce config.dModel or config.nLayers`,
      );
    }
  }
}

/** One named tensor inside the flat parameter buffer. */
/**
 * Parameter names and shapes, in buffer order (nanoGPT naming):
 *   patch.w [p·p·C, d], patch.b [d], wte [V, d], wpe [maxSeqLen, d],
 *   h.{l}.ln1.g/b [d], h.{l}.attn.wqkv [d, 3d], h.{l}.attn.bqkv [3d],
 *   h.{l}.attn.wo [d, d], h.{l}.attn.bo [d], h.{l}.ln2.g/b [d],
 *   h.{l}.mlp.wfc [d, r·d], h.{l}.mlp.bfc [r·d], h.{l}.mlp.wproj [r·d, d], h.{l}.mlp.bproj [d],
 *   lnf.g/b [d], head.w [d, V]  (untied output head, no bias).
 */
export function paramLayout(c: ModelConfig): ParamLayout {
  const d = c.dModel;
  const h = c.mlpRatio * d;
  const shapes: Array<[string, number[]]> = [
    ["patch.w", [patchDim(c), d]],
    ["patch.b", [d]],
    ["wte", [c.vocabSize, d]],
    ["wpe", [c.maxSeqLen, d]],
  ];
  for (let l = 0; l < c.nLayers; l++) {
    shapes.push(
      [`h.${l}.ln1.g`, [d]],
      [`h.${l}.ln1.b`, [d]],
      [`h.${l}.attn.wqkv`, [d, 3 * d]],
      [`h.${l}.attn.bqkv`, [3 * d]],
      [`h.${l}.attn.wo`, [d, d]],
      [`h.${l}.attn.bo`, [d]],
      [`h.${l}.ln2.g`, [d]],
      [`h.${l}.ln2.b`, [d]],
      [`h.${l}.mlp.wfc`, [d, h]],
      [`h.${l}.mlp.bfc`, [h]],
      [`h.${l}.mlp.wproj`, [h, d]],
      [`h.${l}.mlp.bproj`, [d]],
    );
  }
  shapes.push(["lnf.g", [d]], ["lnf.b", [d]], ["head.w", [d, c.vocabSize]]);
  const tensors: TensorSlot[] = [];
  let offset = 0;
  let count = 0;
  for (const [name, shape] of shapes) {
    const size = shape.reduce((a, b) => a * b, 1);
    tensors.push({ name, shape, offset, size });
    count += size;
    offset += Math.ceil(size / ALIGN_FLOATS) * ALIGN_FLOATS;
  }
  return { tensors, byName: new Map(tensors.map((t) => [t.name, t])), count, totalFloats: offset };
}
