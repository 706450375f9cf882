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
 * Alignment of per-token arrays [B, textLen] (mask, logprobs, old/ref
 * logprobs): the value at s belongs to token s, predicted by the logits at
 * text position s − 1; s = 0 has no prediction (logprob 0, mask ignored).
 */
import type { Binding, GpuContext, KernelCall } from "../gpu/context";
import {
  numPatches,
  paramLayout,
  patchDim,
  validateConfig,
  type ModelConfig,
  type ParamLayout,
} from "./config";
import * as K from "../kernels";
import type { PolicyAggregation } from "../kernels/loss/reference";

export type { PolicyAggregation } from "../kernels/loss/reference";

/** Per-step inputs of setBatch; images and mask may be a CPU array (queued write) or a GPU buffer (copied on the GPU). */
export interface TrainBatch {
  /** [B, H·W·C] pixels, each image H×W×C row-major. */
  images: Float32Array | GPUBuffer;
  /**
   * [B, textLen] token ids (prompt left-padded with PAD, then response). On
   * the CPU: setBatch also sorts their positions by id for the embedding's
   * backward (tokenOrder).
   */
  tokens: Int32Array;
  /** [B, textLen] 1 on tokens that enter the loss (response tokens), else 0. Default: unchanged (initially 0). */
  mask?: Float32Array | GPUBuffer;
}

/** Options of policyForwardBackward (docs/reward-spec.md §1). Per-token arrays are [B, textLen], aligned with tokens. */
export interface PolicyForwardBackwardOptions {
  /** [B] per-rollout advantages. */
  advantages: Float32Array | GPUBuffer;
  /**
   * [B, textLen] logπ_old (the sampling policy's logprobs). Omitted: the
   * update is on-policy (the parameters the rollouts were sampled with), so
   * logπ_old is the forward's own logπ as a constant (ρ = 1) and no separate
   * forward is needed; the same loss and gradient as passing that forward's
   * logprobs.
   */
  oldLogprobs?: Float32Array | GPUBuffer;
  /**
   * [B, textLen] logπ_ref (the frozen reference policy's logprobs, e.g. from
   * forwardLogprobs(refParams, buffer)). Required when beta > 0. With
   * beta = 0 it only feeds the reported KL; when omitted there is no KL term
   * and the reported KL is 0.
   */
  refLogprobs?: Float32Array | GPUBuffer;
  /** PPO clip ε; default 0.2 (docs/reward-spec.md §1). */
  clipEps?: number;
  /** k3 KL coefficient β; default 0. */
  beta?: number;
  /** Default "seq-mean-token-mean" (the papers' (1/G)Σ_i (1/|o_i|)Σ_t). */
  aggregation?: PolicyAggregation;
  /** Constant normaliser of "seq-mean-token-sum-norm" (Dr. GRPO): max response length; default textLen − 1 (lab choice). */
  normLength?: number;
  /**
   * Sampling temperature τ > 0 of the rollouts; default 1. The loss uses the
   * logprobs of softmax(logits/τ), so old, reference and current logprobs must
   * all be taken at the same τ (forwardLogprobs' temperature). As verl.
   */
  temperature?: number;
}

/** What readStats returns; token means are over masked tokens. */
export interface StepStats {
  /** The aggregated loss of the last step (SFT: mean cross-entropy, nats). */
  loss: number;
  /** Mean k3 KL estimate to the reference policy (0 for SFT and for policy steps without refLogprobs). */
  kl: number;
  /** Fraction of tokens where the clipped branch was active (verl pg_clipfrac; 0 for SFT). */
  clipFrac: number;
  /** Mean entropy of the predictive distribution, nats. */
  entropy: number;
  /** Number of masked tokens. */
  tokens: number;
}

/** Forward dispatches for one parameter buffer. */
interface ForwardCalls {
  calls: KernelCall[];
}

/** Activation buffers of one transformer block (llm.c ActivationTensors). */
interface LayerActs {
  ln1: GPUBuffer;
  ln1Mean: GPUBuffer;
  ln1Rstd: GPUBuffer; // [BT, C], [BT], [BT]
  qkv: GPUBuffer; // [BT, 3C]
  att: GPUBuffer; // [B, NH, T, T] softmax probabilities
  atty: GPUBuffer; // [BT, C]
  res2: GPUBuffer; // [BT, C] = xin + attn
  ln2: GPUBuffer;
  ln2Mean: GPUBuffer;
  ln2Rstd: GPUBuffer;
  fch: GPUBuffer;
  fchGelu: GPUBuffer; // [BT, 4C]
  res3: GPUBuffer; // [BT, C] block output
}

const AGG_DEFAULT: PolicyAggregation = "seq-mean-token-mean";

/** True when running under Node (not in a browser or worker). */
const IS_NODE =
  typeof process !== "undefined" &&
  typeof process.versions?.node === "string" &&
  typeof window === "undefined";

