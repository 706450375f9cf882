/**
 * LabEngine: the GPU side of a lab run, shared by every reward variant.
 *
 * One device, one model config. Each variant is a `Policy` (its own parameter
 * buffer and AdamW state); the activations, the generator, the gradient
 * buffer and the frozen reference policy are shared, so adding a variant costs
 * only 3× its parameters (params, m, v). Before a variant's update its
 * parameters are copied into the shared working buffer the graph is bound to
 * (a GPU copy of a few hundred KB), and its own AdamW writes the update back.
 */
import type { GpuContext } from "../gpu/context";
import { paramLayout, type ModelConfig } from "../model/config";
import type { ParamLayout } from "../layout/param-layout";
import { TrainGraph, type PolicyAggregation, type StepStats } from "../model/graph";
import { Generator, type GenerateResult } from "../model/generate";
import { AdamW, type AdamWOptions, type GradStats } from "../kernels/adamw/launch";
import { AdvantageKernel, type GroupStatsResult } from "../kernels/advantages/launch";
import type { EstimatorName } from "../settings/estimator-table";
import type { TextShape, TextBatch } from "./sequences";
import { EOS_ID, PAD_ID } from "../tasks/tokenizer";
import { sliceColumns, textWindow } from "./text-window";
import { PREFIX_MAX_HEAD } from "../kernels/attention/launch";

/** One trainable copy of the model with its optimizer state. */
export interface Policy {
  name: string;
  /** Flat f32 parameters [totalFloats] (paramLayout). */
  params: GPUBuffer;
  adam: AdamW;
  /**
   * AdamW state of the auxiliary cross-entropy step (StructReward's recycling
   * and hard negatives, src/rl/aux-step.ts) on the same parameters, made on
   * first use (LabEngine.auxOptimizer); absent until then.
   */
  auxAdam?: AdamW;
}

/** Sampling settings of a generate call. */
export interface SamplingOptions {
  temperature: number;
  topK: number;
  topP: number;
  greedy: boolean;
  seed: number;
}

/** Hyperparameters of one policy-gradient update (docs/reward-spec.md §1). */
export interface UpdateOptions {
  clipEps: number;
  beta: number;
  aggregation: PolicyAggregation;
  lr: number;
  /** Sampling temperature of the rollouts: old, reference and current logprobs are all taken at it (default 1). */
  temperature?: number;
  /**
   * Rollouts per prompt G: the batch comes in groups of G rollouts of one
   * image and prompt, whose shared positions the update computes once per
   * group (LabEngine.sharePrefix). Default 1 (no groups).
   */
  groupSize?: number;
}

/**
 * Window lengths are rounded up to a multiple of this (lab choice: 1). A window
 * graph shares the full graph's buffers and pipelines, so a new length costs
 * only its bind groups, while every column rounded up costs B rows of the whole
 * forward and backward (4 cost the default experiment 3 of 52 columns).
 */
const WINDOW_QUANTUM = 1;

/** What an update reports (one read-back each from the graph and AdamW). */
export interface UpdateStats extends StepStats, GradStats {}

/** Owns every GPU object of a run. */
export class LabEngine {
  readonly layout: ParamLayout;
  readonly textLen: number;
  /** Frozen reference policy π_ref (the cold-start checkpoint). */
  readonly ref: GPUBuffer;
  private readonly work: GPUBuffer;
  /** The shared gradient buffer [totalFloats] f32: every backward pass writes it, then the policy's AdamW reads it. */
  readonly grads: GPUBuffer;
  private graphs = new Map<number, { graph: TrainGraph; oldLp: GPUBuffer; refLp: GPUBuffer }>();
  /**
   * Run each policy update on the batch's used text columns only (textWindow:
   * the same loss and gradients up to float rounding, fewer positions).
   * Default true (lab choice); false runs every column, as before the window
   * (`npm run bench:rl -- --full-text` times both).
   */
  trimText = true;
  /**
   * Run each policy update's last block after its attention, final layer
   * norm and LM head on the loss rows only (TrainGraphOptions.compactLastLayer:
   * the same loss and gradients up to float summation order). Default true
   * (lab choice); false runs them on every row, as before
   * (`npm run bench:rl -- --all-rows` times both).
   */
  compactRows = true;
  /**
   * Run each policy update of a batch in groups of G rollouts (the
   * options' groupSize) on the prefix layout (TrainGraphOptions.sharedPrefix:
   * the image patches and prompt a group shares computed once in the
   * forward, their gradients summed over the group once in the backward; the
   * same loss and gradients up to float summation order). Needs compactRows
   * and a head size that is a multiple of 4 up to 32; default true (lab choice, issue 29); false runs
   * every rollout on its own (`npm run bench:rl -- --unshared` times both).
   */
  sharePrefix = true;
  /** Window graphs by `${B}x${len}` (+ "c" compacted, + "gG" shared prefix): views of graphs.get(B)'s buffers. */
  private windows = new Map<string, TrainGraph>();
  private generators = new Map<string, Generator>();
  private advantageKernels = new Map<string, AdvantageKernel>();

