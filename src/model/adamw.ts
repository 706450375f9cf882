/**
 * AdamW with global gradient-norm clipping, entirely on the GPU, over the one
 * flat parameter buffer of `paramLayout` (three dispatches per step, no
 * read-back):
 *   1. grad_norm.wgsl `partial`:  NPART partial sums of g²
 *   2. grad_norm.wgsl `finalize`: norm, clip scale = min(1, maxNorm/(norm + 1e-6)), finite flag
 *   3. adamw.wgsl:                the AdamW update with the clip scale applied to g
 * The gradient norm lands in `gradStats` ([norm, scale, finite, Σg²], f32),
 * which the trainer reads with its other per-step statistics.
 *
 * Formulas: AdamW (Loshchilov & Hutter 2019, "Decoupled Weight Decay
 * Regularization", Algorithm 2), written as PyTorch's torch.optim.AdamW;
 * clipping as torch.nn.utils.clip_grad_norm_ (total 2-norm, 1e-6 in the
 * denominator). Weight decay applies to 2-D tensors only (matrices and
 * embeddings), not to biases or LayerNorm parameters (nanoGPT's
 * configure_optimizers). The CPU reference is src/model/adamw-ref.ts.
 */
import type { GpuContext, KernelCall } from "../gpu/context";
import { ALIGN_FLOATS, type ParamLayout } from "./config";
import adamwCode from "../../shaders/adamw.wgsl?raw";
import gradNormCode from "../../shaders/grad_norm.wgsl?raw";

/** Workgroup size of adamw.wgsl and grad_norm.wgsl `partial` (must match their `WG`). */
export const ADAMW_WG = 64;
/** Number of partial sums in the first reduction stage (a multiple of ADAMW_WG). */
export const GRAD_NORM_PARTIALS = 1024;

/** Optimizer hyperparameters. */
export interface AdamWOptions {
  /** Learning rate (> 0). */
  lr: number;
  /** First-moment decay; default 0.9 (Kingma & Ba 2015). */
  beta1?: number;
  /** Second-moment decay; default 0.95 (nanoGPT's choice for small transformers). */
  beta2?: number;
  /** Denominator epsilon; default 1e-8 (PyTorch default). */
  eps?: number;
  /** Decoupled weight decay on 2-D tensors; default 0 (lab default in src/rl/experiment.ts). */
  weightDecay?: number;
  /** Global gradient-norm clip; ≤ 0 or Infinity disables clipping (the norm is still computed). Default 1. */
  maxGradNorm?: number;
}

/** The step's gradient statistics read back from `gradStats`. */
export interface GradStats {
  /** Global 2-norm of the raw gradient (before clipping). */
  gradNorm: number;
  /** Factor the gradient was multiplied by (1 = not clipped, 0 = step skipped). */
  clipScale: number;
  /** False when the gradient held NaN/Inf (or Σg² overflowed f32): the step was skipped. */
  finite: boolean;
}

/** Resolves defaults. @throws Error naming an invalid hyperparameter. */
export function resolveAdamW(o: AdamWOptions): Required<AdamWOptions> {
  const r: Required<AdamWOptions> = {
    lr: o.lr,
    beta1: o.beta1 ?? 0.9,
    beta2: o.beta2 ?? 0.95,
    eps: o.eps ?? 1e-8,
    weightDecay: o.weightDecay ?? 0,
    maxGradNorm: o.maxGradNorm ?? 1,
  };
  if (!(Number.isFinite(r.lr) && r.lr >= 0))
    throw new Error(`AdamW lr must be a finite number ≥ 0, got ${r.lr}`);
  if (!(r.beta1 >= 0 && r.beta1 < 1))
    throw new Error(`AdamW beta1 must be in [0, 1), got ${r.beta1}`);
  if (!(r.beta2 >= 0 && r.beta2 < 1))
    throw new Error(`AdamW beta2 must be in [0, 1), got ${r.beta2}`);
  if (!(Number.isFinite(r.eps) && r.eps > 0))
    throw new Error(`AdamW eps must be a finite number > 0, got ${r.eps}`);
  if (!(Number.isFinite(r.weightDecay) && r.weightDecay >= 0))
    throw new Error(`AdamW weightDecay must be a finite number ≥ 0, got ${r.weightDecay}`);
  if (Number.isNaN(r.maxGradNorm)) throw new Error(`AdamW maxGradNorm must be a number, got NaN`);
  return r;
}