/** Construction options of a TrainGraph. */
export interface TrainGraphOptions {
  /** The PAD id: PAD text tokens are masked as attention keys. */
  padId: number;
  /** Flat parameter buffer (paramLayout(config).totalFloats floats), trained in place by the caller. */
  params: GPUBuffer;
  /** Flat gradient buffer of the same size; zeroed by the graph before each backward. */
  grads: GPUBuffer;
  /**
   * Sleep for ~80% of the previous step's duration before awaiting the stats
   * read-back. Node/Dawn busy-polls its main thread while a GPU promise is
   * pending, taking a core from SwiftShader (docs/design.md). Default: true in
   * Node, false elsewhere (browsers do not poll).
   */
  sleepBeforeRead?: boolean;
  /**
   * Use the activation and input buffers of `base` (a graph of the same
   * config and B, with textLen ≥ this one's) instead of allocating new ones:
   * a *window* graph that runs a shorter text [B, textLen] laid out
   * contiguously in the same buffers. The two must not be used for
   * interleaved steps (each step overwrites the shared buffers). Lab choice:
   * lets the RL update run only the batch's used text columns without
   * allocating a graph per length.
   */
  shareBuffersOf?: TrainGraph;
  /**
   * Run the last block from its attention queries on (attention, output
   * projection, MLP; with a head size % 4 ≠ 0 from after the attention), the
   * final layer norm and the LM head, forward and backward, only on the rows
   * whose logits the loss reads (setBatch's mask; kernels/rows lossRows),
   * packed by an indexed row gather; the keys and values of every row are
   * still computed. No other row's output reaches the loss, so loss,
   * statistics and gradients are those of the whole graph (up to float
   * summation order); logprobs at tokens outside the mask are those of zero
   * logits (−ln V). Needs a CPU mask in every setBatch, nLayers ≥ 1 and V % 4 = 0.
   * Default false (lab choice: the RL update turns it on).
   */
  compactLastLayer?: boolean;
}

/** Packed row counts are rounded up to a multiple of this (the 16×8 forward matmul's row tile; lab choice). */
const ROW_QUANTUM = 16;

/** The tiny VLM's forward, losses and backward as prepared GPU dispatches. */
export class TrainGraph {
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
  readonly tokenOrder: GPUBuffer; // i32 [B·L] positions by token id (tokenOrder)
  readonly tokenStart: GPUBuffer; // i32 [V + 1] id v's positions: tokenOrder[start[v] .. start[v+1])
  readonly mask: GPUBuffer; // [B, L]
  readonly advantages: GPUBuffer; // [B]
  readonly oldLogprobs: GPUBuffer; // [B, L]
  readonly refLogprobs: GPUBuffer; // [B, L]
  // activations
  readonly patches: GPUBuffer; // [B·P, pd]
  readonly patchEmb: GPUBuffer; // [B·P, C]
  readonly encoded: GPUBuffer; // [BT, C]
  readonly layers: LayerActs[];
  readonly lnf: GPUBuffer;
  readonly lnfMean: GPUBuffer;
  readonly lnfRstd: GPUBuffer;
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
  // backward scratch
  private dlogits: GPUBuffer;
  private dln: GPUBuffer;
  private dres: GPUBuffer;
  private dfchGelu: GPUBuffer;
  private dfch: GPUBuffer;
  private datty: GPUBuffer;
  private dqkv: GPUBuffer;
  private dpre: GPUBuffer;
  private dpatchEmb: GPUBuffer;
  private dummy: GPUBuffer;
  /** True when the last block runs on the loss rows only (TrainGraphOptions.compactLastLayer). */
  readonly compactLastLayer: boolean;
  /**
   * Buffers of the compacted last layer (compactLastLayer; null otherwise):
   * the row maps (lossRows idx, inv) and the packed inputs / gradients that
   * cannot live in the full buffers' first rows.
   */
  private packed: {
    idx: GPUBuffer;
    inv: GPUBuffer;
    atty: GPUBuffer; // [rows, C]
    xin: GPUBuffer; // [rows, C]
    logits: GPUBuffer; // [rows, V]
    dlogits: GPUBuffer; // [rows, V]
    dres: GPUBuffer; // [rows, C]
    datty: GPUBuffer; // [rows, C]
  } | null = null;
  /**
   * The compacted last layer also runs its attention forward and backward q
   * pass on the packed query rows (attention_*_rows_vec4; needs a head size
   * % 4 = 0), else the attention of every row and a gather of its output.
   */
  private readonly packedAttention: boolean;
  /** Setters of the packed row count of every compacted call (setBatch runs them). */
  private rowSetters: ((rows: number) => void)[] = [];
  /** Packed row count of the current batch (B·T until the first setBatch). */
  private rows: number;

  private forwards = new Map<GPUBuffer, ForwardCalls>();
  /** Buffers by label, allocated by this graph or taken from shareBuffersOf. */
  private buffers = new Map<string, GPUBuffer>();
  /** The embedding calls (every forward's and the backward's), whose posOff setTextOffset sets. */
  private embedCalls: { set(v: { posOff: number }): void }[] = [];
  private posOff = 0;
  private lossLogprobsCall: K.LossTokenCall;
  /** The first backward dispatch (logprob gradients → dlogits); its uniform carries τ. */
  private logitsGradCall!: K.LossLogitsGradCall;
  private lossSftCall: K.LossTokenCall;
  private lossPolicyCall: K.LossTokenCall;
  private reduceSftCall: K.LossReduceCall;
  private reducePolicyCall: K.LossReduceCall;
  private backwardCalls: KernelCall[];
  private sleepBeforeRead: boolean;
  /** Kind and submit time of the last step, and per-kind EMA of submit-to-stats durations (ms). */
  private lastStep: { kind: "sft" | "policy"; submitted: number } | null = null;
  private stepMs = { sft: 0, policy: 0 };

