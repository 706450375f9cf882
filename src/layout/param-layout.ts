/**
 * The flat parameter buffer's layout: every tensor of the model at a
 * 64-float (256-byte) boundary of one buffer, so kernels bind any tensor as
 * an aligned subrange and AdamW updates all parameters in one dispatch.
 * The model (src/model/config.ts, `paramLayout`) fills it; the kernels
 * (AdamW) read it, so it sits below both.
 */

export interface TensorSlot {
  name: string;
  shape: number[];
  /** Offset in floats (a multiple of 64). */
  offset: number;
  /** Number of floats. */
  size: number;
}

/** Named slots plus the padded total, in floats. */
export interface ParamLayout {
  tensors: TensorSlot[];
  byName: Map<string, TensorSlot>;
  /** Sum of tensor sizes (real parameter count). */
  count: number;
  /** Length of the flat buffer including alignment padding. */
  totalFloats: number;
}

/** Floats per alignment unit: 256 bytes, WebGPU's minStorageBufferOffsetAlignment. */
export const ALIGN_FLOATS = 64;