  /**
   * @param initial flat f32 parameters of the reference / starting policy.
   * @throws Error when the parameter count does not match the config.
   */
  constructor(
    readonly ctx: GpuContext,
    readonly config: ModelConfig,
    readonly shape: TextShape,
    initial: Float32Array,
  ) {
    this.layout = paramLayout(config);
    if (initial.length !== this.layout.totalFloats) {
      throw new Error(
        `LabEngine: ${initial.length} parameters given, the config needs ${this.layout.totalFloats}`,
      );
    }
    this.textLen = shape.promptLen + shape.maxNew;
    this.ref = ctx.createBufferFrom("policy.ref", initial);
    this.work = ctx.createBuffer("policy.work", initial.byteLength);
    this.grads = ctx.createBuffer("policy.grads", initial.byteLength);
  }

  /** A new policy starting from `initial` (default: the reference parameters). */
  createPolicy(name: string, adam: AdamWOptions, initial?: Float32Array): Policy {
    const params = this.ctx.createBuffer(`policy.${name}`, this.layout.totalFloats * 4);
    if (initial) this.ctx.write(params, initial);
    else this.ctx.copy(this.ref, 0, params, 0, this.layout.totalFloats * 4);
    return { name, params, adam: new AdamW(this.ctx, this.layout, params, this.grads, adam) };
  }

  /**
   * A new policy that continues `parent` exactly: its parameters and AdamW
   * state (m, v, t, hyperparameters) are GPU buffer copies of the parent's,
   * recorded into the open encoder (no read-back; they land before any later
   * work on either policy). Costs 3× the parameter bytes, like any policy.
   * @param name label of the new policy's buffers (e.g. the fork key "grr@fork12").
   */
  forkPolicy(parent: Policy, name: string): Policy {
    const bytes = this.layout.totalFloats * 4;
    const params = this.ctx.createBuffer(`policy.${name}`, bytes);
    this.ctx.copy(parent.params, 0, params, 0, bytes);
    const adam = new AdamW(this.ctx, this.layout, params, this.grads, parent.adam.options);
    adam.copyStateFrom(parent.adam);
    const child: Policy = { name, params, adam };
    if (parent.auxAdam) this.auxOptimizer(child).copyStateFrom(parent.auxAdam);
    return child;
  }

  /** Frees a policy's GPU buffers (parameters and optimizer state); it must not be used afterwards. */
  destroyPolicy(policy: Policy): void {
    this.ctx.flush();
    policy.params.destroy();
    policy.adam.destroy();
    policy.auxAdam?.destroy();
  }

  /** Overwrites a policy's parameters (Reset) and clears its optimizer state. */
  resetPolicy(policy: Policy, initial?: Float32Array): void {
    if (initial) this.ctx.write(policy.params, initial);
    else this.ctx.copy(this.ref, 0, policy.params, 0, this.layout.totalFloats * 4);
    policy.adam.reset();
    policy.auxAdam?.reset();
  }

  /**
   * Reads a policy's parameters and AdamW state to the CPU (run snapshots,
   * src/run/snapshot.ts): three read-backs of [totalFloats] f32 and the step counter.
   */
  async readPolicyState(
    policy: Policy,
  ): Promise<{ params: Float32Array; m: Float32Array; v: Float32Array; t: number }> {
    const n = this.layout.totalFloats;
    const t = policy.adam.t;
    const params = await this.ctx.readF32(policy.params, 0, n);
    const m = await this.ctx.readF32(policy.adam.m, 0, n);
    const v = await this.ctx.readF32(policy.adam.v, 0, n);
    return { params, m, v, t };
  }

