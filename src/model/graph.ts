/**
 * TrainGraph: the tiny VLM's training step on the GPU, built once per
 * (context, config, B, textLen) and reused every step (llm.c's
 * gpt2_forward / gpt2_zero_grad / gpt2_backward as prepared dispatches).
 *
 * It owns the activation buffers and the KernelCalls; the caller owns the
 * flat parameter and gradient buffers (paramLayout order) and binds them at
 * construction, so the optimizer (AdamW, clipping) can update them in place.
 * Any other parameter buffer (the frozen reference policy, say) can be run
 * through the same forward with `forwardLogprobs(buffer)`; its dispatches are
 * prepared on first use and cached, so steady-state steps allocate nothing.
 *
 * One step = setBatch (queue writes) → sftForwardBackward / policyForwardBackward (forward, loss,
 * backward recorded into the context and submitted ONCE) → readStats (ONE
 * read-back of 8 floats; throws on a non-finite loss).
 *
 * The dispatches are built by ./graph-forward.ts and ./graph-backward.ts
 * over the buffers of ./graph-buffers.ts; a shared-prefix graph
 * (TrainGraphOptions.sharedPrefix) runs them on the prefix layout of
 * ./prefix-layout.ts. Per-token arrays [B, textLen] are aligned with the
 * tokens (./graph-types.ts).
 */
import type { Binding, GpuContext, KernelCall } from "../gpu/context";
import { numPatches, paramLayout, validateConfig, type ModelConfig } from "./config";
import type { ParamLayout } from "../layout/param-layout";
import * as K from "../kernels";
import {
  allocGraphBuffers,
  type GraphBuffers,
  type GraphParts,
  type PackedBuffers,
  type RowField,
} from "./graph-buffers";
import { buildForward } from "./graph-forward";
import { buildBackward } from "./graph-backward";
import {
  checkTemperature,
  DEFAULT_AGGREGATION,
  policyStepSettings,
  type LayerActs,
  type PolicyForwardBackwardOptions,
  type StepStats,
  type TrainBatch,
  type BufferSource,
  type TrainGraphOptions,
} from "./graph-types";
import type { PrefixLayout } from "../layout/prefix-layout";
import { planBatch } from "./graph-batch";
import { IS_NODE, ReadPacer } from "./read-pacer";

export type {
  PolicyAggregation,
  PolicyForwardBackwardOptions,
  StepStats,
  TrainBatch,
  TrainGraphOptions,
} from "./graph-types";

/** Packed row counts are rounded up to a multiple of this (the 16×8 forward matmul's row tile; lab choice). */
const ROW_QUANTUM = 16;

/** The tiny VLM's forward, losses and backward as prepared GPU dispatches. */
export class TrainGraph implements BufferSource {
  readonly ctx: GpuContext;
  readonly config: ModelConfig;
  readonly layout: ParamLayout;
  readonly B: number;
  /** Text tokens per sequence: L in the shape comments and kernel dims. */
  readonly textLen: number;
  readonly padId: number;
  /** P patch tokens; T = P + textLen positions. */
  readonly P: number;
  readonly T: number;
  /** Trainable parameters and their gradients (flat, paramLayout; owned by the caller). */
  readonly params: GPUBuffer;
  readonly grads: GPUBuffer;

  // inputs
  readonly images: GPUBuffer; // [B, H·W·C]
  readonly tokens: GPUBuffer; // i32 [B, L]
  readonly mask: GPUBuffer; // [B, L]
  readonly advantages: GPUBuffer; // [B]
  readonly oldLogprobs: GPUBuffer; // [B, L]
  readonly refLogprobs: GPUBuffer; // [B, L]
  readonly layers: LayerActs[];
  /** [B, T, V] logits at every position (patch rows included; text row P+s predicts token s+1). */
  readonly logits: GPUBuffer;
  /** [B, L] per-token logprobs of the last forward (0 at s = 0). */
  readonly logprobs: GPUBuffer;
  /** [B·L, 8] per-token loss records (see shaders/loss/loss_token.wgsl). */
  readonly tok: GPUBuffer;
  /** [B, L] weighted per-token gradient of the loss w.r.t. the token logprobs. */
  readonly tokenGrad: GPUBuffer;
  /** [8] loss, kl, clipFrac, entropy, tokens (see readStats). */
  readonly stats: GPUBuffer;
  /** True when the last block runs on the loss rows only (TrainGraphOptions.compactLastLayer). */
  readonly compactLastLayer: boolean;
  /** Rollouts per group of a shared-prefix graph (TrainGraphOptions.sharedPrefix), or null. */
  readonly sharedPrefix: number | null;
  /** The prefix layout of the current batch (a shared-prefix graph after setBatch), else null. */
  prefix: PrefixLayout | null = null;