/** True for tensors that get weight decay: 2-D (matrices, embeddings). */
export function decays(shape: readonly number[]): boolean {
  return shape.length >= 2;
}

/**
 * Weight-decay mask with one u32 per 64-float block of the flat buffer
 * ([totalFloats / 64]; 1 = decay). Valid because every tensor starts on a
 * 64-float boundary, so a block never straddles two tensors.
 */
export function decayBlockMask(layout: Pick<ParamLayout, "tensors" | "totalFloats">): Uint32Array {
  const mask = new Uint32Array(Math.ceil(layout.totalFloats / ALIGN_FLOATS));
  for (const t of layout.tensors) {
    if (t.offset % ALIGN_FLOATS !== 0)
      throw new Error(
        `tensor ${t.name} starts at float ${t.offset}, not a multiple of ${ALIGN_FLOATS}`,
      );
    if (!decays(t.shape)) continue;
    const first = t.offset / ALIGN_FLOATS;
    const last = Math.ceil((t.offset + t.size) / ALIGN_FLOATS);
    mask.fill(1, first, last);
  }
  return mask;
}

/**
 * GPU AdamW state for one parameter buffer: m, v (zero-initialised), the decay
 * mask, the gradient-statistics buffer and three prepared dispatches, all
 * built once. `step()` records the three dispatches into the open compute
 * pass; the caller flushes with the rest of the phase.
 */
export class AdamW {
  /** Step counter t (number of `step()` calls since creation or `reset()`); settable when resuming. */
  t = 0;
  readonly m: GPUBuffer;
  readonly v: GPUBuffer;
  /** [norm, scale, finite, Σg²] f32 of the latest step. */
  readonly gradStats: GPUBuffer;
  readonly decayMask: GPUBuffer;
  readonly totalFloats: number;
  private readonly partials: GPUBuffer;
  private readonly partialCall: KernelCall;
  private readonly finalizeCall: KernelCall;
  private readonly updateCall: KernelCall;
  private readonly normParams = new ArrayBuffer(16);
  private readonly updateParams = new ArrayBuffer(48);
  private opts: Required<AdamWOptions>;

  /**
   * @param layout parameter layout (tensors 64-float aligned; totalFloats a multiple of 4).
   * @param params flat f32 parameters [totalFloats], updated in place.
   * @param grads flat f32 gradients [totalFloats], same layout (padding must hold 0).
   * @param opts hyperparameters; `maxWorkgroups` caps the AdamW grid (grid-stride loop beyond).
   * @throws Error naming an invalid hyperparameter or a misaligned layout.
   */
  constructor(
    private readonly ctx: GpuContext,
    layout: Pick<ParamLayout, "tensors" | "totalFloats">,
    params: GPUBuffer,
    grads: GPUBuffer,
    opts: AdamWOptions,
    tuning: { maxWorkgroups?: number } = {},
  ) {
    if (layout.totalFloats % ALIGN_FLOATS !== 0)
      throw new Error(
        `layout.totalFloats (${layout.totalFloats}) must be a multiple of ${ALIGN_FLOATS}`,
      );
    this.opts = resolveAdamW(opts);
    this.totalFloats = layout.totalFloats;
    const n4 = layout.totalFloats / 4;
    const bytes = layout.totalFloats * 4;
    this.m = ctx.createBuffer("adamw.m", bytes);
    this.v = ctx.createBuffer("adamw.v", bytes);
    this.decayMask = ctx.createBufferFrom("adamw.decayMask", decayBlockMask(layout));
    this.gradStats = ctx.createBuffer("adamw.gradStats", 16);
    this.partials = ctx.createBuffer("adamw.gradNormPartials", GRAD_NORM_PARTIALS * 4);
    // Fresh buffers are zero-filled by WebGPU: m = v = 0.

    const nv = new DataView(this.normParams);
    nv.setUint32(0, n4, true);
    nv.setUint32(4, GRAD_NORM_PARTIALS, true);
    const partialK = ctx.kernel("grad_norm.partial", gradNormCode, "partial");
    const finalizeK = ctx.kernel("grad_norm.finalize", gradNormCode, "finalize");
    const normBindings = [grads, this.partials, this.gradStats];
    this.partialCall = ctx.call(partialK, normBindings, this.packNorm(), [
      GRAD_NORM_PARTIALS / ADAMW_WG,
    ]);
    this.finalizeCall = ctx.call(finalizeK, normBindings, this.packNorm(), [1]);

    const maxWg =
      tuning.maxWorkgroups ?? Math.min(4096, ctx.adapter.limits.maxComputeWorkgroupsPerDimension);
    const wg = Math.max(1, Math.min(Math.ceil(n4 / ADAMW_WG), maxWg));
    const uv = new DataView(this.updateParams);
    uv.setUint32(0, n4, true);
    this.updateCall = ctx.call(
      ctx.kernel("adamw", adamwCode),
      [params, grads, this.m, this.v, this.decayMask, this.gradStats],
      this.packUpdate(1),
      [wg],
    );
  }

