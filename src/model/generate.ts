/**
 * Batched autoregressive generation on the GPU with a KV cache and on-GPU
 * sampling (docs/design.md, data flow step 2: "generate G rollouts per prompt on
 * the GPU").
 *
 *   const gen = new Generator(ctx, config, N, promptLen, maxNew);   // once per shape
 *   const { tokens, logprobs, lengths } = await gen.generate({
 *     paramsBuf, images, promptTokens, seed, eosId, padId, temperature: 1 });
 *
 * How a batch runs (all recorded into the command stream, one read-back):
 *   1 prefill: every sequence's P patch tokens + promptLen prompt tokens
 *     (T0 = P + promptLen rows per sequence) go through the model at once with
 *     the decode kernels over R = N·T0 rows; each layer appends its K/V for all
 *     T0 positions to the cache, attention is causal with the PAD key mask.
 *     The last layer's attention output, MLP, lnf and head run on each
 *     sequence's last prompt row only (gathered) → logits [N, V].
 *   2 for step s = 0 … maxNew−1: sample.wgsl picks token s of every sequence
 *     (forced prefix, greedy, or seeded sampling with temperature/top-k/top-p)
 *     and writes it into the text buffer; then (except after the last step) one
 *     decode step embeds that token at position T0 + s, runs the layers for
 *     R = N rows against the KV cache, and produces the next logits. A step
 *     counter in a storage buffer (advanced by a 1-thread kernel) gives the
 *     position, so the same prepared KernelCalls serve every step.
 *   3 one read-back of tokens | logprobs | lengths.
 * Finished sequences (after EOS) keep running but emit PAD with logprob 0; the
 * GPU cannot stop early without a read-back (lab choice: fixed maxNew steps).
 *
 * Model semantics are those of src/model/reference.ts (the f64 CPU reference
 * the tests compare against): sequence = [P patches][prompt (left-padded)][response],
 * PAD text tokens masked as attention keys, absolute learned positions.
 *
 * Sequences may share prompts in groups of G (GeneratorOptions.groupSize, a
 * GRPO group): the prefill then runs once per prompt ((N/G)·T0 rows) and
 * copies the prompt's keys/values into each of its G sequences' caches.
 *
 * Memory: the KV cache is 2 · nLayers · N · H · (T0 + maxNew) · hd floats; activation
 * buffers hold max((N/G)·T0, N) rows; all allocated in the constructor.
 */
import type { GpuContext, KernelCall } from "../gpu/context";
import { numPatches, paramLayout, validateConfig, type ModelConfig } from "./config";
import { decodeAdvance, decodeGather } from "../kernels/decode/launch";
import { decodeEmbed } from "../kernels/embed/launch";
import { decodeLayernorm } from "../kernels/layernorm/launch";
import { decodeAttention, kvAppendCall } from "../kernels/attention/launch";
import { decodeMatmul, type MatmulEpilogue } from "../kernels/matmul/launch";
import { sampleTokens, type SampleCall } from "../kernels/sample/launch";

/** Bytes of one buffer element: f32, i32 and u32 alike. */
const ELEMENT_BYTES = 4;

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
   * tokens; log softmax(logits/τ) unfiltered for forced and greedy tokens;
   * 0 after EOS.
   */
  logprobs: Float32Array;
  /** [N] tokens up to and including EOS (M when no EOS). */
  lengths: Int32Array;
}

/** Construction options of a Generator. */
export interface GeneratorOptions {
  /**
   * G: sequences n·G … n·G+G−1 share one image and prompt (a GRPO group), so
   * the prefill runs once per prompt and its keys/values are copied to the G
   * sequences' caches; generate() then checks that each group's images and
   * prompts are identical. Must divide N. Default 1 (every sequence its own).
   * Results are identical to G = 1 on the same inputs and seed.
   */
  groupSize?: number;
  /**
   * Sleep for ~80% of the previous batch's duration (same maxNew) before
   * awaiting the read-back. Node/Dawn busy-polls its main thread while a GPU
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
  /** Sequences per shared prompt (GeneratorOptions.groupSize). */
  readonly groupSize: number;
  /** Prefill rows per sequence: P + promptLen. */
  readonly T0: number;
  /** GPU dispatches recorded by one generate() at the constructed maxNew. */
  get dispatchesPerBatch(): number {
    return this.prefill.length + this.maxNew + (this.maxNew - 1) * (this.decode.length + 1);
  }

