/**
 * Batched autoregressive generation on the GPU with a KV cache and on-GPU
 * sampling (docs/design.md, data flow step 2: "generate G rollouts per prompt on
 * the GPU").
 *
 *   const gen = new Generator(ctx, config, N, promptLen, maxNew);   // once per shape
 *   const { tokens, logprobs, lengths } = await gen.generate({
 *     paramsBuf, images, promptTokens, seed, eosId, padId, temperature: 1 });
 *
 * How a batch runs (all recorded into the command stream):
 *   1 prefill (./prefill-plan.ts): each sequence's positions go through the
 *     model with the decode kernels in three segments, patches, prompt (its
 *     all-PAD leading columns left out) and tail (the last prompt column and
 *     the forced prefix's first tokens); each layer appends the segment's K/V
 *     to the cache and attends over it, causal with the PAD key mask. A group
 *     of G sequences (GeneratorOptions.groupSize) runs its patches, and its
 *     prompt when the G prompts are equal, once: the keys and values go into
 *     each of the G sequences' caches. The last layer's attention output,
 *     MLP, lnf and head run on each sequence's last prefilled row only
 *     (gathered) → logits [N, V].
 *   2 decode steps d = 0, 1, …: sample.wgsl picks token prefilled[n] + d of
 *     every sequence (forced prefix, greedy, or seeded sampling with
 *     temperature/top-k/top-p) and writes it into the text buffer; then one
 *     decode step embeds that token at position T0 + prefilled[n] + d, runs
 *     the layers for R = N rows against the KV cache, and produces the next
 *     logits. A step counter and the per-sequence prefilled counts in a
 *     storage buffer give the positions, so the same prepared KernelCalls
 *     serve every step.
 *   3 read-back of tokens | logprobs | lengths | done. The steps run in at
 *     most two chunks: the first as many as the previous batch of this maxNew
 *     needed (plus a margin); when its read-back shows a sequence still
 *     running, the rest follow and a second read-back. The tokens are those
 *     of running every step (the sampling is counter-based; a finished
 *     sequence only emits PAD), so stopping early changes no output.
 * Finished sequences (after EOS) keep running but emit PAD with logprob 0.
 *
 * Model semantics are those of src/model/reference.ts (the f64 CPU reference
 * the tests compare against): sequence = [P patches][prompt (left-padded)][response],
 * PAD text tokens masked as attention keys, absolute learned positions.
 *
 * Memory: the KV cache is 2 · nLayers · N · H · (T0 + maxNew) · hd floats; activation
 * buffers hold N · max(P, promptLen, maxNew) rows; all allocated in the constructor.
 */
import type { GpuContext, KernelCall } from "../gpu/context";
import { numPatches, paramLayout, validateConfig, type ModelConfig } from "./config";
import type { SampleCall } from "../kernels/sample/launch";
import { prefillPlan, type PrefillPlan } from "./prefill-plan";
import { buildGeneratorCalls, type Segment } from "./generator-calls";

/** Bytes of one buffer element: f32, i32 and u32 alike. */
const ELEMENT_BYTES = 4;

/** Steps past the previous batch's need that the first chunk runs (lab choice: a second chunk is rare). */
const CHUNK_MARGIN = 2;

