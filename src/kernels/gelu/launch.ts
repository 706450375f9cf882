/**
 * Launchers of the GELU kernels (specs in ./spec.ts, WGSL in shaders/gelu/).
 * Checker: test/gpu/gelu/gelu.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import { geluBackwardSpec, geluForwardSpec } from "./spec";

/** out [N] = GELU (tanh approximation) of inp [N]. */
export function geluForward(
  ctx: GpuContext,
  b: { inp: Binding; out: Binding },
  N: number,
): SpecCall<typeof geluForwardSpec.uniforms> {
  return geluForwardSpec.call(ctx, { inp: b.inp, out: b.out }, { N });
}

/** dinp [N] = gelu'(inp)·dout (written, not accumulated). */
export function geluBackward(
  ctx: GpuContext,
  b: { inp: Binding; dout: Binding; dinp: Binding },
  N: number,
): SpecCall<typeof geluBackwardSpec.uniforms> {
  return geluBackwardSpec.call(ctx, { inp: b.inp, dout: b.dout, dinp: b.dinp }, { N });
}