  private readonly bufs: GraphBuffers;
  private readonly packed: PackedBuffers | null;
  /** What the dispatch builders read (./graph-buffers.ts GraphParts). */
  private readonly parts: GraphParts;
  /** Setters of the packed row count of every compacted call (setBatch runs them). */
  private rowSetters: ((rows: number) => void)[] = [];
  /** Setters of the prefix layout of every shared-prefix call (setBatch runs them). */
  private layoutSetters: ((l: PrefixLayout) => void)[] = [];
  /** Packed row count of the current batch (B·T until the first setBatch). */
  private rows: number;

  private forwards = new Map<GPUBuffer, KernelCall[]>();
  /** Buffers by label, allocated by this graph or taken from shareBuffersOf (BufferSource). */
  readonly bufferPool = new Map<string, GPUBuffer>();
  private lossLogprobsCall: K.LossTokenCall;
  private lossSftCall: K.LossTokenCall;
  private lossPolicyCall: K.LossTokenCall;
  private reduceSftCall: K.LossReduceCall;
  private reducePolicyCall: K.LossReduceCall;
  /** The backward's dispatches (built on first use: prepare()); logitsGrad is the first, its uniform carries τ. */
  private back: { calls: KernelCall[]; logitsGrad: K.LossLogitsGradCall } | null = null;
  /** Sleeps before the stats read-back in Node (TrainGraphOptions.sleepBeforeRead). */
  private pacer: ReadPacer<"sft" | "policy">;

