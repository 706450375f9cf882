/**
 * Launchers of the GELU kernels (specs in ./spec.ts, WGSL in shaders/gelu/).
 * Checker: test/gpu/gelu/gelu.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import { geluBackwardSpec, geluBackwardVec4, geluForwardSpec, geluForwardVec4 } from "./spec";

/**
 * Which variant runs: "vec4" (four floats per invocation) needs N % 4 = 0 at
 * every size the call is set to; "auto" picks vec4 when the N given here is
 * a multiple of 4 (lab choice: about half the invocations; the same bits).
 */
export type GeluVariant = "scalar" | "vec4" | "auto";

function pick(N: number, variant: GeluVariant): boolean {
  if (variant === "vec4" && N % 4 !== 0)
    throw new Error(`gelu: the vec4 variant needs N % 4 = 0, got N = ${N}`);
  return variant === "vec4" || (variant === "auto" && N % 4 === 0);
}

/**
 * out [N] = GELU (tanh approximation) of inp [N] (N floats).
 * @throws Error for variant "vec4" with N % 4 ≠ 0.
 */
export function geluForward(
  ctx: GpuContext,
  b: { inp: Binding; out: Binding },
  N: number,
  variant: GeluVariant = "auto",
): SpecCall<typeof geluForwardSpec.uniforms> {
  const spec = pick(N, variant) ? geluForwardVec4 : geluForwardSpec;
  return spec.call(ctx, { inp: b.inp, out: b.out }, { N });
}

/**
 * dinp [N] = gelu'(inp)·dout (written, not accumulated; N floats).
 * @throws Error for variant "vec4" with N % 4 ≠ 0.
 */
export function geluBackward(
  ctx: GpuContext,
  b: { inp: Binding; dout: Binding; dinp: Binding },
  N: number,
  variant: GeluVariant = "auto",
): SpecCall<typeof geluBackwardSpec.uniforms> {
  const spec = pick(N, variant) ? geluBackwardVec4 : geluBackwardSpec;
  return spec.call(ctx, { inp: b.inp, dout: b.dout, dinp: b.dinp }, { N });
}
