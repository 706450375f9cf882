/**
 * AdamW with global gradient-norm clipping, entirely on the GPU, over the one
 * flat parameter buffer of `paramLayout` (three dispatches per step, no
 * read-back; WGSL in shaders/adamw/, specs in ./spec.ts):
 *   1. grad_norm_partial:  GRAD_NORM_PARTIALS partial sums of g²
 *   2. grad_norm_finalize: norm, clip scale = min(1, maxNorm/(norm + 1e-6)), finite flag
 *   3. adamw:              the AdamW update with the clip scale applied to g
 * The gradient norm lands in `gradStats` ([norm, scale, finite, Σg²], f32),
 * which the trainer reads with its other per-step statistics.
 *
 * Formulas: AdamW (Loshchilov & Hutter 2019, "Decoupled Weight Decay
 * Regularization", Algorithm 2), written as PyTorch's torch.optim.AdamW;
 * clipping as torch.nn.utils.clip_grad_norm_ (total 2-norm, 1e-6 in the
 * denominator). Weight decay applies to 2-D tensors only (matrices and
 * embeddings), not to biases or LayerNorm parameters (nanoGPT's
 * configure_optimizers). The CPU reference is ./reference.ts; the checker
 * test/gpu/adamw/adamw.test.ts.
 */
import type { GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import { ALIGN_FLOATS, type ParamLayout } from "../../layout/param-layout";
import { adamwSpec, GRAD_NORM_PARTIALS, gradNormFinalizeSpec, gradNormPartialSpec } from "./spec";

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
  /** Decoupled weight decay on 2-D tensors; default 0 (lab default in src/settings/experiment.ts). */
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
  private readonly partialCall: SpecCall<typeof gradNormPartialSpec.uniforms>;
  private readonly finalizeCall: SpecCall<typeof gradNormFinalizeSpec.uniforms>;
  private readonly updateCall: SpecCall<typeof adamwSpec.uniforms>;
  private opts: Required<AdamWOptions>;

  /**
   * @param layout parameter layout (tensors 64-float aligned; totalFloats a multiple of 4).
   * @param params flat f32 parameters [totalFloats], updated in place.
   * @param grads flat f32 gradients [totalFloats], same layout (padding must hold 0).
   * @param opts hyperparameters.
   * @param tuning `maxWorkgroups` caps the AdamW grid (a grid-stride loop covers the rest; tests).
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

    this.partialCall = gradNormPartialSpec.call(
      ctx,
      { grads, partials: this.partials },
      { n4, numPartials: GRAD_NORM_PARTIALS },
    );
    this.finalizeCall = gradNormFinalizeSpec.call(
      ctx,
      { partials: this.partials, stats: this.gradStats },
      { numPartials: GRAD_NORM_PARTIALS, maxNorm: this.maxNorm() },
    );
    const wg = tuning.maxWorkgroups;
    this.updateCall = adamwSpec.call(
      ctx,
      {
        params,
        grads,
        m: this.m,
        v: this.v,
        decayMask: this.decayMask,
        gstats: this.gradStats,
      },
      { n4, ...this.updateValues(1) },
      wg
        ? { workgroups: [Math.max(1, Math.min(Math.ceil(n4 / adamwSpec.workgroupSize), wg))] }
        : {},
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
    this.finalizeCall.set({ maxNorm: this.maxNorm() });
    this.updateCall.set(this.updateValues(this.t));
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

  /** The finalize stage's clip threshold: maxGradNorm, or 0 (off) when it is ≤ 0 or infinite. */
  private maxNorm(): number {
    const c = this.opts.maxGradNorm;
    return Number.isFinite(c) && c > 0 ? c : 0;
  }

  /** The update's hyperparameters at step t; bias corrections in f64 on the CPU, rounded once to f32. */
  private updateValues(t: number) {
    const o = this.opts;
    return {
      lr: o.lr,
      beta1: o.beta1,
      beta2: o.beta2,
      eps: o.eps,
      weightDecay: o.weightDecay,
      bc1: 1 - o.beta1 ** t,
      bc2: 1 - o.beta2 ** t,
    };
  }
}

/** Decodes the 4 floats of `gradStats`. */
function parseGradStats(raw: ArrayLike<number>): GradStats {
  return { gradNorm: raw[0], clipScale: raw[1], finite: raw[2] !== 0 };
}