  /**
   * Allocates every buffer and prepares every dispatch for batches of B
   * examples of textLen text tokens.
   * @throws Error on an invalid config, P + textLen > maxSeqLen, buffers that
   *   are too small, or a sharedPrefix the graph cannot run (see TrainGraphOptions).
   */
  constructor(
    ctx: GpuContext,
    config: ModelConfig,
    B: number,
    textLen: number,
    opts: TrainGraphOptions,
  ) {
    validateConfig(config, ctx.adapter.limits);
    this.ctx = ctx;
    this.config = config;
    this.layout = paramLayout(config);
    this.B = B;
    this.textLen = textLen;
    this.padId = opts.padId;
    this.P = numPatches(config);
    this.T = this.P + textLen;
    if (!Number.isInteger(B) || B < 1)
      throw new Error(`TrainGraph: B must be a positive integer, got ${B}`);
    if (!Number.isInteger(textLen) || textLen < 2)
      throw new Error(`TrainGraph: textLen must be an integer ≥ 2, got ${textLen}`);
    if (this.T > config.maxSeqLen)
      throw new Error(
        `TrainGraph: P + textLen = ${this.T} exceeds config.maxSeqLen ${config.maxSeqLen}`,
      );
    const need = this.layout.totalFloats * 4;
    if (opts.params.size < need)
      throw new Error(
        `TrainGraph: params buffer has ${opts.params.size} bytes, the layout needs ${need}`,
      );
    if (opts.grads.size < need)
      throw new Error(
        `TrainGraph: grads buffer has ${opts.grads.size} bytes, the layout needs ${need}`,
      );
    this.params = opts.params;
    this.grads = opts.grads;
    this.pacer = new ReadPacer(opts.sleepBeforeRead ?? IS_NODE);

    const { P, T } = this;
    const L = textLen;
    const C = config.dModel;
    const V = config.vocabSize;
    const BT = B * T;
    const base = opts.shareBuffersOf;
    if (base && (base.config !== config || base.B !== B || base.textLen < textLen))
      throw new Error(
        `TrainGraph: shareBuffersOf needs a graph of the same config and B = ${B} with textLen ≥ ${textLen}`,
      );
    this.compactLastLayer = opts.compactLastLayer ?? false;
    const G = opts.sharedPrefix;
    if (G !== undefined) {
      if (!(Number.isInteger(G) && G >= 1 && B % G === 0))
        throw new Error(
          `TrainGraph: sharedPrefix ${G} must be a positive integer dividing B = ${B}`,
        );
      const hd = C / config.nHeads;
      if (!this.compactLastLayer || hd % 4 !== 0 || hd > K.PREFIX_MAX_HEAD)
        throw new Error(
          `TrainGraph: sharedPrefix needs compactLastLayer and a head size that is a multiple of 4 up to ${K.PREFIX_MAX_HEAD}, got compactLastLayer ${this.compactLastLayer} and head size ${hd}`,
        );
    }
    this.sharedPrefix = G ?? null;
    this.rows = BT;
    if (this.compactLastLayer && (config.nLayers < 1 || V % 4 !== 0))
      throw new Error(
        `TrainGraph: compactLastLayer needs at least one layer and a vocabulary size that is a multiple of 4 (the row gather reads vec4), got ${config.nLayers} and ${V}`,
      );
    const buffer = (label: string, floats: number) => {
      const shared = base?.bufferPool.get(label);
      // base is at least as large in every dimension, so each shared buffer fits.
      const buf = shared ?? ctx.createBuffer(`graph.${label}`, floats * 4);
      this.bufferPool.set(label, buf);
      return buf;
    };
    // Packed buffers hold at most base's B·T rows; allocated once and lent to base's other windows.
    const capRows = B * (base ? base.T : T);
    const packedBuffer = (label: string, width: number) => {
      const shared = base?.bufferPool.get(label) ?? this.bufferPool.get(label);
      const buf = shared ?? ctx.createBuffer(`graph.${label}`, capRows * width * 4);
      this.bufferPool.set(label, buf);
      base?.bufferPool.set(label, buf);
      return buf;
    };
    const { bufs, packed } = allocGraphBuffers(
      config,
      B,
      L,
      P,
      buffer,
      this.compactLastLayer ? packedBuffer : null,
      this.sharedPrefix !== null,
    );
    this.bufs = bufs;
    this.packed = packed;
    this.images = bufs.images;
    this.tokens = bufs.tokens;
    this.mask = bufs.mask;
    this.advantages = bufs.advantages;
    this.oldLogprobs = bufs.oldLogprobs;
    this.refLogprobs = bufs.refLogprobs;
    this.layers = bufs.layers;
    this.logits = bufs.logits;
    this.logprobs = bufs.logprobs;
    this.tok = bufs.tok;
    this.tokenGrad = bufs.tokenGrad;
    this.stats = bufs.stats;

    const H4 = config.mlpRatio * C;
    const setRows = (c: KernelCall, per: RowField): ((rows: number) => void) => {
      const call = c as unknown as { set(v: Record<string, number>): void };
      return (rows) => {
        if (per === "M") call.set({ M: rows });
        else if (per === "N") call.set({ N: rows });
        else if (per === "NH4") call.set({ N: rows * H4 });
        else call.set({ R: rows });
      };
    };
    const graph = this;
    const onLayout = (set: (l: PrefixLayout) => void) => {
      this.layoutSetters.push(set);
      if (this.prefix) set(this.prefix);
    };
    this.parts = {
      ctx,
      config,
      layout: this.layout,
      B,
      P,
      T,
      L,
      padId: this.padId,
      bufs,
      packed,
      // The packed attention kernels index the plain layout: a shared-prefix graph gathers after its attention.
      packedAttention:
        this.compactLastLayer && this.sharedPrefix === null && (C / config.nHeads) % 4 === 0,
      sharedPrefix: this.sharedPrefix,
      get rows() {
        return graph.rows;
      },
      get posOff() {
        return graph.posOff;
      },
      embedCalls: this.embedCalls,
      packedCall: (c, per = "R") => {
        this.rowSetters.push(setRows(c, per));
        return c;
      },
      layoutCall: (c, per) => {
        if (this.sharedPrefix !== null) {
          const set = setRows(c, per);
          onLayout((l) => set(l.rows));
        }
        return c;
      },
      onLayout,
      slot: (buf, name) => this.slot(buf, name),
    };

    // loss dispatches (independent of the parameter buffer)
    const ld = { B, T, L, P, V };
    const lb = {
      logits: bufs.logits,
      tokens: bufs.tokens,
      mask: bufs.mask,
      advantages: bufs.advantages,
      oldLogprobs: bufs.oldLogprobs,
      refLogprobs: bufs.refLogprobs,
      logprobs: bufs.logprobs,
      tok: bufs.tok,
    };
    this.lossLogprobsCall = K.lossToken(ctx, lb, ld, K.LOSS_MODE.logprobs);
    this.lossSftCall = K.lossToken(ctx, lb, ld, K.LOSS_MODE.sft);
    this.lossPolicyCall = K.lossToken(ctx, lb, ld, K.LOSS_MODE.policy, 0.2, 0);
    const rb = { tok: bufs.tok, g: bufs.tokenGrad, stats: bufs.stats };
    this.reduceSftCall = K.lossReduce(ctx, rb, B, L, K.AGGREGATION["token-mean"], 1);
    this.reducePolicyCall = K.lossReduce(ctx, rb, B, L, K.AGGREGATION[DEFAULT_AGGREGATION], L - 1);
    // The forward and backward dispatches (and their pipelines) are built on first use or by
    // prepare(): a graph kept only for its buffers (LabEngine's full graph under its windows)
    // compiles none of them (lab choice: fewer pipeline builds before the first RL step).
  }