/** Inputs of one batch. Shapes use the Generator's N and promptLen. */
export interface GenerateOptions {
  /** Flat f32 parameters in paramLayout(config) order (at least totalFloats·4 bytes); copied on the GPU at the start. */
  paramsBuf: GPUBuffer;
  /** [N, H·W·C] pixels, each image H×W×C row-major. */
  images: Float32Array;
  /** [N, promptLen] prompt ids, left-padded with padId. */
  promptTokens: Int32Array;
  /**
   * Per sequence, response tokens to force before sampling starts (null/empty:
   * none); each at most maxNew long. Used to continue a truncated rollout and
   * to re-ask with shuffled options. Forced tokens appear in `tokens`; a
   * forced EOS ends the sequence like a sampled one.
   */
  forcedPrefix?: ReadonlyArray<Int32Array | number[] | null> | null;
  /**
   * How forced tokens run (default "prefill"): "prefill" runs each
   * sequence's forced tokens before its first forced EOS (at most maxNew − 1)
   * in the prefill's batched pass, filling the KV cache at once; their
   * logprobs are not computed (NaN in the result). "step" runs every forced
   * token through a decode step like a sampled one, with its logprob (the
   * one-token-at-a-time path). The tokens are the same either way.
   */
  forced?: "prefill" | "step";
  /** New tokens per sequence, ≤ the constructed maxNew (default: the constructed maxNew). */
  maxNew?: number;
  /** Softmax temperature τ > 0 (default 1). */
  temperature?: number;
  /** Keep only the k most likely tokens (0 = off, default). */
  topK?: number;
  /** Nucleus sampling mass in (0, 1] (1 = off, default). */
  topP?: number;
  /** Argmax instead of sampling (default false). */
  greedy?: boolean;
  /** PRNG seed (u32); same seed and inputs → same tokens. */
  seed: number;
  eosId: number;
  padId: number;
}

/** Outputs of one batch (M = maxNew of the call). */
export interface GenerateResult {
  /** [N, M] token ids: forced prefix, then generated tokens, EOS, then padId. */
  tokens: Int32Array;
  /**
   * [N, M] log-probability of each token under the distribution it was drawn
   * from: softmax(logits/τ) after top-k/top-p renormalisation for sampled
   * tokens; log softmax(logits/τ) unfiltered for greedy tokens and for forced
   * tokens run as decode steps; NaN for prefilled forced tokens
   * (GenerateOptions.forced); 0 after EOS.
   */
  logprobs: Float32Array;
  /** [N] tokens up to and including EOS (M when no EOS). */
  lengths: Int32Array;
}

/** Construction options of a Generator. */
export interface GeneratorOptions {
  /**
   * G: sequences n·G … n·G+G−1 share one image (a GRPO group; generate()
   * checks it), so the prefill runs their patches once and copies the keys
   * and values to the G sequences' caches; when their prompts are equal too
   * (rollouts; not an option-shuffled re-ask), the prompt also runs once.
   * Must divide N. Default 1 (every sequence its own). Results are identical
   * to G = 1 on the same inputs and seed.
   */
  groupSize?: number;
  /**
   * Sleep for ~80% of the previous batch's duration (same maxNew) before
   * awaiting a read-back. Node/Dawn busy-polls its main thread while a GPU
   * promise is pending, taking a core from SwiftShader (docs/design.md, measured
   * up to 1.4×). Default: true in Node, false elsewhere (browsers do not poll).
   */
  sleepBeforeRead?: boolean;
}

/** True when running under Node (not in a browser or worker). */
const IS_NODE =
  typeof process !== "undefined" &&
  typeof process.versions?.node === "string" &&
  typeof window === "undefined";

/**
 * Owns the KV cache, activation buffers and prepared KernelCalls for one
 * (config, N, promptLen, maxNew); `generate` may be called any number of
 * times (not concurrently) with any parameter buffer of that config and
 * allocates no GPU objects.
 */
export class Generator {
  /** Patch tokens per image. */
  readonly P: number;
  /** Sequences per group (GeneratorOptions.groupSize). */
  readonly groupSize: number;
  /** Positions of a sequence before its response: P + promptLen. */
  readonly T0: number;
  /** GPU dispatches recorded by one generate() at the constructed maxNew with every segment and step run. */
  get dispatchesPerBatch(): number {
    const seg = this.segments.patches.calls.length;
    return (
      3 * seg + this.tailCalls.length + this.maxNew + (this.maxNew - 1) * (this.decode.length + 1)
    );
  }
  /** The prefill plan of the last generate() (tests and benchmarks). */
  lastPlan: PrefillPlan | null = null;
  /** Decode steps the last generate() recorded and read-backs it made (tests and benchmarks). */
  lastRun = { steps: 0, readbacks: 0 };