  /**
   * Allocates every buffer and prepares every dispatch for batches of B
   * examples of textLen text tokens.
   * @throws Error on an invalid config, P + textLen > maxSeqLen, or buffers that are too small.
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
    this.sleepBeforeRead = opts.sleepBeforeRead ?? IS_NODE;

    const { P, T } = this;
    const L = textLen;
    const C = config.dModel;
    const H4 = config.mlpRatio * C;
    const NH = config.nHeads;
    const V = config.vocabSize;
    const BT = B * T;
    const base = opts.shareBuffersOf;
    if (base && (base.config !== config || base.B !== B || base.textLen < textLen))
      throw new Error(
        `TrainGraph: shareBuffersOf needs a graph of the same config and B = ${B} with textLen ≥ ${textLen}`,
      );
    const buffer = (label: string, floats: number) => {
      const shared = base?.buffers.get(label);
      // base is at least as large in every dimension, so each shared buffer fits.
      const buf = shared ?? ctx.createBuffer(`graph.${label}`, floats * 4);
      this.buffers.set(label, buf);
      return buf;
    };
    // Packed buffers hold at most base's B·T rows; allocated once and lent to base's other windows.
    const capRows = B * (base ? base.T : T);
    const packedBuffer = (label: string, width: number) => {
      const shared = base?.buffers.get(label) ?? this.buffers.get(label);
      const buf = shared ?? ctx.createBuffer(`graph.${label}`, capRows * width * 4);
      this.buffers.set(label, buf);
      base?.buffers.set(label, buf);
      return buf;
    };
    this.compactLastLayer = opts.compactLastLayer ?? false;
    this.packedAttention = this.compactLastLayer && (C / config.nHeads) % 4 === 0;
    this.rows = BT;
    if (this.compactLastLayer && (config.nLayers < 1 || V % 4 !== 0))
      throw new Error(
        `TrainGraph: compactLastLayer needs at least one layer and a vocabulary size that is a multiple of 4 (the row gather reads vec4), got ${config.nLayers} and ${V}`,
      );
    const pixels = config.imageHeight * config.imageWidth * config.imageChannels;

    this.images = buffer("images", B * pixels);
    this.tokens = buffer("tokens", B * L);
    this.tokenOrder = buffer("tokenOrder", B * L);
    this.tokenStart = buffer("tokenStart", config.vocabSize + 1);
    this.mask = buffer("mask", B * L);
    this.advantages = buffer("advantages", B);
    this.oldLogprobs = buffer("oldLogprobs", B * L);
    this.refLogprobs = buffer("refLogprobs", B * L);
    this.patches = buffer("patches", B * P * patchDim(config));
    this.patchEmb = buffer("patchEmb", B * P * C);
    this.encoded = buffer("encoded", BT * C);
    this.layers = [];
    for (let l = 0; l < config.nLayers; l++) {
      this.layers.push({
        ln1: buffer(`h${l}.ln1`, BT * C),
        ln1Mean: buffer(`h${l}.ln1Mean`, BT),
        ln1Rstd: buffer(`h${l}.ln1Rstd`, BT),
        qkv: buffer(`h${l}.qkv`, BT * 3 * C),
        att: buffer(`h${l}.att`, B * NH * T * T),
        atty: buffer(`h${l}.atty`, BT * C),
        res2: buffer(`h${l}.res2`, BT * C),
        ln2: buffer(`h${l}.ln2`, BT * C),
        ln2Mean: buffer(`h${l}.ln2Mean`, BT),
        ln2Rstd: buffer(`h${l}.ln2Rstd`, BT),
        fch: buffer(`h${l}.fch`, BT * H4),
        fchGelu: buffer(`h${l}.fchGelu`, BT * H4),
        res3: buffer(`h${l}.res3`, BT * C),
      });
    }
    this.lnf = buffer("lnf", BT * C);
    this.lnfMean = buffer("lnfMean", BT);
    this.lnfRstd = buffer("lnfRstd", BT);
    this.logits = buffer("logits", BT * V);
    this.logprobs = buffer("logprobs", B * L);
    this.tok = buffer("tok", B * L * 8);
    this.tokenGrad = buffer("tokenGrad", B * L);
    this.stats = buffer("stats", 8);
    this.dlogits = buffer("dlogits", BT * V);
    this.dln = buffer("dln", BT * C);
    this.dres = buffer("dres", BT * C);
    this.dfchGelu = buffer("dfchGelu", BT * H4);
    this.dfch = buffer("dfch", BT * H4);
    this.datty = buffer("datty", BT * C);
    this.dqkv = buffer("dqkv", BT * 3 * C);
    this.dpre = buffer("dpre", B * NH * T * T);
    this.dpatchEmb = buffer("dpatchEmb", B * P * C);
    this.dummy = buffer("dummy", 4);
    if (this.compactLastLayer) {
      this.packed = {
        idx: packedBuffer("rows.idx", 1),
        inv: packedBuffer("rows.inv", 1),
        atty: packedBuffer("rows.atty", C),
        xin: packedBuffer("rows.xin", C),
        logits: packedBuffer("rows.logits", V),
        dlogits: packedBuffer("rows.dlogits", V),
        dres: packedBuffer("rows.dres", C),
        datty: packedBuffer("rows.datty", C),
      };
    }

    // loss dispatches (independent of the parameter buffer)
    const ld = { B, T, L, P, V };
    const lb = {
      logits: this.logits,
      tokens: this.tokens,
      mask: this.mask,
      advantages: this.advantages,
      oldLogprobs: this.oldLogprobs,
      refLogprobs: this.refLogprobs,
      logprobs: this.logprobs,
      tok: this.tok,
    };
    this.lossLogprobsCall = K.lossToken(ctx, lb, ld, K.LOSS_MODE.logprobs);
    this.lossSftCall = K.lossToken(ctx, lb, ld, K.LOSS_MODE.sft);
    this.lossPolicyCall = K.lossToken(ctx, lb, ld, K.LOSS_MODE.policy, 0.2, 0);
    const rb = { tok: this.tok, g: this.tokenGrad, stats: this.stats };
    this.reduceSftCall = K.lossReduce(ctx, rb, B, L, K.AGGREGATION["token-mean"], 1);
    this.reducePolicyCall = K.lossReduce(ctx, rb, B, L, K.AGGREGATION[AGG_DEFAULT], L - 1);
    this.backwardCalls = this.buildBackward();
    this.forwardCalls(this.params);
  }

  /**
   * Registers a call of the compacted last layer whose row count follows the
   * batch's packed rows: matmul M, layer-norm N, GELU N = rows·4C, gather R.
   */
  private packedCall<T extends KernelCall>(c: T, per: "M" | "N" | "NH4" | "R" = "R"): T {
    const H4 = this.config.mlpRatio * this.config.dModel;
    const call = c as unknown as { set(v: Record<string, number>): void };
    this.rowSetters.push((rows) => {
      if (per === "M") call.set({ M: rows });
      else if (per === "N") call.set({ N: rows });
      else if (per === "NH4") call.set({ N: rows * H4 });
      else call.set({ R: rows });
    });
    return c;
  }

