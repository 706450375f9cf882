/**
 * Launchers of the loss kernels (specs in ./spec.ts, WGSL in shaders/loss/).
 * Calls are prepared once; per step the trainer changes the mode, ε, β, τ or
 * the aggregation by name with SpecCall.set (e.g. `call.set({ invTemp: 1 / τ })`).
 * Checker: test/gpu/loss/loss.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import { lossLogitsGradSpec, lossReduceSpec, lossTokenSpec } from "./spec";

/** What loss_token computes: logprobs only, SFT, policy loss with / without a reference policy (KL). */
/** Loss modes of loss_token (shaders/loss/loss_token.wgsl); the on-policy ones take logπ_old = logπ. */
export const LOSS_MODE = {
  logprobs: 0,
  sft: 1,
  policy: 2,
  policyNoRef: 3,
  policyOnPolicy: 4,
  policyNoRefOnPolicy: 5,
} as const;

/** Aggregation codes of loss_reduce (docs/reward-spec.md §1). */
export const AGGREGATION = {
  "seq-mean-token-mean": 0,
  "token-mean": 1,
  "seq-mean-token-sum-norm": 2,
} as const;

/** Sizes of the loss kernels: B sequences of T = P + L positions, vocabulary V. */
export interface LossDims {
  B: number;
  T: number;
  L: number;
  P: number;
  V: number;
}

/** A prepared loss_token dispatch (fields: see lossTokenSpec). */
export type LossTokenCall = SpecCall<typeof lossTokenSpec.uniforms>;
/** A prepared loss_reduce dispatch. */
export type LossReduceCall = SpecCall<typeof lossReduceSpec.uniforms>;
/** A prepared loss_logits_grad dispatch. */
export type LossLogitsGradCall = SpecCall<typeof lossLogitsGradSpec.uniforms>;

/**
 * Per-token logprobs [B, L] and records tok [B·L, 8] (see shaders/loss/loss_token.wgsl).
 * @param mode a LOSS_MODE code.
 * @param temperature τ > 0: logprobs are those of softmax(logits/τ).
 * @throws Error naming the field when a value does not fit its type (e.g. τ = 0).
 */
export function lossToken(
  ctx: GpuContext,
  b: {
    logits: Binding;
    tokens: Binding;
    mask: Binding;
    advantages: Binding;
    oldLogprobs: Binding;
    refLogprobs: Binding;
    logprobs: Binding;
    tok: Binding;
  },
  d: LossDims,
  mode: number,
  clipEps = 0.2,
  beta = 0,
  temperature = 1,
): LossTokenCall {
  const { logits, tokens, mask, advantages, oldLogprobs, refLogprobs, logprobs, tok } = b;
  const { B, T, L, P, V } = d;
  return lossTokenSpec.call(
    ctx,
    { logits, tokens, mask, advantages, oldLogprobs, refLogprobs, logprobs, tok },
    { B, T, L, P, V, mode, clipEps, beta, invTemp: 1 / temperature },
  );
}

/**
 * Loss, stats [8] and weighted per-token gradient g [B, L] (see shaders/loss/loss_reduce.wgsl).
 * @param agg an AGGREGATION code; normLength the normaliser of "seq-mean-token-sum-norm".
 */
export function lossReduce(
  ctx: GpuContext,
  b: { tok: Binding; g: Binding; stats: Binding },
  B: number,
  L: number,
  agg: number,
  normLength: number,
): LossReduceCall {
  return lossReduceSpec.call(
    ctx,
    { tok: b.tok, g: b.g, stats: b.stats },
    { B, L, agg, normLength },
  );
}

/** dlogits [B, T, V] from g [B, L] at temperature τ > 0 (see shaders/loss/loss_logits_grad.wgsl). */
export function lossLogitsGrad(
  ctx: GpuContext,
  b: { logits: Binding; tokens: Binding; g: Binding; tok: Binding; dlogits: Binding },
  d: LossDims,
  temperature = 1,
): LossLogitsGradCall {
  const { logits, tokens, g, tok, dlogits } = b;
  const { B, T, L, P, V } = d;
  return lossLogitsGradSpec.call(
    ctx,
    { logits, tokens, g, tok, dlogits },
    { B, T, L, P, V, invTemp: 1 / temperature },
  );
}