  /**
   * Overwrites a policy's parameters and AdamW state (restoring a snapshot).
   * Work recorded before (the copy from the reference when the policy was
   * made) is submitted first, so the writes land after it.
   * @throws Error when an array is not [totalFloats] or t is not an integer ≥ 0.
   */
  writePolicyState(
    policy: Policy,
    state: { params: Float32Array; m: Float32Array; v: Float32Array; t: number },
  ): void {
    const n = this.layout.totalFloats;
    for (const [name, a] of [
      ["params", state.params],
      ["m", state.m],
      ["v", state.v],
    ] as const)
      if (a.length !== n)
        throw new Error(
          `writePolicyState(${policy.name}): ${name} has ${a.length} floats, not ${n}`,
        );
    if (!(Number.isInteger(state.t) && state.t >= 0))
      throw new Error(`writePolicyState(${policy.name}): t must be an integer ≥ 0, got ${state.t}`);
    this.ctx.flush();
    this.ctx.write(policy.params, state.params);
    this.ctx.write(policy.adam.m, state.m);
    this.ctx.write(policy.adam.v, state.v);
    policy.adam.t = state.t;
    // Snapshots hold the policy's own optimizer only: the auxiliary one starts afresh (lab choice).
    policy.auxAdam?.reset();
  }

  /**
   * The policy's auxiliary AdamW (Policy.auxAdam), made on first use: its own
   * m, v and t on the policy's parameters and the shared gradient buffer, the
   * policy's β, ε and gradient clip, no weight decay (the policy update
   * applies it once per RL step). Lab choice: the auxiliary loss's large
   * early gradients then neither enter the policy update's moments nor move
   * it at the RL learning rate. Costs 2× the parameter bytes.
   */
  auxOptimizer(policy: Policy): AdamW {
    if (!policy.auxAdam)
      policy.auxAdam = new AdamW(this.ctx, this.layout, policy.params, this.grads, {
        ...policy.adam.options,
        weightDecay: 0,
      });
    return policy.auxAdam;
  }

  /** Replaces the reference policy (after SFT from scratch). */
  setReference(params: Float32Array | GPUBuffer): void {
    if (params instanceof Float32Array) this.ctx.write(this.ref, params);
    else this.ctx.copy(params, 0, this.ref, 0, this.layout.totalFloats * 4);
  }

  /** Reads a policy's parameters to the CPU (checkpoints). */
  async readParams(buffer: GPUBuffer): Promise<Float32Array> {
    return this.ctx.readF32(buffer, 0, this.layout.totalFloats);
  }

  private graphFor(B: number) {
    let g = this.graphs.get(B);
    if (!g) {
      const graph = new TrainGraph(this.ctx, this.config, B, this.textLen, {
        padId: PAD_ID,
        params: this.work,
        grads: this.grads,
      });
      g = {
        graph,
        oldLp: this.ctx.createBuffer(`lp.old.${B}`, B * this.textLen * 4),
        refLp: this.ctx.createBuffer(`lp.ref.${B}`, B * this.textLen * 4),
      };
      this.graphs.set(B, g);
    }
    return g;
  }

  /**
   * The graph of B rows of `len` text columns: the full graph, or a view of
   * its buffers (a shorter window, a compacted last layer: compactRows, a
   * shared prefix over groups of G: sharePrefix).
   */
  private windowGraph(B: number, len: number, groupSize: number): TrainGraph {
    const base = this.graphFor(B);
    // The compacted graph needs V % 4 = 0 (the lab's vocabularies have it); other configs run every row.
    const compact = this.compactRows && this.config.vocabSize % 4 === 0 && this.config.nLayers > 0;
    const G =
      compact &&
      this.sharePrefix &&
      groupSize > 1 &&
      B % groupSize === 0 &&
      (this.config.dModel / this.config.nHeads) % 4 === 0 &&
      this.config.dModel / this.config.nHeads <= PREFIX_MAX_HEAD
        ? groupSize
        : undefined;
    if (len === this.textLen && !compact) return base.graph;
    const key = `${B}x${len}${compact ? "c" : ""}${G ? `g${G}` : ""}`;
    let g = this.windows.get(key);
    if (!g) {
      g = new TrainGraph(this.ctx, this.config, B, len, {
        padId: PAD_ID,
        params: this.work,
        grads: this.grads,
        shareBuffersOf: base.graph,
        compactLastLayer: compact,
        sharedPrefix: G,
      });
      this.windows.set(key, g);
    }
    return g;
  }

  /**
   * The graph of a policy update on `batch` (its text window when trimText,
   * compacted when compactRows, on the prefix layout of groups of G when
   * sharePrefix), with the batch set: queued writes only.
   */
  private updateGraph(images: Float32Array, batch: TextBatch, groupSize: number): TrainGraph {
    const B = batch.tokens.length / this.textLen;
    const L = this.textLen;
    const win = this.trimText
      ? textWindow(batch, this.shape, WINDOW_QUANTUM)
      : { start: 0, len: L };
    const graph = this.windowGraph(B, win.len, groupSize);
    graph.setTextOffset(win.start);
    graph.setBatch({
      images,
      tokens: win.len === L ? batch.tokens : sliceColumns(batch.tokens, L, win),
      mask: win.len === L ? batch.mask : sliceColumns(batch.mask, L, win),
    });
    return graph;
  }

