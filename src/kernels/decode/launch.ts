/**
 * Launchers of the generator's plumbing kernels (specs in ./spec.ts, WGSL in
 * shaders/decode/). Checker: test/gpu/decode/decode.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import { decodeAdvanceSpec, decodeGatherSpec } from "./spec";

/**
 * Row gather y [R, W] ← x rows (r / div)·stride + offset (W % 4 = 0): div = G
 * replicates each prompt's row for its G sequences (1: plain gather).
 * @throws Error when W is not a multiple of 4.
 */
export function decodeGather(
  ctx: GpuContext,
  b: { x: Binding; y: Binding },
  d: { R: number; W: number; stride: number; offset: number; div: number },
): SpecCall<typeof decodeGatherSpec.uniforms> {
  if (d.W % 4 !== 0) throw new Error(`decode_gather: W = ${d.W} must be a multiple of 4`);
  const { R, W, stride, offset, div } = d;
  return decodeGatherSpec.call(ctx, { x: b.x, y: b.y }, { R, W, stride, offset, div });
}

/** Advances the step counter state[0] by `inc` (u32) on the GPU. */
export function decodeAdvance(
  ctx: GpuContext,
  b: { state: Binding },
  inc = 1,
): SpecCall<typeof decodeAdvanceSpec.uniforms> {
  return decodeAdvanceSpec.call(ctx, { state: b.state }, { inc });
}
