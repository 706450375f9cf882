/**
 * Launchers of the LayerNorm kernels (specs in ./spec.ts, WGSL in
 * shaders/layernorm/); each prepares one SpecCall at setup. Checker:
 * test/gpu/layernorm/layernorm.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import {
  decodeLayernormSpec,
  layernormBackwardDxSpec,
  layernormBackwardParamsSpec,
  layernormForwardSpec,
} from "./spec";

/** @throws Error when C is not a multiple of 4 (the row kernels read vec4). */
function needC4(name: string, C: number): void {
  if (C % 4 !== 0) throw new Error(`${name}: C = ${C} must be a multiple of 4`);
}

/**
 * LayerNorm over rows: out [N, C], mean, rstd [N] from inp [N, C], g, b [C].
 * @throws Error when C % 4 ≠ 0.
 */
export function layernormForward(
  ctx: GpuContext,
  b: { inp: Binding; g: Binding; b: Binding; out: Binding; mean: Binding; rstd: Binding },
  N: number,
  C: number,
): SpecCall<typeof layernormForwardSpec.uniforms> {
  needC4("layernorm_forward", C);
  const { inp, g, out, mean, rstd } = b;
  return layernormForwardSpec.call(ctx, { inp, g, b: b.b, out, mean, rstd }, { N, C });
}

/**
 * LayerNorm input gradient: dinp [N, C] (= or += when `accumulate`).
 * @throws Error when C % 4 ≠ 0.
 */
export function layernormBackwardDx(
  ctx: GpuContext,
  b: { dout: Binding; inp: Binding; g: Binding; mean: Binding; rstd: Binding; dinp: Binding },
  N: number,
  C: number,
  accumulate: boolean,
): SpecCall<typeof layernormBackwardDxSpec.uniforms> {
  needC4("layernorm_backward_dx", C);
  const { dout, inp, g, mean, rstd, dinp } = b;
  return layernormBackwardDxSpec.call(
    ctx,
    { dout, inp, g, mean, rstd, dinp },
    { N, C, flags: accumulate ? 1 : 0 },
  );
}

/**
 * LayerNorm parameter gradients: dg, db [C] +=.
 * @throws Error when C % 4 ≠ 0 or C/4 invocations exceed one dispatch dimension.
 */
export function layernormBackwardParams(
  ctx: GpuContext,
  b: { dout: Binding; inp: Binding; mean: Binding; rstd: Binding; dg: Binding; db: Binding },
  N: number,
  C: number,
): SpecCall<typeof layernormBackwardParamsSpec.uniforms> {
  needC4("layernorm_backward_params", C);
  const { dout, inp, mean, rstd, dg, db } = b;
  return layernormBackwardParamsSpec.call(ctx, { dout, inp, mean, rstd, dg, db }, { N, C });
}

/**
 * Decode LayerNorm: y [R, D] from the rows r·inStride + inOffset of x, with
 * g and b read from the flat parameter buffer `w` at float offsets gOff, bOff.
 * @throws Error when D % 4 ≠ 0.
 */
export function decodeLayernorm(
  ctx: GpuContext,
  b: { x: Binding; w: Binding; y: Binding },
  d: { R: number; D: number; inStride: number; inOffset: number; gOff: number; bOff: number },
): SpecCall<typeof decodeLayernormSpec.uniforms> {
  needC4("decode_layernorm", d.D);
  const { R, D, inStride, inOffset, gOff, bOff } = d;
  return decodeLayernormSpec.call(
    ctx,
    { x: b.x, w: b.w, y: b.y },
    { R, D, inStride, inOffset, gOff, bOff },
  );
}