  /**
   * Builds the dispatches (and compiles the pipelines) of a step on the
   * trainable parameters: the forward and the backward. Otherwise they are
   * built on first use. Records nothing.
   */
  prepare(): void {
    this.backward();
    this.forwardCalls(this.params);
  }

  private backward(): { calls: KernelCall[]; logitsGrad: K.LossLogitsGradCall } {
    if (!this.back) this.back = buildBackward(this.parts, this.params, this.grads);
    return this.back;
  }

  /** The embedding calls (every forward's and the backward's), whose posOff setTextOffset sets. */
  private embedCalls: { set(v: { posOff: number }): void }[] = [];
  private posOff = 0;

  /** A tensor of a flat parameter-like buffer as a 256-byte aligned binding. */
  private slot(buf: GPUBuffer, name: string): Binding {
    const t = this.layout.byName.get(name);
    if (!t) throw new Error(`TrainGraph: no parameter named '${name}'`);
    return { buffer: buf, offset: t.offset * 4, size: t.size * 4 };
  }

  /** Prepares (once per parameter buffer) the forward dispatches up to the logits. */
  private forwardCalls(params: GPUBuffer): KernelCall[] {
    const cached = this.forwards.get(params);
    if (cached) return cached;
    if (params.size < this.layout.totalFloats * 4)
      throw new Error(
        `TrainGraph: params buffer has ${params.size} bytes, the layout needs ${this.layout.totalFloats * 4}`,
      );
    const calls = buildForward(this.parts, params);
    this.forwards.set(params, calls);
    return calls;
  }

  /** Queues a CPU array write, or records a GPU copy, into one of the graph's input buffers. */
  private put(
    dst: GPUBuffer,
    src: Float32Array | Int32Array | GPUBuffer,
    floats: number,
    name: string,
  ): void {
    if (src instanceof Float32Array || src instanceof Int32Array) {
      if (src.length !== floats)
        throw new Error(`TrainGraph: ${name} has ${src.length} values, expected ${floats}`);
      this.ctx.write(dst, src);
    } else {
      if (src === dst) return; // already in place (e.g. forwardLogprobs(params, graph.oldLogprobs))
      if (src.size < floats * 4)
        throw new Error(
          `TrainGraph: ${name} buffer has ${src.size} bytes, expected at least ${floats * 4}`,
        );
      this.ctx.copy(src, 0, dst, 0, floats * 4);
    }
  }