  /** A tensor of a flat parameter-like buffer as a 256-byte aligned binding. */
  private slot(buf: GPUBuffer, name: string): Binding {
    const t = this.layout.byName.get(name);
    if (!t) throw new Error(`TrainGraph: no parameter named '${name}'`);
    return { buffer: buf, offset: t.offset * 4, size: t.size * 4 };
  }

  /** The last residual stream [BT, C] (input of lnf). */
  private get finalResidual(): GPUBuffer {
    return this.layers.length ? this.layers[this.layers.length - 1].res3 : this.encoded;
  }

  /** Prepares (once per parameter buffer) the forward dispatches up to the logits. */
  private forwardCalls(params: GPUBuffer): ForwardCalls {
    const cached = this.forwards.get(params);
    if (cached) return cached;
    if (params.size < this.layout.totalFloats * 4)
      throw new Error(
        `TrainGraph: params buffer has ${params.size} bytes, the layout needs ${this.layout.totalFloats * 4}`,
      );
    const { ctx, config, B, P, T, textLen: L } = this;
    const C = config.dModel;
    const H4 = config.mlpRatio * C;
    const BT = B * T;
    const w = (name: string) => this.slot(params, name);
    const dummy = this.dummy;
    const calls: KernelCall[] = [];
    calls.push(
      K.patchify(
        ctx,
        { images: this.images, patches: this.patches },
        {
          B,
          H: config.imageHeight,
          W: config.imageWidth,
          Ch: config.imageChannels,
          patchSize: config.patchSize,
        },
      ),
    );
    calls.push(
      K.matmulForward(
        ctx,
        {
          x: this.patches,
          w: w("patch.w"),
          bias: w("patch.b"),
          res: null,
          y: this.patchEmb,
          dummy,
        },
        B * P,
        patchDim(config),
        C,
      ),
    );
    const embed = K.embedForward(
      ctx,
      {
        patchEmb: this.patchEmb,
        tokens: this.tokens,
        wte: w("wte"),
        wpe: w("wpe"),
        out: this.encoded,
      },
      B,
      P,
      L,
      C,
      this.posOff,
    );
    this.embedCalls.push(embed);
    calls.push(embed);
    const attnDims = { B, T, C, NH: config.nHeads, P, L, padId: this.padId };
    let x = this.encoded;
    this.layers.forEach((a, l) => {
      const h = (n: string) => w(`h.${l}.${n}`);
      calls.push(
        K.layernormForward(
          ctx,
          { inp: x, g: h("ln1.g"), b: h("ln1.b"), out: a.ln1, mean: a.ln1Mean, rstd: a.ln1Rstd },
          BT,
          C,
        ),
      );
      calls.push(
        K.matmulForward(
          ctx,
          { x: a.ln1, w: h("attn.wqkv"), bias: h("attn.bqkv"), res: null, y: a.qkv, dummy },
          BT,
          C,
          3 * C,
        ),
      );
      // The last block of a compacted graph continues on the loss rows only (packed):
      // with a head size % 4 = 0 from its attention queries on, else after the attention.
      const pk = l === config.nLayers - 1 ? this.packed : null;
      const R = pk ? this.rows : BT;
      if (pk && this.packedAttention) {
        const bind = { qkv: a.qkv, tokens: this.tokens, idx: pk.idx, att: a.att, out: pk.atty };
        calls.push(this.packedCall(K.attentionForwardRows(ctx, bind, attnDims, R)));
      } else {
        calls.push(
          K.attentionForward(
            ctx,
            { qkv: a.qkv, tokens: this.tokens, att: a.att, out: a.atty },
            attnDims,
          ),
        );
      }
      let atty = a.atty;
      let xin = x;
      if (pk) {
        if (!this.packedAttention)
          calls.push(
            this.packedCall(K.rowsGather(ctx, { idx: pk.idx, x: a.atty, y: pk.atty }, R, C)),
          );
        calls.push(this.packedCall(K.rowsGather(ctx, { idx: pk.idx, x, y: pk.xin }, R, C)));
        atty = pk.atty;
        xin = pk.xin;
      }
      const rowsOf = <T extends KernelCall>(c: T, per: "M" | "N" | "NH4"): T =>
        pk ? this.packedCall(c, per) : c;
      calls.push(
        rowsOf(
          K.matmulForward(
            ctx,
            { x: atty, w: h("attn.wo"), bias: h("attn.bo"), res: xin, y: a.res2, dummy },
            R,
            C,
            C,
          ),
          "M",
        ),
      );
      calls.push(
        rowsOf(
          K.layernormForward(
            ctx,
            {
              inp: a.res2,
              g: h("ln2.g"),
              b: h("ln2.b"),
              out: a.ln2,
              mean: a.ln2Mean,
              rstd: a.ln2Rstd,
            },
            R,
            C,
          ),
          "N",
        ),
      );
      calls.push(
        rowsOf(
          K.matmulForward(
            ctx,
            { x: a.ln2, w: h("mlp.wfc"), bias: h("mlp.bfc"), res: null, y: a.fch, dummy },
            R,
            C,
            H4,
          ),
          "M",
        ),
      );
      calls.push(rowsOf(K.geluForward(ctx, { inp: a.fch, out: a.fchGelu }, R * H4), "NH4"));
      calls.push(
        rowsOf(
          K.matmulForward(
            ctx,
            {
              x: a.fchGelu,
              w: h("mlp.wproj"),
              bias: h("mlp.bproj"),
              res: a.res2,
              y: a.res3,
              dummy,
            },
            R,
            H4,
            C,
          ),
          "M",
        ),
      );
      x = a.res3;
    });
    const pk = this.packed;
    const R = pk ? this.rows : BT;
    const rowsOf = <T extends KernelCall>(c: T, per: "M" | "N"): T =>
      pk ? this.packedCall(c, per) : c;
    calls.push(
      rowsOf(
        K.layernormForward(
          ctx,
          {
            inp: x,
            g: w("lnf.g"),
            b: w("lnf.b"),
            out: this.lnf,
            mean: this.lnfMean,
            rstd: this.lnfRstd,
          },
          R,
          C,
        ),
        "N",
      ),
    );
    const V = config.vocabSize;
    calls.push(
      rowsOf(
        K.matmulForward(
          ctx,
          {
            x: this.lnf,
            w: w("head.w"),
            bias: null,
            res: null,
            y: pk?.logits ?? this.logits,
            dummy,
          },
          R,
          C,
          V,
        ),
        "M",
      ),
    );
    // Spread the packed logits back to [B, T, V] (zeros on the rows the loss does not read).
    if (pk) calls.push(K.rowsGather(ctx, { idx: pk.inv, x: pk.logits, y: this.logits }, BT, V));
    const fc = { calls };
    this.forwards.set(params, fc);
    return fc;
  }

