/**
 * Launcher of the generator's plumbing kernel (spec in ./spec.ts, WGSL in
 * shaders/decode/). Checker: test/gpu/decode/decode.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import { decodeAdvanceSpec } from "./spec";

/** Advances the step counter state[0] by `inc` (u32) on the GPU. */
export function decodeAdvance(
  ctx: GpuContext,
  b: { state: Binding },
  inc = 1,
): SpecCall<typeof decodeAdvanceSpec.uniforms> {
  return decodeAdvanceSpec.call(ctx, { state: b.state }, { inc });
}
