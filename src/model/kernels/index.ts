/**
 * Launchers of the training-path kernels (shaders/*.wgsl): each function
 * compiles its kernel once (cached by the context) and prepares ONE
 * KernelCall with the sizes in its uniform. Build calls at setup; run them
 * every step with ctx.run(call). Shapes are row-major; names match the
 * shader headers and the CPU references in src/model/reference/.
 *
 * Versions (llm.c dev/cuda style; each passes the same checker):
 *   matmul      src/kernels/matmul/launch.ts
 *   attention   src/kernels/attention/launch.ts
 *   layernorm   src/kernels/layernorm/launch.ts
 *   gelu        src/kernels/gelu/launch.ts
 *   embed       src/kernels/embed/launch.ts
 * No version uses workgroup memory: register blocking is what pays on CPU
 * adapters (docs/design.md). A workgroup-tiled matmul for discrete GPUs is not
 * written yet (no GPU was available to measure it against these).
 */
import { packParams, type Binding, type GpuContext, type KernelCall } from "../../gpu/context";

export * from "../../kernels/matmul/launch";
export * from "../../kernels/attention/launch";
export * from "../../kernels/layernorm/launch";
export * from "../../kernels/gelu/launch";
export * from "../../kernels/embed/launch";
import lossTokenCode from "../../../shaders/loss_token.wgsl?raw";
import lossReduceCode from "../../../shaders/loss_reduce.wgsl?raw";
import lossLogitsGradCode from "../../../shaders/loss_logits_grad.wgsl?raw";

const WG = 64;

/**
 * Workgroup counts for `threads` invocations of a 64-wide 1-D kernel,
 * spilling into y past maxComputeWorkgroupsPerDimension (kernels that read
 * num_workgroups recombine x and y).
 */
export function grid(ctx: GpuContext, threads: number): [number, number] {
  const n = Math.max(1, Math.ceil(threads / WG));
  const max = ctx.adapter.limits.maxComputeWorkgroupsPerDimension;
  if (n <= max) return [n, 1];
  const y = Math.ceil(n / max);
  return [Math.ceil(n / y), y];
}

/** Grid for kernels that only read gid.x (no y spill). @throws Error when over the limit. */
function grid1(ctx: GpuContext, name: string, threads: number): [number] {
  const n = Math.max(1, Math.ceil(threads / WG));
  if (n > ctx.adapter.limits.maxComputeWorkgroupsPerDimension)
    throw new Error(`${name}: ${threads} invocations exceed one dispatch dimension`);
  return [n];
}

/** What loss_token computes: logprobs only, SFT, policy loss with / without a reference policy (KL). */
export const LOSS_MODE = { logprobs: 0, sft: 1, policy: 2, policyNoRef: 3 } as const;

/** Sizes of the loss kernels. */
export interface LossDims {
  B: number;
  T: number;
  L: number;
  P: number;
  V: number;
}

/** Per-token logprobs [B, L] and records tok [B·L, 8] (see shaders/loss_token.wgsl). */
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
): KernelCall {
  return ctx.call(
    ctx.kernel("loss_token", lossTokenCode),
    [b.logits, b.tokens, b.mask, b.advantages, b.oldLogprobs, b.refLogprobs, b.logprobs, b.tok],
    lossTokenParams(d, mode, clipEps, beta, temperature),
    grid1(ctx, "loss_token", d.B * d.L),
  );
}

/**
 * Uniform of loss_token (for KernelCall.setParams when ε, β, τ or the mode change).
 * @param temperature τ > 0: logprobs are those of softmax(logits/τ).
 */
export function lossTokenParams(
  d: LossDims,
  mode: number,
  clipEps: number,
  beta: number,
  temperature = 1,
): ArrayBuffer {
  return packParams([
    d.B,
    d.T,
    d.L,
    d.P,
    d.V,
    mode,
    { f32: clipEps },
    { f32: beta },
    { f32: 1 / temperature },
    0,
    0,
    0,
  ]);
}

/** Aggregation codes of loss_reduce. */
export const AGGREGATION = {
  "seq-mean-token-mean": 0,
  "token-mean": 1,
  "seq-mean-token-sum-norm": 2,
} as const;

/** Uniform of loss_reduce. */
export function lossReduceParams(
  B: number,
  L: number,
  agg: number,
  normLength: number,
): ArrayBuffer {
  return packParams([B, L, agg, { f32: normLength }]);
}

/** Loss, stats [8] and weighted per-token gradient g [B, L] (see shaders/loss_reduce.wgsl). */
export function lossReduce(
  ctx: GpuContext,
  b: { tok: Binding; g: Binding; stats: Binding },
  B: number,
  L: number,
  agg: number,
  normLength: number,
): KernelCall {
  return ctx.call(
    ctx.kernel("loss_reduce", lossReduceCode),
    [b.tok, b.g, b.stats],
    lossReduceParams(B, L, agg, normLength),
    [1],
  );
}

/** dlogits [B, T, V] from g [B, L] at temperature τ (see shaders/loss_logits_grad.wgsl). */
export function lossLogitsGrad(
  ctx: GpuContext,
  b: { logits: Binding; tokens: Binding; g: Binding; tok: Binding; dlogits: Binding },
  d: LossDims,
  temperature = 1,
): KernelCall {
  return ctx.call(
    ctx.kernel("loss_logits_grad", lossLogitsGradCode),
    [b.logits, b.tokens, b.g, b.tok, b.dlogits],
    lossLogitsGradParams(d, temperature),
    grid1(ctx, "loss_logits_grad", d.B * d.T),
  );
}

/** Uniform of loss_logits_grad (τ > 0). */
export function lossLogitsGradParams(d: LossDims, temperature: number): ArrayBuffer {
  return packParams([d.B, d.T, d.L, d.P, d.V, { f32: 1 / temperature }, 0, 0]);
}
