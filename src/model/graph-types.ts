/**
 * Types of TrainGraph (./graph.ts): the per-step batch, the policy step's
 * options and their defaults, the statistics a step reports, the graph's
 * construction options, and the activation buffers of one block
 * (./graph-buffers.ts).
 *
 * Alignment of per-token arrays [B, textLen] (mask, logprobs, old/ref
 * logprobs): the value at s belongs to token s, predicted by the logits at
 * text position s − 1; s = 0 has no prediction (logprob 0, mask ignored).
 */
import { AGGREGATION } from "../kernels/loss/launch";
import type { ModelConfig } from "./config";
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

/** A graph whose buffers a window graph borrows (TrainGraphOptions.shareBuffersOf; TrainGraph is one). */
export interface BufferSource {
  readonly config: ModelConfig;
  readonly B: number;
  readonly textLen: number;
  /** Positions per sequence P + textLen. */
  readonly T: number;
  /** Buffers by label: a window graph takes its own from here and lends its packed ones back. */
  readonly bufferPool: Map<string, GPUBuffer>;
}

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
  shareBuffersOf?: BufferSource;
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
  /**
   * G: the batch comes in groups of G rollouts of one prompt (B % G = 0;
   * rollouts b·G … b·G + G − 1) and each step runs on the prefix layout
   * (src/layout/prefix-layout.ts): the positions a group shares (its image
   * patches and the prompt columns before the last, identical in its G
   * rows; setBatch finds them) are computed once per group in the forward,
   * the rollouts' attention reads the group's keys and values, and the
   * backward sums the gradients flowing into them over the group once. A
   * batch whose images differ within a group runs unshared. Loss,
   * statistics, logprobs and gradients are those of the unshared graph (up
   * to float summation order). Needs compactLastLayer, a head size that is a
   * multiple of 4 up to 32 (PREFIX_MAX_HEAD)
   * and CPU images in setBatch. Default undefined: every rollout on its own
   * (lab choice: the RL update turns it on; issue 29 item 2).
   */
  sharedPrefix?: number;
}

/** Activation buffers of one transformer block (llm.c ActivationTensors). */
export interface LayerActs {
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

/** The papers' (1/G)Σ_i (1/|o_i|)Σ_t: the policy step's default aggregation. */
export const DEFAULT_AGGREGATION: PolicyAggregation = "seq-mean-token-mean";

/** Throws unless τ is a finite number > 0. */
export function checkTemperature(where: string, t: number): void {
  if (!(t > 0) || !Number.isFinite(t))
    throw new Error(`${where}: temperature must be a finite number > 0, got ${t}`);
}

/**
 * The settings of a policy step with their defaults (PolicyForwardBackwardOptions).
 * @param L text tokens per sequence (normLength defaults to L − 1).
 * @throws Error on out-of-range options (clipEps, beta, aggregation, normLength, temperature) or β > 0 without refLogprobs.
 */
export function policyStepSettings(opts: PolicyForwardBackwardOptions, L: number) {
  const clipEps = opts.clipEps ?? 0.2;
  const beta = opts.beta ?? 0;
  const agg = opts.aggregation ?? DEFAULT_AGGREGATION;
  const normLength = opts.normLength ?? L - 1;
  if (!(clipEps >= 0 && clipEps < 1))
    throw new Error(`policyForwardBackward: clipEps must be in [0, 1), got ${clipEps}`);
  if (!(beta >= 0) || !Number.isFinite(beta))
    throw new Error(`policyForwardBackward: beta must be a finite number ≥ 0, got ${beta}`);
  if (!(agg in AGGREGATION)) throw new Error(`policyForwardBackward: unknown aggregation '${agg}'`);
  if (!(normLength > 0))
    throw new Error(`policyForwardBackward: normLength must be > 0, got ${normLength}`);
  if (beta > 0 && !opts.refLogprobs)
    throw new Error("policyForwardBackward: beta > 0 needs refLogprobs");
  const temperature = opts.temperature ?? 1;
  checkTemperature("policyForwardBackward", temperature);
  return { clipEps, beta, agg, normLength, temperature };
}