  /**
   * Sets the batch for the next steps (queued writes or GPU copies; nothing runs yet).
   * A shared-prefix graph finds the positions each group shares
   * (prefix-layout.ts sharedPositions) and lays the step out on them; one
   * image per group is written when they are shared.
   * @throws Error on a size mismatch, a token id outside [0, V), a mask that
   *   is not a CPU array (compactLastLayer), or images that are not a CPU
   *   array (sharedPrefix).
   */
  setBatch(batch: TrainBatch): void {
    const { B, P, textLen: L, config } = this;
    const V = config.vocabSize;
    const pixels = config.imageHeight * config.imageWidth * config.imageChannels;
    for (let i = 0; i < batch.tokens.length; i++) {
      const id = batch.tokens[i];
      if (!(id >= 0 && id < V))
        throw new Error(`TrainGraph.setBatch: token ${id} at ${i} is outside [0, ${V})`);
    }
    if (batch.tokens.length !== B * L)
      throw new Error(`TrainGraph: tokens has ${batch.tokens.length} values, expected ${B * L}`);
    // Checked before anything is written: a refused batch leaves the graph's inputs as they were.
    if (this.packed && !(batch.mask instanceof Float32Array))
      throw new Error(
        "TrainGraph.setBatch: a compacted graph (compactLastLayer) needs the mask as a CPU array",
      );
    const { prefix, order, start, rows } = planBatch(batch, {
      B,
      L,
      P,
      V,
      pixels,
      sharedPrefix: this.sharedPrefix,
      compact: this.packed !== null,
      quantum: ROW_QUANTUM,
    });
    if (prefix && prefix.S > 0) {
      // One image per group: group g's first rollout's.
      const images = batch.images as Float32Array;
      for (let g = 0; g < prefix.nG; g++)
        this.ctx.write(
          this.images,
          images.subarray(g * prefix.G * pixels, (g * prefix.G + 1) * pixels),
          g * pixels * 4,
        );
    } else this.put(this.images, batch.images, B * pixels, "images");
    this.put(this.tokens, batch.tokens, B * L, "tokens");
    this.ctx.write(this.bufs.tokenOrder, order);
    this.ctx.write(this.bufs.tokenStart, start);
    if (batch.mask) this.put(this.mask, batch.mask, B * L, "mask");
    if (rows && this.packed) {
      const pk = this.packed;
      if ("idxRows" in rows) {
        this.ctx.write(pk.idxRows, rows.idxRows);
        this.ctx.write(pk.idxLogits, rows.idxLogits);
        this.ctx.write(pk.invRows, rows.invRows);
        this.ctx.write(pk.invLogits, rows.invLogits);
      } else {
        this.ctx.write(pk.idxRows, rows.idx);
        this.ctx.write(pk.invLogits, rows.inv);
      }
      if (rows.rows !== this.rows) {
        this.rows = rows.rows;
        for (const set of this.rowSetters) set(rows.rows);
      }
    }
    if (prefix && (this.prefix?.S !== prefix.S || this.prefix.rows !== prefix.rows)) {
      this.prefix = prefix;
      for (const set of this.layoutSetters) set(prefix);
    }
    this.prefix = prefix;
  }

  /**
   * Places text column s at position P + offset + s from the next step on
   * (default 0): a window graph runs the columns [offset, offset + textLen)
   * of a longer text whose first `offset` columns are PAD in every row, at the
   * positions they have there, so its logprobs and gradients are those of the
   * longer text (PAD rows feed no loss and are masked as keys).
   * @throws Error when offset is not an integer ≥ 0 or P + offset + textLen > maxSeqLen.
   */
  setTextOffset(offset: number): void {
    if (!Number.isInteger(offset) || offset < 0 || this.T + offset > this.config.maxSeqLen)
      throw new Error(
        `TrainGraph.setTextOffset: offset must be an integer in [0, ${this.config.maxSeqLen - this.T}], got ${offset}`,
      );
    this.posOff = offset;
    for (const c of this.embedCalls) c.set({ posOff: offset });
  }

  private recordForward(params: GPUBuffer): void {
    if (this.parts.packedAttention) {
      // The packed forward writes only the loss rows' att rows; the full kv pass reads every row (as 0).
      const { B, T, config } = this;
      const last = this.layers[config.nLayers - 1];
      this.ctx.clear(last.att, 0, B * config.nHeads * T * T * 4);
    }
    for (const c of this.forwardCalls(params)) this.ctx.run(c);
  }

  private recordBackward(): void {
    this.ctx.clear(this.grads);
    if (this.parts.packedAttention) {
      // The packed q pass writes only the loss rows' dpre and dq; the rest must read 0.
      const { B, T, config } = this;
      this.ctx.clear(this.bufs.dpre, 0, B * config.nHeads * T * T * 4);
      this.ctx.clear(this.bufs.dqkv, 0, B * T * 3 * config.dModel * 4);
    }
    for (const c of this.backward().calls) this.ctx.run(c);
  }