  private readonly layoutFloats: number;
  private readonly params: GPUBuffer;
  private readonly images: GPUBuffer;
  private readonly text: GPUBuffer;
  private readonly forced: GPUBuffer;
  private readonly state: GPUBuffer;
  private readonly out: GPUBuffer;
  private readonly logits: GPUBuffer;
  private readonly textHost: Int32Array;
  private readonly forcedHost: Int32Array;
  private readonly prefill: KernelCall[] = [];
  private readonly decode: KernelCall[] = [];
  private readonly advance: KernelCall;
  private readonly sample: SampleCall;
  private busy = false;
  private readonly sleepBeforeRead: boolean;
  /** Wall time (ms) of the last batch per maxNew, for sleepBeforeRead. */
  private readonly lastMs = new Map<number, number>();

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
    const d = config.dModel;
    const H = config.nHeads;
    const hd = d / H;
    const hid = config.mlpRatio * d;
    const V = config.vocabSize;
    const nLayers = config.nLayers;
    const S = T0 + maxNew; // cache positions per sequence
    const textCap = promptLen + maxNew;
    const prompts = n / G;
    const rows = Math.max(prompts * T0, n); // activation rows: the prefill's, or N for a decode step
    const layout = paramLayout(config);
    const off = (name: string) => layout.byName.get(name)!.offset;
    this.layoutFloats = layout.totalFloats;

    // ---- buffers (all allocated here, once) ----
    this.params = ctx.createBuffer("gen.params", layout.totalFloats * ELEMENT_BYTES);
    this.images = ctx.createBuffer(
      "gen.images",
      n * config.imageHeight * config.imageWidth * config.imageChannels * ELEMENT_BYTES,
    );
    this.text = ctx.createBuffer("gen.text", n * textCap * ELEMENT_BYTES); // [N, textCap] i32
    this.forced = ctx.createBuffer("gen.forced", (n * maxNew + n) * ELEMENT_BYTES); // [N, maxNew] | lens [N]
    this.state = ctx.createBuffer("gen.state", 4 * ELEMENT_BYTES); // [step, pad, 0, 0] u32
    this.out = ctx.createBuffer("gen.out", (2 * n * maxNew + 2 * n) * ELEMENT_BYTES);
    this.logits = ctx.createBuffer("gen.logits", n * V * ELEMENT_BYTES);
    const ework = ctx.createBuffer("gen.ework", n * V * ELEMENT_BYTES);
    const x = ctx.createBuffer("gen.x", rows * d * ELEMENT_BYTES); // residual stream [R, d]
    const xn = ctx.createBuffer("gen.xn", rows * d * ELEMENT_BYTES); // LayerNorm output [R, d]
    const qkv = ctx.createBuffer("gen.qkv", rows * 3 * d * ELEMENT_BYTES); // [R, 3d]
    const att = ctx.createBuffer("gen.att", rows * d * ELEMENT_BYTES); // attention output [R, d]
    const h = ctx.createBuffer("gen.h", rows * hid * ELEMENT_BYTES); // MLP hidden [R, 4d]
    const kc = ctx.createBuffer("gen.kcache", nLayers * n * H * S * hd * ELEMENT_BYTES); // [layers, N, H, S, hd]
    const vc = ctx.createBuffer("gen.vcache", nLayers * n * H * S * hd * ELEMENT_BYTES);
    this.textHost = new Int32Array(n * textCap);
    this.forcedHost = new Int32Array(n * maxNew + n);