  private readonly layoutFloats: number;
  private readonly params: GPUBuffer;
  private readonly images: GPUBuffer;
  private readonly text: GPUBuffer;
  private readonly forcedBuf: GPUBuffer;
  private readonly state: GPUBuffer;
  private readonly out: GPUBuffer;
  private readonly logits: GPUBuffer;
  private readonly lastIdx: GPUBuffer;
  private readonly textHost: Int32Array;
  private readonly forcedHost: Int32Array;
  private readonly stateHost: Uint32Array;
  private readonly segments: { patches: Segment; prompt: Segment; tail: Segment };
  /** After the tail segment: the last rows gathered, the last layer's rest, lnf, head. */
  private readonly tailCalls: KernelCall[] = [];
  private readonly decode: KernelCall[] = [];
  private readonly advance: KernelCall;
  private readonly sample: SampleCall;
  private busy = false;
  private readonly sleepBeforeRead: boolean;
  /** Forced tokens per sequence the tail segment can hold. */
  private readonly maxForced: number;
  /** Wall time (ms) of the last batch's prefill-to-read stretches per maxNew, for sleepBeforeRead. */
  private readonly lastMs = new Map<string, number>();
  /** Decode steps the last batch of each maxNew needed (every sequence done). */
  private readonly needed = new Map<number, number>();

  /**
   * @param n number of sequences N per batch.
   * @param promptLen prompt tokens per sequence (≥ 1, left-padded by the caller).
   * @param maxNew largest number of new tokens a batch may ask for.
   * @param options see GeneratorOptions.
   * @throws Error when the config is invalid, P + promptLen + maxNew exceeds
   *   config.maxSeqLen, groupSize does not divide n, or a buffer exceeds the
   *   adapter's limits.
   */
  constructor(
    private readonly ctx: GpuContext,
    readonly config: ModelConfig,
    readonly n: number,
    readonly promptLen: number,
    readonly maxNew: number,
    options: GeneratorOptions = {},
  ) {
    this.sleepBeforeRead = options.sleepBeforeRead ?? IS_NODE;
    validateConfig(config, ctx.adapter.limits);
    for (const [name, v] of [
      ["n", n],
      ["promptLen", promptLen],
      ["maxNew", maxNew],
    ] as const) {
      if (!Number.isInteger(v) || v < 1)
        throw new Error(`Generator: ${name} must be a positive integer, got ${v}`);
    }
    const G = options.groupSize ?? 1;
    if (!Number.isInteger(G) || G < 1 || n % G !== 0)
      throw new Error(`Generator: groupSize ${G} must be a positive integer dividing N = ${n}`);
    this.groupSize = G;
    const P = numPatches(config);
    const T0 = P + promptLen;
    if (T0 + maxNew > config.maxSeqLen) {
      throw new Error(
        `Generator: P + promptLen + maxNew = ${P} + ${promptLen} + ${maxNew} = ${T0 + maxNew} exceeds config.maxSeqLen ${config.maxSeqLen}`,
      );
    }
    this.P = P;
    this.T0 = T0;
    // Activation rows: the largest segment (patches ≤ N·P, prompt ≤ N·(promptLen − 1),
    // tail ≤ N·maxNew) or N for a decode step.
    const rows = n * Math.max(P, promptLen, maxNew);
    this.maxForced = Math.floor(rows / n) - 1;
    this.layoutFloats = paramLayout(config).totalFloats;

    const calls = buildGeneratorCalls(ctx, config, { n, promptLen, maxNew, P, rows });
    this.params = calls.params;
    this.images = calls.images;
    this.text = calls.text;
    this.forcedBuf = calls.forced;
    this.state = calls.state;
    this.out = calls.out;
    this.logits = calls.logits;
    this.lastIdx = calls.lastIdx;
    this.segments = calls.segments;
    this.tailCalls = calls.tailCalls;
    this.decode = calls.decode;
    this.advance = calls.advance;
    this.sample = calls.sample;
    this.textHost = new Int32Array(n * (promptLen + maxNew));
    this.forcedHost = new Int32Array(n * maxNew + n);
    this.stateHost = new Uint32Array(4 + n);
  }