  private generatorFor(n: number, groupSize: number): Generator {
    const key = `${n}x${groupSize}`;
    let gen = this.generators.get(key);
    if (!gen) {
      // With groupSize G the prompt is prefilled once per group and its K/V shared by the G rollouts.
      gen = new Generator(this.ctx, this.config, n, this.shape.promptLen, this.shape.maxNew, {
        groupSize,
      });
      this.generators.set(key, gen);
    }
    return gen;
  }

  /**
   * Samples responses for N sequences with `policy`.
   * @param images [N, H·W·C]; @param promptTokens [N, promptLen] left-padded;
   *   with `groupSize` G, rows come in groups of G identical prompts and images.
   * @returns tokens/logprobs [N, maxNew], lengths [N] (one read-back).
   */
  generate(
    policy: Pick<Policy, "params">,
    images: Float32Array,
    promptTokens: Int32Array,
    opts: SamplingOptions,
    groupSize = 1,
    forcedPrefix?: ReadonlyArray<Int32Array | number[] | null>,
  ): Promise<GenerateResult> {
    const n = promptTokens.length / this.shape.promptLen;
    return this.generatorFor(n, groupSize).generate({
      paramsBuf: policy.params,
      images,
      promptTokens,
      forcedPrefix,
      temperature: opts.temperature,
      topK: opts.topK,
      topP: opts.topP,
      greedy: opts.greedy,
      seed: opts.seed >>> 0,
      eosId: EOS_ID,
      padId: PAD_ID,
    });
  }

  /**
   * Builds the rollout generator of N sequences in groups of G (its buffers
   * and pipelines), so that the first RL step's rollouts do not pay for them
   * (lab choice, as warmUpdate); nothing runs.
   * @param n sequences per batch (G · prompts per step).
   */
  warmGenerate(n: number, groupSize: number): void {
    this.generatorFor(n, groupSize);
  }

  /** The advantage kernel for (numGroups, groupSize), set to `estimator`. */
  advantageKernel(
    numGroups: number,
    groupSize: number,
    estimator: EstimatorName,
    std: "sample" | "population",
    eps: number,
  ): AdvantageKernel {
    const key = `${numGroups}x${groupSize}`;
    let k = this.advantageKernels.get(key);
    if (!k) {
      k = new AdvantageKernel(
        this.ctx,
        { numGroups, groupSize },
        { estimator: estimator, std, eps },
      );
      this.advantageKernels.set(key, k);
    }
    k.setOptions({ estimator: estimator, std, eps });
    return k;
  }

  /**
   * Computes advantages on the GPU for rewards [numGroups·groupSize] (NaN,
   * ±Infinity, null or undefined = unscorable) and returns the per-group
   * statistics (one read-back).
   */
  async advantages(
    rewards: ArrayLike<number | null | undefined>,
    groupSize: number,
    estimator: EstimatorName,
    std: "sample" | "population",
    eps: number,
  ): Promise<{ kernel: AdvantageKernel; groups: GroupStatsResult; unscorable: number }> {
    const kernel = this.advantageKernel(rewards.length / groupSize, groupSize, estimator, std, eps);
    const unscorable = kernel.setRewards(rewards);
    kernel.run();
    const groups = await kernel.readGroupStats();
    return { kernel, groups, unscorable };
  }

  /**
   * Per-token logprobs [N, textLen] of `batch` under the reference policy and
   * under `policy` (read back; used to fold a k1 KL into REINFORCE++ rewards),
   * at sampling temperature `temperature` (softmax(logits/τ)).
   */
  async logprobs(
    policy: Policy,
    images: Float32Array,
    batch: TextBatch,
    temperature = 1,
  ): Promise<{ old: Float32Array; ref: Float32Array }> {
    const B = batch.tokens.length / this.textLen;
    const g = this.graphFor(B);
    g.graph.setBatch({ images, tokens: batch.tokens, mask: batch.mask });
    this.ctx.copy(policy.params, 0, this.work, 0, this.layout.totalFloats * 4);
    g.graph.forwardLogprobs(this.work, g.oldLp, temperature);
    g.graph.forwardLogprobs(this.ref, g.refLp, temperature);
    return {
      old: await this.ctx.readF32(g.oldLp, 0, B * this.textLen),
      ref: await this.ctx.readF32(g.refLp, 0, B * this.textLen),
    };
  }