  /** Current hyperparameters (defaults filled in). */
  get options(): Readonly<Required<AdamWOptions>> {
    return this.opts;
  }

  /**
   * Changes hyperparameters from the next step on (mid-run changes, LR schedules).
   * @throws Error naming an invalid hyperparameter.
   */
  setOptions(o: Partial<AdamWOptions>): void {
    this.opts = resolveAdamW({ ...this.opts, ...o });
  }

  /**
   * Records one optimizer step (t ← t + 1): gradient norm, clip scale, AdamW
   * update. `lr` overrides the learning rate for this step (schedules).
   */
  step(lr?: number): void {
    if (lr !== undefined) this.setOptions({ lr });
    this.t += 1;
    this.partialCall.setParams(this.packNorm());
    this.finalizeCall.setParams(this.normParams);
    this.updateCall.setParams(this.packUpdate(this.t));
    this.ctx.run(this.partialCall);
    this.ctx.run(this.finalizeCall);
    this.ctx.run(this.updateCall);
  }

  /** Zeroes m and v and sets t = 0 (a fresh optimizer on the same buffers). */
  reset(): void {
    this.ctx.clear(this.m);
    this.ctx.clear(this.v);
    this.t = 0;
  }

  /**
   * Makes this optimizer's state a copy of `src`'s: m and v by GPU
   * buffer-to-buffer copies (recorded into the open encoder, no read-back),
   * the step counter t (so bias correction continues where `src` was) and
   * the hyperparameters. Used to fork a policy mid-run (LabRun.fork).
   * @throws Error when the two optimizers cover a different number of floats.
   */
  copyStateFrom(src: AdamW): void {
    if (src === this) return;
    if (src.totalFloats !== this.totalFloats) {
      throw new Error(
        `AdamW.copyStateFrom: source has ${src.totalFloats} floats, this optimizer ${this.totalFloats}`,
      );
    }
    const bytes = this.totalFloats * 4;
    this.ctx.copy(src.m, 0, this.m, 0, bytes);
    this.ctx.copy(src.v, 0, this.v, 0, bytes);
    this.t = src.t;
    this.opts = { ...src.opts };
  }

  /** Frees this optimizer's GPU buffers (m, v, mask, statistics, uniforms); the object is unusable afterwards. */
  destroy(): void {
    for (const b of [this.m, this.v, this.decayMask, this.gradStats, this.partials]) b.destroy();
    for (const c of [this.partialCall, this.finalizeCall, this.updateCall]) c.params.destroy();
  }

  /** Reads the latest step's gradient statistics (one small read-back). */
  async readStats(): Promise<GradStats> {
    return parseGradStats(await this.ctx.readF32(this.gradStats, 0, 4));
  }

  private packNorm(): ArrayBuffer {
    const dv = new DataView(this.normParams);
    const c = this.opts.maxGradNorm;
    dv.setFloat32(8, Number.isFinite(c) && c > 0 ? c : 0, true);
    return this.normParams;
  }

  private packUpdate(t: number): ArrayBuffer {
    const o = this.opts;
    const dv = new DataView(this.updateParams);
    dv.setFloat32(16, o.lr, true);
    dv.setFloat32(20, o.beta1, true);
    dv.setFloat32(24, o.beta2, true);
    dv.setFloat32(28, o.eps, true);
    dv.setFloat32(32, o.weightDecay, true);
    // Bias corrections in f64 on the CPU, then rounded once to f32.
    dv.setFloat32(36, 1 - o.beta1 ** t, true);
    dv.setFloat32(40, 1 - o.beta2 ** t, true);
    return this.updateParams;
  }
}

/** Decodes the 4 floats of `gradStats`. */
export function parseGradStats(raw: ArrayLike<number>): GradStats {
  return { gradNorm: raw[0], clipScale: raw[1], finite: raw[2] !== 0 };
}