  /**
   * Generates up to `maxNew` tokens for each of the N sequences (see the file
   * header for the phases). One submit for the prefill, one per chunk of
   * decode steps, one read-back per chunk (usually one chunk).
   * @returns tokens/logprobs [N, maxNew] and lengths [N] (GenerateResult).
   * @throws Error on wrong input sizes, ids outside [0, V), a forced prefix
   *   longer than maxNew, maxNew above the constructed one, temperature ≤ 0
   *   (when not greedy), topK outside [0, V], topP outside (0, 1], a parameter
   *   buffer smaller than the layout, images that differ within a group
   *   (groupSize > 1), or a concurrent call.
   */
  async generate(opts: GenerateOptions): Promise<GenerateResult> {
    const { ctx, config, n, promptLen } = this;
    const V = config.vocabSize;
    const M = opts.maxNew ?? this.maxNew;
    const temperature = opts.temperature ?? 1;
    const topK = opts.topK ?? 0;
    const topP = opts.topP ?? 1;
    const greedy = opts.greedy ?? false;
    const pixels = config.imageHeight * config.imageWidth * config.imageChannels;
    const isId = (v: number) => Number.isInteger(v) && v >= 0 && v < V;
    if (!Number.isInteger(M) || M < 1 || M > this.maxNew) {
      throw new Error(
        `generate: maxNew ${M} must be an integer in [1, ${this.maxNew}] (the Generator was built for maxNew = ${this.maxNew}; P + promptLen + maxNew ≤ maxSeqLen ${config.maxSeqLen})`,
      );
    }
    if (opts.images.length !== n * pixels)
      throw new Error(
        `generate: images has ${opts.images.length} values, expected N·H·W·C = ${n}·${pixels}`,
      );
    if (opts.promptTokens.length !== n * promptLen) {
      throw new Error(
        `generate: promptTokens has ${opts.promptTokens.length} ids, expected N·promptLen = ${n}·${promptLen} (the Generator's shape)`,
      );
    }
    if (!isId(opts.eosId) || !isId(opts.padId))
      throw new Error(
        `generate: eosId ${opts.eosId} and padId ${opts.padId} must be ids in [0, ${V})`,
      );
    if (!greedy && !(temperature > 0 && Number.isFinite(temperature)))
      throw new Error(`generate: temperature must be > 0, got ${temperature}`);
    if (!Number.isInteger(topK) || topK < 0 || topK > V)
      throw new Error(`generate: topK must be an integer in [0, ${V}], got ${topK}`);
    if (!(topP > 0 && topP <= 1)) throw new Error(`generate: topP must be in (0, 1], got ${topP}`);
    if (opts.paramsBuf.size < this.layoutFloats * ELEMENT_BYTES) {
      throw new Error(
        `generate: paramsBuf has ${opts.paramsBuf.size} bytes, the layout needs ${this.layoutFloats * ELEMENT_BYTES}`,
      );
    }
    const forcedMode = opts.forced ?? "prefill";
    if (forcedMode !== "prefill" && forcedMode !== "step")
      throw new Error(`generate: forced must be "prefill" or "step", got ${String(forcedMode)}`);
    const forced = opts.forcedPrefix ?? null;
    if (forced && forced.length !== n)
      throw new Error(`generate: forcedPrefix has ${forced.length} entries, expected N = ${n}`);
    if (this.busy)
      throw new Error("generate: this Generator is already running a batch (await it first)");

    // Host-side inputs (preallocated arrays; no GPU allocation).
    const textCap = promptLen + this.maxNew;
    const text = this.textHost;
    text.fill(opts.padId);
    for (let s = 0; s < n; s++) {
      for (let i = 0; i < promptLen; i++) {
        const id = opts.promptTokens[s * promptLen + i];
        if (!isId(id))
          throw new Error(
            `generate: prompt token ${id} of sequence ${s} at ${i} is outside [0, ${V})`,
          );
        text[s * textCap + i] = id;
      }
    }
    const fh = this.forcedHost;
    fh.fill(0);
    for (let s = 0; s < n; s++) {
      const pre = forced?.[s];
      if (!pre) continue;
      if (pre.length > M)
        throw new Error(
          `generate: forced prefix of sequence ${s} has ${pre.length} tokens, more than maxNew ${M}`,
        );
      for (let i = 0; i < pre.length; i++) {
        if (!isId(pre[i]))
          throw new Error(
            `generate: forced token ${pre[i]} of sequence ${s} at ${i} is outside [0, ${V})`,
          );
        fh[s * this.maxNew + i] = pre[i];
      }
      fh[n * this.maxNew + s] = pre.length;
    }
    const G = this.groupSize;
    const plan = prefillPlan({
      n,
      groupSize: G,
      promptLen,
      pixels,
      images: opts.images,
      promptTokens: opts.promptTokens,
      padId: opts.padId,
      eosId: opts.eosId,
      forcedPrefix: forced,
      maxNew: M,
      prefillForced: forcedMode === "prefill",
      maxForced: this.maxForced,
    });
    // The prefilled forced tokens sit in the text like sampled ones (the tail segment embeds them).
    for (let s = 0; s < n; s++)
      for (let i = 0; i < plan.prefilled[s]; i++)
        text[s * textCap + promptLen + i] = fh[s * this.maxNew + i];
    const st = this.stateHost;
    st.fill(0);
    st[1] = opts.padId;
    st.set(plan.prefilled, 4);
    let minPrefilled = M;
    for (let s = 0; s < n; s++) minPrefilled = Math.min(minPrefilled, plan.prefilled[s]);
    const steps = M - minPrefilled; // samples until every sequence has written column M − 1
    const idx = new Int32Array(n);
    for (let s = 0; s < n; s++) idx[s] = s * (plan.forced + 1) + plan.prefilled[s];

    this.busy = true;
    const t0 = performance.now();
    try {
      // One image per group when the group shares it.
      const groups = n / G;
      if (plan.shareImages) {
        for (let g = 0; g < groups; g++)
          ctx.write(
            this.images,
            opts.images.subarray(g * G * pixels, (g * G + 1) * pixels),
            g * pixels * 4,
          );
      } else ctx.write(this.images, opts.images);
      ctx.write(this.text, text);
      ctx.write(this.forcedBuf, fh);
      ctx.write(this.state, st);
      ctx.write(this.lastIdx, idx);
      this.sample.set({
        M,
        seed: opts.seed >>> 0,
        eos: opts.eosId,
        pad: opts.padId,
        greedy: greedy ? 1 : 0,
        topK,
        invT: 1 / (temperature > 0 && Number.isFinite(temperature) ? temperature : 1),
        topP,
      });
      ctx.copy(opts.paramsBuf, 0, this.params, 0, this.layoutFloats * ELEMENT_BYTES);
      ctx.clear(this.out);
      this.recordPrefill(plan);
      ctx.flush(); // start the prefill while the steps are recorded
      // The first chunk: as many steps as the last batch of this maxNew needed, plus a margin.
      const guess = this.needed.get(M);
      const first = guess === undefined ? steps : Math.min(steps, guess + CHUNK_MARGIN);
      this.recordSteps(0, first);
      let bytes = await this.readOut(M, "first", t0);
      let ran = first;
      let readbacks = 1;
      if (ran < steps && !this.allDone(bytes, M)) {
        const t1 = performance.now();
        this.recordSteps(ran, steps);
        bytes = await this.readOut(M, "rest", t1);
        ran = steps;
        readbacks++;
      }
      this.lastRun = { steps: ran, readbacks };
      this.lastPlan = plan;
      return this.result(bytes, M, plan, fh, ran, opts.padId);
    } finally {
      this.busy = false;
    }
  }