  /**
   * Runs the forward pass with `params` (default: the trainable buffer) and
   * computes per-token logprobs [B, textLen] into `this.logprobs` (copied to
   * `out` too when given, e.g. the reference-policy or old-policy logprobs).
   * Submits once. Dispatches for a new params buffer are prepared on first use.
   * @param temperature τ > 0: logprobs of softmax(logits/τ) (default 1).
   * @returns the buffer holding the logprobs (`out` when given).
   * @throws Error when τ is not a finite number > 0.
   */
  forwardLogprobs(params: GPUBuffer = this.params, out?: GPUBuffer, temperature = 1): GPUBuffer {
    checkTemperature("forwardLogprobs", temperature);
    this.lossLogprobsCall.set({ invTemp: 1 / temperature });
    this.recordForward(params);
    this.ctx.run(this.lossLogprobsCall);
    if (out) this.ctx.copy(this.logprobs, 0, out, 0, this.B * this.textLen * 4);
    this.ctx.flush();
    return out ?? this.logprobs;
  }

  /**
   * One SFT step's forward and backward: mean cross-entropy over the masked
   * tokens (setBatch's mask), gradients into `grads` (zeroed first). Submits once.
   */
  sftForwardBackward(): void {
    const { ctx } = this;
    this.backward().logitsGrad.set({ invTemp: 1 });
    this.recordForward(this.params);
    ctx.run(this.lossSftCall);
    ctx.run(this.reduceSftCall);
    this.recordBackward();
    ctx.flush();
    this.pacer.submitted("sft");
  }

  /**
   * One policy-gradient step's forward and backward (docs/reward-spec.md §1): the
   * clipped surrogate with per-rollout advantages plus β·k3 KL to the
   * reference logprobs, aggregated as `aggregation`, over the masked tokens.
   * Gradients go into `grads` (zeroed first). Submits once.
   * @throws Error on out-of-range options or size mismatches.
   */
  policyForwardBackward(opts: PolicyForwardBackwardOptions): void {
    const { ctx, B, textLen: L } = this;
    const { clipEps, beta, agg, normLength, temperature } = policyStepSettings(opts, L);
    this.put(this.advantages, opts.advantages, B, "advantages");
    if (opts.oldLogprobs) this.put(this.oldLogprobs, opts.oldLogprobs, B * L, "oldLogprobs");
    if (opts.refLogprobs) this.put(this.refLogprobs, opts.refLogprobs, B * L, "refLogprobs");
    const M = K.LOSS_MODE;
    const mode = opts.oldLogprobs
      ? opts.refLogprobs
        ? M.policy
        : M.policyNoRef
      : opts.refLogprobs
        ? M.policyOnPolicy
        : M.policyNoRefOnPolicy;
    this.lossPolicyCall.set({ mode, clipEps, beta, invTemp: 1 / temperature });
    this.backward().logitsGrad.set({ invTemp: 1 / temperature });
    this.reducePolicyCall.set({ agg: K.AGGREGATION[agg], normLength });
    this.recordForward(this.params);
    ctx.run(this.lossPolicyCall);
    ctx.run(this.reducePolicyCall);
    this.recordBackward();
    ctx.flush();
    this.pacer.submitted("policy");
  }

  /**
   * The prepared dispatches of the trainable parameters' forward (patches to
   * logits) and of the backward (dlogits to every gradient), in run order,
   * for profiling (npm run bench:kernels). Running them out of a step's
   * order leaves the buffers in no defined state.
   */
  dispatches(): { forward: readonly KernelCall[]; backward: readonly KernelCall[] } {
    return { forward: this.forwardCalls(this.params), backward: this.backward().calls };
  }

  /** Forgets the measured step times (after a warm-up step that paid for the pipeline builds). */
  forgetStepTimes(): void {
    this.pacer.forget();
  }

  /**
   * Reads the statistics of the last step: ONE read-back of 8 floats.
   * @throws Error when the loss is NaN or ±Inf (the step diverged; do not apply its gradients).
   */
  async readStats(): Promise<StepStats> {
    const s = await this.pacer.read(() => this.ctx.readF32(this.stats, 0, 8));
    const stats = { loss: s[0], kl: s[1], clipFrac: s[2], entropy: s[3], tokens: s[4] };
    if (!Number.isFinite(stats.loss)) {
      throw new Error(
        `TrainGraph: the loss is ${stats.loss} (kl ${stats.kl}, entropy ${stats.entropy}); training diverged — lower the learning rate or check the inputs`,
      );
    }
    return stats;
  }
}
