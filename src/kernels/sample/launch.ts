/**
 * Launcher of the sampling kernel (spec in ./spec.ts, WGSL in
 * shaders/sample/). The Generator prepares one call and, per batch, sets
 * the batch's fields by name (`call.set({ M, seed, eos, pad, greedy, topK,
 * invT, topP })`). Checker: test/gpu/sample/sample.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall, UniformValues } from "../../gpu/kernel-spec";
import { sampleSpec } from "./spec";

/** A prepared sampling dispatch. */
export type SampleCall = SpecCall<typeof sampleSpec.uniforms>;

/** Uniform values of the sampling kernel (fields: see sampleSpec). */
export type SampleUniforms = UniformValues<typeof sampleSpec.uniforms>;

/**
 * Prepares the sampling dispatch over logits [N, V] (ework [N, V] scratch,
 * forced [N, cap] + lengths [N], state [step, pad, …], text [N, textCap],
 * out tokens | logprobs | lengths | done).
 * @throws Error naming the field when a value does not fit its type.
 */
export function sampleTokens(
  ctx: GpuContext,
  b: {
    logits: Binding;
    ework: Binding;
    forced: Binding;
    state: Binding;
    text: Binding;
    out: Binding;
  },
  u: SampleUniforms,
): SampleCall {
  const { logits, ework, forced, state, text, out } = b;
  return sampleSpec.call(ctx, { logits, ework, forced, state, text, out }, u);
}