  /** Records the prefill segments and the tail calls of `plan`. */
  private recordPrefill(plan: PrefillPlan): void {
    const { ctx, n, P, T0, promptLen } = this;
    const G = this.groupSize;
    const groups = n / G;
    const { patches, prompt, tail } = this.segments;
    const perGroup = (share: boolean) =>
      share ? { units: groups, seqMul: G } : { units: n, seqMul: 1 };
    const img = perGroup(plan.shareImages);
    patches.set({ R: img.units * P, rowsPerSeq: P, posBase: 0, seqMul: img.seqMul });
    for (const c of patches.calls) ctx.run(c);
    const promptCols = promptLen - 1 - plan.lead;
    if (promptCols > 0) {
      const pr = perGroup(plan.sharePrompts);
      prompt.set({
        R: pr.units * promptCols,
        rowsPerSeq: promptCols,
        posBase: P + plan.lead,
        seqMul: pr.seqMul,
      });
      for (const c of prompt.calls) ctx.run(c);
    }
    const tailRows = plan.forced + 1;
    tail.set({ R: n * tailRows, rowsPerSeq: tailRows, posBase: T0 - 1, seqMul: 1 });
    for (const c of tail.calls) ctx.run(c);
    for (const c of this.tailCalls) ctx.run(c);
  }