    // ---- prepared calls ----
    const matmul = (
      inp: GPUBuffer,
      outBuf: GPUBuffer,
      R: number,
      I: number,
      O: number,
      w: string,
      b: string | null,
      epi: MatmulEpilogue,
    ) =>
      decodeMatmul(
        ctx,
        { x: inp, w: this.params, y: outBuf },
        { R, I, O, wOff: off(w), bOff: b ? off(b) : null },
        epi,
      );
    const layernorm = (inp: GPUBuffer, outBuf: GPUBuffer, R: number, g: string, b: string) =>
      decodeLayernorm(
        ctx,
        { x: inp, w: this.params, y: outBuf },
        { R, D: d, inStride: 1, inOffset: 0, gOff: off(g), bOff: off(b) },
      );
    const embed = (
      R: number,
      rowsPerSeq: number,
      posBase: number,
      useState: number,
      seqMul: number,
    ) =>
      decodeEmbed(
        ctx,
        { image: this.images, text: this.text, state: this.state, w: this.params, x },
        {
          R,
          D: d,
          rowsPerSeq,
          posBase,
          useState,
          P,
          textCap,
          gridW: config.imageWidth / config.patchSize,
          ps: config.patchSize,
          C: config.imageChannels,
          imgW: config.imageWidth,
          imgSize: config.imageHeight * config.imageWidth * config.imageChannels,
          patchWOff: off("patch.w"),
          patchBOff: off("patch.b"),
          wteOff: off("wte"),
          wpeOff: off("wpe"),
          seqMul,
        },
      );
    // Attention half of layer l up to the cache append: xr [R, d] → qkvr [R, 3d] → cache.
    const attnIn = (
      l: number,
      R: number,
      rowsPerSeq: number,
      posBase: number,
      useState: number,
      seqMul: number,
      xr: GPUBuffer,
      qkvr: GPUBuffer,
    ) => {
      const pre = `h.${l}.`;
      return [
        layernorm(xr, xn, R, `${pre}ln1.g`, `${pre}ln1.b`),
        matmul(xn, qkvr, R, d, 3 * d, `${pre}attn.wqkv`, `${pre}attn.bqkv`, "store"),
        kvAppendCall(
          ctx,
          { qkv: qkvr, state: this.state, kc, vc },
          { R, rowsPerSeq, posBase, useState },
          { D: d, H, S, layerOff: l * n * H * S * hd },
          seqMul,
        ),
      ];
    };
    // Rest of layer l: attention of the R query rows in qkvr over the cache, wo, MLP; residual in xr.
    const attnOutMlp = (
      l: number,
      R: number,
      rowsPerSeq: number,
      posBase: number,
      useState: number,
      seqMul: number,
      xr: GPUBuffer,
      qkvr: GPUBuffer,
    ) => {
      const pre = `h.${l}.`;
      return [
        decodeAttention(
          ctx,
          { qkv: qkvr, kc, vc, text: this.text, state: this.state, out: att },
          { R, rowsPerSeq, posBase, useState },
          { D: d, H, S, layerOff: l * n * H * S * hd },
          { P, textCap, seqMul },
        ),
        matmul(att, xr, R, d, d, `${pre}attn.wo`, `${pre}attn.bo`, "add"),
        layernorm(xr, xn, R, `${pre}ln2.g`, `${pre}ln2.b`),
        matmul(xn, h, R, d, hid, `${pre}mlp.wfc`, `${pre}mlp.bfc`, "gelu"),
        matmul(h, xr, R, hid, d, `${pre}mlp.wproj`, `${pre}mlp.bproj`, "add"),
      ];
    };
    // Final LayerNorm and head (no bias) on N rows of xr → logits [N, V].
    const final = (xr: GPUBuffer) => [
      layernorm(xr, xn, n, "lnf.g", "lnf.b"),
      matmul(xn, this.logits, n, d, V, "head.w", null, "store"),
    ];
    const gather = (src: GPUBuffer, dst: GPUBuffer, width: number) =>
      decodeGather(ctx, { x: src, y: dst }, { R: n, W: width, stride: T0, offset: T0 - 1, div: G });