  /**
   * Builds the policy update's graphs, buffers and pipelines (and the
   * advantage kernel of its groups) for a batch of
   * B = batch.tokens.length / textLen rollouts, so the first RL step does not
   * pay for them (on SwiftShader step 1 took about 2.5× a later step);
   * nothing runs (building a graph compiles its pipelines; a later window
   * length reuses them). No policy changes, no random numbers are drawn. Lab choice.
   * @param images [B, H·W·C]; @param batch [B, textLen] tokens and mask (any content).
   * @param groupSize the steps' rollouts per prompt (UpdateOptions.groupSize; the batch in such groups).
   * @param estimators the estimators the steps will use: the advantage kernel's variant of each is built.
   */
  async warmUpdate(
    images: Float32Array,
    batch: TextBatch,
    groupSize = 1,
    estimators: readonly EstimatorName[] = ["grpo"],
  ): Promise<void> {
    const B = batch.tokens.length / this.textLen;
    this.updateGraph(images, batch, groupSize).prepare();
    // The advantage kernel of the step's groups (its options are set at each use).
    if (B % groupSize === 0)
      for (const estimator of estimators)
        this.advantageKernel(B / groupSize, groupSize, estimator, "sample", 0);
    await this.ctx.sync();
  }

  /**
   * One policy-gradient update of `policy` on a batch of rollouts, on-policy
   * (logπ_old is the update's own forward, ρ = 1: one forward fewer than a
   * separate old-logprob pass, same loss and gradient), the reference
   * logprobs by a forward of the frozen policy, the clipped surrogate with
   * k3 KL (docs/reward-spec.md §1), backward, then AdamW with global-norm clipping.
   * A NaN/Inf loss throws before AdamW runs, so the parameters are untouched.
   * A NaN/Inf gradient makes AdamW skip the update (`finite` false in the
   * result): params, m and v stay as they were, and so does the step counter t
   * (it is put back here, lab choice: a skipped step is no step).
   * @param advantages GPU buffer [B] (the advantage kernel's output).
   */
  async policyUpdate(
    policy: Policy,
    images: Float32Array,
    batch: TextBatch,
    advantages: GPUBuffer,
    opts: UpdateOptions,
  ): Promise<UpdateStats> {
    const B = batch.tokens.length / this.textLen;
    const refLp = this.graphFor(B).refLp; // [B, textLen] fits any window
    const graph = this.updateGraph(images, batch, opts.groupSize ?? 1);
    this.ctx.copy(policy.params, 0, this.work, 0, this.layout.totalFloats * 4);
    const temperature = opts.temperature ?? 1;
    // One update per batch of rollouts, from the parameters that sampled them: on-policy, so
    // logπ_old is the update's own forward (ρ = 1) and needs no forward of its own.
    // Reference logprobs always: with β = 0 they still give the KL metric.
    graph.forwardLogprobs(this.ref, refLp, temperature);
    graph.policyForwardBackward({
      advantages,
      refLogprobs: refLp,
      clipEps: opts.clipEps,
      beta: opts.beta,
      aggregation: opts.aggregation,
      normLength: this.shape.maxNew,
      temperature,
    });
    const stats = await graph.readStats(); // throws on NaN/Inf before any update
    policy.adam.step(opts.lr);
    this.ctx.flush();
    const grad = await policy.adam.readStats();
    if (!grad.finite) policy.adam.t -= 1;
    return { ...stats, ...grad };
  }

  /**
   * One SFT step (cross-entropy on the masked response tokens) of `policy`.
   * A NaN/Inf gradient skips the update as in policyUpdate (t put back).
   * @param adam the optimizer that steps (default the policy's own; the
   *   auxiliary step passes auxOptimizer(policy)).
   * @throws Error on a NaN/Inf loss (parameters untouched).
   */
  async sftUpdate(
    policy: Policy,
    images: Float32Array,
    batch: TextBatch,
    lr: number,
    adam: AdamW = policy.adam,
  ): Promise<UpdateStats> {
    const B = batch.tokens.length / this.textLen;
    const g = this.graphFor(B);
    g.graph.setBatch({ images, tokens: batch.tokens, mask: batch.mask });
    this.ctx.copy(policy.params, 0, this.work, 0, this.layout.totalFloats * 4);
    g.graph.sftForwardBackward();
    const stats = await g.graph.readStats();
    adam.step(lr);
    this.ctx.flush();
    const grad = await adam.readStats();
    if (!grad.finite) adam.t -= 1;
    return { ...stats, ...grad };
  }
}