  /** Records decode steps [from, to): sample, then (but after the last) decode and advance. */
  private recordSteps(from: number, to: number): void {
    const { ctx } = this;
    if (from > 0) {
      // The previous chunk ended with step from − 1's sample: its decode step comes first.
      for (const c of this.decode) ctx.run(c);
      ctx.run(this.advance);
    }
    for (let s = from; s < to; s++) {
      ctx.run(this.sample);
      if (s === to - 1) break;
      for (const c of this.decode) ctx.run(c);
      ctx.run(this.advance);
    }
  }

  /** Flushes and reads the whole out buffer (tokens | logprobs | lengths | done) for maxNew M. */
  private async readOut(M: number, stage: string, since: number): Promise<ArrayBuffer> {
    const { ctx, n } = this;
    ctx.flush();
    const key = `${M}|${stage}`;
    const est = this.lastMs.get(key);
    if (this.sleepBeforeRead && est !== undefined) {
      const wait = 0.8 * est - (performance.now() - since);
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const bytes = await ctx.readBytes(this.out, 0, (2 * n * M + 2 * n) * ELEMENT_BYTES);
    this.lastMs.set(key, performance.now() - since);
    return bytes;
  }

  /** True when every sequence of the read-back is done (EOS, or column M − 1 written). */
  private allDone(bytes: ArrayBuffer, M: number): boolean {
    const { n } = this;
    const done = new Int32Array(bytes, (2 * n * M + n) * ELEMENT_BYTES, n);
    return done.every((v) => v !== 0);
  }

  /**
   * The GenerateResult of a read-back after `ran` decode steps: prefilled
   * forced tokens filled in, the columns no step reached (every sequence was
   * done) PAD as later steps would have written them, lengths counted from column 0.
   */
  private result(
    bytes: ArrayBuffer,
    M: number,
    plan: PrefillPlan,
    fh: Int32Array,
    ran: number,
    padId: number,
  ): GenerateResult {
    const { n } = this;
    const tokens = new Int32Array(bytes, 0, n * M).slice();
    const logprobs = new Float32Array(bytes, n * M * 4, n * M).slice();
    const lengths = new Int32Array(bytes, 2 * n * M * 4, n).slice();
    let needed = 0;
    for (let s = 0; s < n; s++) {
      const k = plan.prefilled[s];
      for (let i = 0; i < k; i++) {
        tokens[s * M + i] = fh[s * this.maxNew + i];
        logprobs[s * M + i] = Number.NaN;
      }
      tokens.fill(padId, s * M + Math.min(M, k + ran), (s + 1) * M);
      // The sample kernel counted the tokens from column k on: it finished at decode step lengths − 1.
      needed = Math.max(needed, lengths[s]);
      lengths[s] += k;
    }
    this.needed.set(M, needed);
    return { tokens, logprobs, lengths };
  }

  /**
   * Reads the logits [N, V] the last sampling step of the previous generate()
   * used (with maxNew = 1: the prefill's logits for the first new token).
   * For tests and debugging; costs a read-back.
   */
  async lastLogits(): Promise<Float32Array> {
    return this.ctx.readF32(this.logits, 0, this.n * this.config.vocabSize);
  }
}