  /** Prepares the backward dispatches (from dlogits to every gradient) for this.params / this.grads. */
  private buildBackward(): KernelCall[] {
    const { ctx, config, B, P, T, textLen: L } = this;
    const C = config.dModel;
    const H4 = config.mlpRatio * C;
    const V = config.vocabSize;
    const BT = B * T;
    const w = (name: string) => this.slot(this.params, name);
    const g = (name: string) => this.slot(this.grads, name);
    const dummy = this.dummy;
    const calls: KernelCall[] = [];
    // loss → dlogits
    this.logitsGradCall = K.lossLogitsGrad(
      ctx,
      {
        logits: this.logits,
        tokens: this.tokens,
        g: this.tokenGrad,
        tok: this.tok,
        dlogits: this.dlogits,
      },
      { B, T, L, P, V },
    );
    calls.push(this.logitsGradCall);
    // A compacted graph runs the head, lnf and the last block's MLP and output
    // projection on the packed loss rows (pk), then spreads d atty and d res back.
    const pk = this.packed;
    const R = pk ? this.rows : BT;
    const rowsOf = <T extends KernelCall>(c: T, per: "M" | "N" | "NH4"): T =>
      pk ? this.packedCall(c, per) : c;
    let dlogits = this.dlogits;
    if (pk) {
      calls.push(
        this.packedCall(K.rowsGather(ctx, { idx: pk.idx, x: this.dlogits, y: pk.dlogits }, R, V)),
      );
      dlogits = pk.dlogits;
    }
    // logits = lnf · head.w
    calls.push(
      rowsOf(K.matmulBackwardDx(ctx, { dy: dlogits, w: w("head.w"), dx: this.dln }, R, C, V), "M"),
    );
    calls.push(
      rowsOf(
        K.matmulBackwardDw(
          ctx,
          { x: this.lnf, dy: dlogits, dw: g("head.w"), dbias: null, dummy },
          R,
          C,
          V,
        ),
        "M",
      ),
    );
    // lnf: dres = LN'(dln) starts the residual-stream gradient
    const xf = this.finalResidual;
    calls.push(
      rowsOf(
        K.layernormBackwardDx(
          ctx,
          {
            dout: this.dln,
            inp: xf,
            g: w("lnf.g"),
            mean: this.lnfMean,
            rstd: this.lnfRstd,
            dinp: pk?.dres ?? this.dres,
          },
          R,
          C,
          false,
        ),
        "N",
      ),
    );
    calls.push(
      rowsOf(
        K.layernormBackwardParams(
          ctx,
          {
            dout: this.dln,
            inp: xf,
            mean: this.lnfMean,
            rstd: this.lnfRstd,
            dg: g("lnf.g"),
            db: g("lnf.b"),
          },
          R,
          C,
        ),
        "N",
      ),
    );
    const attnDims = { B, T, C, NH: config.nHeads, P, L, padId: this.padId };
    for (let l = config.nLayers - 1; l >= 0; l--) {
      const a = this.layers[l];
      const xin = l === 0 ? this.encoded : this.layers[l - 1].res3;
      const hw = (n: string) => w(`h.${l}.${n}`);
      const hg = (n: string) => g(`h.${l}.${n}`);
      // The last block of a compacted graph: packed rows up to the output projection.
      const lpk = l === config.nLayers - 1 ? pk : null;
      const Rl = lpk ? R : BT;
      const rowsOfL = <T extends KernelCall>(c: T, per: "M" | "N" | "NH4"): T =>
        lpk ? this.packedCall(c, per) : c;
      const dres = lpk?.dres ?? this.dres;
      // res3 = res2 + fchGelu·wproj + bproj
      calls.push(
        rowsOfL(
          K.matmulBackwardDx(ctx, { dy: dres, w: hw("mlp.wproj"), dx: this.dfchGelu }, Rl, H4, C),
          "M",
        ),
      );
      calls.push(
        rowsOfL(
          K.matmulBackwardDw(
            ctx,
            { x: a.fchGelu, dy: dres, dw: hg("mlp.wproj"), dbias: hg("mlp.bproj"), dummy },
            Rl,
            H4,
            C,
          ),
          "M",
        ),
      );
      // fchGelu = gelu(fch)
      calls.push(
        rowsOfL(
          K.geluBackward(ctx, { inp: a.fch, dout: this.dfchGelu, dinp: this.dfch }, Rl * H4),
          "NH4",
        ),
      );
      // fch = ln2·wfc + bfc
      calls.push(
        rowsOfL(
          K.matmulBackwardDx(ctx, { dy: this.dfch, w: hw("mlp.wfc"), dx: this.dln }, Rl, C, H4),
          "M",
        ),
      );
      calls.push(
        rowsOfL(
          K.matmulBackwardDw(
            ctx,
            { x: a.ln2, dy: this.dfch, dw: hg("mlp.wfc"), dbias: hg("mlp.bfc"), dummy },
            Rl,
            C,
            H4,
          ),
          "M",
        ),
      );
      // ln2 = LN(res2): dres += LN'(dln)  (dres now holds d res2)
      calls.push(
        rowsOfL(
          K.layernormBackwardDx(
            ctx,
            {
              dout: this.dln,
              inp: a.res2,
              g: hw("ln2.g"),
              mean: a.ln2Mean,
              rstd: a.ln2Rstd,
              dinp: dres,
            },
            Rl,
            C,
            true,
          ),
          "N",
        ),
      );
      calls.push(
        rowsOfL(
          K.layernormBackwardParams(
            ctx,
            {
              dout: this.dln,
              inp: a.res2,
              mean: a.ln2Mean,
              rstd: a.ln2Rstd,
              dg: hg("ln2.g"),
              db: hg("ln2.b"),
            },
            Rl,
            C,
          ),
          "N",
        ),
      );
      // res2 = xin + atty·wo + bo
      calls.push(
        rowsOfL(
          K.matmulBackwardDx(
            ctx,
            { dy: dres, w: hw("attn.wo"), dx: lpk?.datty ?? this.datty },
            Rl,
            C,
            C,
          ),
          "M",
        ),
      );
      calls.push(
        rowsOfL(
          K.matmulBackwardDw(
            ctx,
            { x: lpk?.atty ?? a.atty, dy: dres, dw: hg("attn.wo"), dbias: hg("attn.bo"), dummy },
            Rl,
            C,
            C,
          ),
          "M",
        ),
      );
      if (lpk) {
        // Back to every row: d xin (= d res2 through the residual) and d atty are 0 off the loss rows.
        calls.push(K.rowsGather(ctx, { idx: lpk.inv, x: lpk.dres, y: this.dres }, BT, C));
        calls.push(K.rowsGather(ctx, { idx: lpk.inv, x: lpk.datty, y: this.datty }, BT, C));
      }
      // atty = attention(qkv)
      if (lpk && this.packedAttention) {
        // dpre and dqkv were cleared (recordBackward): the q pass writes the packed rows only.
        const [qPass, kvPass] = K.attentionBackwardRows(
          ctx,
          {
            doutPacked: lpk.datty,
            dout: this.datty,
            qkv: a.qkv,
            att: a.att,
            dpre: this.dpre,
            dqkv: this.dqkv,
            idx: lpk.idx,
          },
          attnDims,
          R,
        );
        calls.push(this.packedCall(qPass), kvPass);
      } else {
        calls.push(
          ...K.attentionBackward(
            ctx,
            { dout: this.datty, qkv: a.qkv, att: a.att, dpre: this.dpre, dqkv: this.dqkv },
            attnDims,
          ),
        );
      }
      // qkv = ln1·wqkv + bqkv
      calls.push(
        K.matmulBackwardDx(ctx, { dy: this.dqkv, w: hw("attn.wqkv"), dx: this.dln }, BT, C, 3 * C),
      );
      calls.push(
        K.matmulBackwardDw(
          ctx,
          { x: a.ln1, dy: this.dqkv, dw: hg("attn.wqkv"), dbias: hg("attn.bqkv"), dummy },
          BT,
          C,
          3 * C,
        ),
      );
      // ln1 = LN(xin): dres += LN'(dln)  (dres now holds d xin)
      calls.push(
        K.layernormBackwardDx(
          ctx,
          {
            dout: this.dln,
            inp: xin,
            g: hw("ln1.g"),
            mean: a.ln1Mean,
            rstd: a.ln1Rstd,
            dinp: this.dres,
          },
          BT,
          C,
          true,
        ),
      );
      calls.push(
        K.layernormBackwardParams(
          ctx,
          {
            dout: this.dln,
            inp: xin,
            mean: a.ln1Mean,
            rstd: a.ln1Rstd,
            dg: hg("ln1.g"),
            db: hg("ln1.b"),
          },
          BT,
          C,
        ),
      );
    }
    // encoded = embeddings
    const embed = K.embedBackward(
      ctx,
      {
        dout: this.dres,
        order: this.tokenOrder,
        start: this.tokenStart,
        dwte: g("wte"),
        dwpe: g("wpe"),
        dpatchEmb: this.dpatchEmb,
      },
      B,
      P,
      L,
      C,
      V,
    );
    this.embedCalls.push(embed);
    calls.push(embed);
    calls.push(
      K.matmulBackwardDw(
        ctx,
        { x: this.patches, dy: this.dpatchEmb, dw: g("patch.w"), dbias: g("patch.b"), dummy },
        B * P,
        patchDim(config),
        C,
      ),
    );
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
   * @throws Error on a size mismatch, a token id outside [0, V), or (compactLastLayer) a mask that is not a CPU array.
   */
  setBatch(batch: TrainBatch): void {
    const { B, textLen: L, config } = this;
    for (let i = 0; i < batch.tokens.length; i++) {
      const id = batch.tokens[i];
      if (!(id >= 0 && id < config.vocabSize))
        throw new Error(
          `TrainGraph.setBatch: token ${id} at ${i} is outside [0, ${config.vocabSize})`,
        );
    }
    if (batch.tokens.length !== B * L)
      throw new Error(`TrainGraph: tokens has ${batch.tokens.length} values, expected ${B * L}`);
    const { order, start } = K.tokenOrder(batch.tokens, config.vocabSize);
    // Checked before anything is written: a refused batch leaves the graph's inputs as they were.
    if (this.packed && !(batch.mask instanceof Float32Array))
      throw new Error(
        "TrainGraph.setBatch: a compacted graph (compactLastLayer) needs the mask as a CPU array",
      );
    const rows = this.packed
      ? K.lossRows(batch.mask as Float32Array, B, L, this.P, ROW_QUANTUM)
      : null;
    this.put(
      this.images,
      batch.images,
      B * config.imageHeight * config.imageWidth * config.imageChannels,
      "images",
    );
    this.put(this.tokens, batch.tokens, B * L, "tokens");
    this.ctx.write(this.tokenOrder, order);
    this.ctx.write(this.tokenStart, start);
    if (batch.mask) this.put(this.mask, batch.mask, B * L, "mask");
    if (rows && this.packed) {
      this.ctx.write(this.packed.idx, rows.idx);
      this.ctx.write(this.packed.inv, rows.inv);
      if (rows.rows !== this.rows) {
        this.rows = rows.rows;
        for (const set of this.rowSetters) set(rows.rows);
      }
    }
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
    if (this.packedAttention) {
      // The packed forward writes only the loss rows' att rows; the full kv pass reads every row (as 0).
      const { B, T, config } = this;
      const last = this.layers[config.nLayers - 1];
      this.ctx.clear(last.att, 0, B * config.nHeads * T * T * 4);
    }
    for (const c of this.forwardCalls(params).calls) this.ctx.run(c);
  }

  private recordBackward(): void {
    this.ctx.clear(this.grads);
    if (this.packedAttention) {
      // The packed q pass writes only the loss rows' dpre and dq; the rest must read 0.
      const { B, T, config } = this;
      this.ctx.clear(this.dpre, 0, B * config.nHeads * T * T * 4);
      this.ctx.clear(this.dqkv, 0, B * T * 3 * config.dModel * 4);
    }
    for (const c of this.backwardCalls) this.ctx.run(c);
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
    this.logitsGradCall.set({ invTemp: 1 });
    this.recordForward(this.params);
    ctx.run(this.lossSftCall);
    ctx.run(this.reduceSftCall);
    this.recordBackward();
    ctx.flush();
    this.lastStep = { kind: "sft", submitted: performance.now() };
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
    const clipEps = opts.clipEps ?? 0.2;
    const beta = opts.beta ?? 0;
    const agg = opts.aggregation ?? AGG_DEFAULT;
    const normLength = opts.normLength ?? L - 1;
    if (!(clipEps >= 0 && clipEps < 1))
      throw new Error(`policyForwardBackward: clipEps must be in [0, 1), got ${clipEps}`);
    if (!(beta >= 0) || !Number.isFinite(beta))
      throw new Error(`policyForwardBackward: beta must be a finite number ≥ 0, got ${beta}`);
    if (!(agg in K.AGGREGATION))
      throw new Error(`policyForwardBackward: unknown aggregation '${agg}'`);
    if (!(normLength > 0))
      throw new Error(`policyForwardBackward: normLength must be > 0, got ${normLength}`);
    if (beta > 0 && !opts.refLogprobs)
      throw new Error("policyForwardBackward: beta > 0 needs refLogprobs");
    const temperature = opts.temperature ?? 1;
    checkTemperature("policyForwardBackward", temperature);
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
    this.logitsGradCall.set({ invTemp: 1 / temperature });
    this.reducePolicyCall.set({ agg: K.AGGREGATION[agg], normLength });
    this.recordForward(this.params);
    ctx.run(this.lossPolicyCall);
    ctx.run(this.reducePolicyCall);
    this.recordBackward();
    ctx.flush();
    this.lastStep = { kind: "policy", submitted: performance.now() };
  }

  /**
   * The prepared dispatches of the trainable parameters' forward (patches to
   * logits) and of the backward (dlogits to every gradient), in run order,
   * for profiling (npm run bench:kernels). Running them out of a step's
   * order leaves the buffers in no defined state.
   */
  dispatches(): { forward: readonly KernelCall[]; backward: readonly KernelCall[] } {
    return { forward: this.forwardCalls(this.params).calls, backward: this.backwardCalls };
  }

  /** Forgets the measured step times (after a warm-up step that paid for the pipeline builds). */
  forgetStepTimes(): void {
    this.stepMs = { sft: 0, policy: 0 };
  }

  /**
   * Reads the statistics of the last step: ONE read-back of 8 floats.
   * @throws Error when the loss is NaN or ±Inf (the step diverged; do not apply its gradients).
   */
  async readStats(): Promise<StepStats> {
    const last = this.lastStep;
    if (last && this.sleepBeforeRead) {
      const wait = 0.8 * this.stepMs[last.kind] - (performance.now() - last.submitted);
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const s = await this.ctx.readF32(this.stats, 0, 8);
    if (last) {
      const ms = performance.now() - last.submitted;
      const prev = this.stepMs[last.kind];
      this.stepMs[last.kind] = prev ? 0.7 * prev + 0.3 * ms : ms;
      this.lastStep = null;
    }
    const stats = { loss: s[0], kl: s[1], clipFrac: s[2], entropy: s[3], tokens: s[4] };
    if (!Number.isFinite(stats.loss)) {
      throw new Error(
        `TrainGraph: the loss is ${stats.loss} (kl ${stats.kl}, entropy ${stats.entropy}); training diverged — lower the learning rate or check the inputs`,
      );
    }
    return stats;
  }
}

/** Throws unless τ is a finite number > 0. */
function checkTemperature(where: string, t: number): void {
  if (!(t > 0) || !Number.isFinite(t))
    throw new Error(`${where}: temperature must be a finite number > 0, got ${t}`);
}