    // Prefill: all (N/G)·T0 prompt rows through layers 0..nLayers-2, K/V copied to
    // the G sequences of each prompt; in the last layer only the K/V of all
    // rows are needed, so each prompt's last row is gathered (replicated to its
    // G sequences: xLast, qkvLast [N, ·]) before attention output, MLP, lnf and head.
    const pr = prompts * T0;
    const xLast = ctx.createBuffer("gen.xLast", n * d * ELEMENT_BYTES);
    const qkvLast = ctx.createBuffer("gen.qkvLast", n * 3 * d * ELEMENT_BYTES);
    this.prefill = [embed(pr, T0, 0, 0, G)];
    for (let l = 0; l < nLayers - 1; l++) {
      this.prefill.push(
        ...attnIn(l, pr, T0, 0, 0, G, x, qkv),
        ...attnOutMlp(l, pr, T0, 0, 0, G, x, qkv),
      );
    }
    this.prefill.push(
      ...attnIn(nLayers - 1, pr, T0, 0, 0, G, x, qkv),
      gather(qkv, qkvLast, 3 * d),
      gather(x, xLast, d),
      ...attnOutMlp(nLayers - 1, n, 1, T0 - 1, 0, 1, xLast, qkvLast),
      ...final(xLast),
    );
    // Decode step: N rows at position T0 + state[0].
    this.decode = [embed(n, 1, T0, 1, 1)];
    for (let l = 0; l < nLayers; l++)
      this.decode.push(
        ...attnIn(l, n, 1, T0, 1, 1, x, qkv),
        ...attnOutMlp(l, n, 1, T0, 1, 1, x, qkv),
      );
    this.decode.push(...final(x));
    this.advance = decodeAdvance(ctx, { state: this.state }, 1);
    // The per-batch fields (M, seed, eos, pad, greedy, topK, invT, topP) are set by generate().
    this.sample = sampleTokens(
      ctx,
      {
        logits: this.logits,
        ework,
        forced: this.forced,
        state: this.state,
        text: this.text,
        out: this.out,
      },
      {
        N: n,
        V,
        M: maxNew,
        cap: maxNew,
        promptLen,
        textCap,
        seed: 0,
        eos: 0,
        pad: 0,
        greedy: 1,
        topK: 0,
        invT: 1,
        topP: 1,
      },
    );
  }

  /**
   * Generates up to `maxNew` tokens for each of the N sequences (see the file
   * header for the phases). One submit and one read-back per call.
   * @returns tokens/logprobs [N, maxNew] and lengths [N] (GenerateResult).
   * @throws Error on wrong input sizes, ids outside [0, V), a forced prefix
   *   longer than maxNew, maxNew above the constructed one, temperature ≤ 0
   *   (when not greedy), topK outside [0, V], topP outside (0, 1], a parameter
   *   buffer smaller than the layout, or a concurrent call.
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
    if (G > 1) {
      for (let s = 0; s < n; s++) {
        const first = s - (s % G);
        if (first === s) continue;
        for (let i = 0; i < pixels; i++) {
          if (opts.images[s * pixels + i] !== opts.images[first * pixels + i]) {
            throw new Error(
              `generate: groupSize ${G}: the image of sequence ${s} differs from sequence ${first}'s (sequences of a group must share image and prompt)`,
            );
          }
        }
        for (let i = 0; i < promptLen; i++) {
          if (opts.promptTokens[s * promptLen + i] !== opts.promptTokens[first * promptLen + i]) {
            throw new Error(
              `generate: groupSize ${G}: the prompt of sequence ${s} differs from sequence ${first}'s (sequences of a group must share image and prompt)`,
            );
          }
        }
      }
    }

    this.busy = true;
    const t0 = performance.now();
    try {
      // One image per prompt (the first of each group).
      for (let g = 0; g < n / G; g++)
        ctx.write(
          this.images,
          opts.images.subarray(g * G * pixels, (g * G + 1) * pixels),
          g * pixels * 4,
        );
      ctx.write(this.text, text);
      ctx.write(this.forced, fh);
      ctx.write(this.state, new Uint32Array([0, opts.padId, 0, 0]));
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
      for (const c of this.prefill) ctx.run(c);
      ctx.flush(); // start the prefill while the steps are recorded
      for (let s = 0; s < M; s++) {
        ctx.run(this.sample);
        if (s === M - 1) break;
        for (const c of this.decode) ctx.run(c);
        ctx.run(this.advance);
      }
      ctx.flush();
      const est = this.lastMs.get(M);
      if (this.sleepBeforeRead && est !== undefined) {
        const wait = 0.8 * est - (performance.now() - t0);
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const bytes = await ctx.readBytes(this.out, 0, (2 * n * M + n) * 4);
      this.lastMs.set(M, performance.now() - t0);
      return {
        tokens: new Int32Array(bytes, 0, n * M).slice(),
        logprobs: new Float32Array(bytes, n * M * 4, n * M).slice(),
        lengths: new Int32Array(bytes, 2 * n * M * 4, n).slice(),
      };
    } finally {
      this.busy = false;
    }
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
