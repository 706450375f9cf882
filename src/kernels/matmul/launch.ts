/**
 * Launchers of the matmul kernels (specs in ./spec.ts, WGSL in
 * shaders/matmul/): each prepares ONE SpecCall at setup; run it every step
 * with ctx.run(call). Shapes are row-major, w is [K, N].
 *
 * Versions (llm.c dev/cuda style; each passes the same checker,
 * test/gpu/matmul/matmul.test.ts):
 *   scalar    4×4 register block, scalar loads, any sizes
 *   vec4      vec4 loads, 8×4 register blocks (~2–3× scalar on SwiftShader);
 *             forward needs K, N % 4 = 0, dX N % 4 = 0, dW K, N % 4 = 0
 *   vec4x16   16×8 tiles: forward (K % 4 = 0, N % 8 = 0; ~1.3× vec4), dX
 *             (N % 4 = 0) and dW (K % 4 = 0, N % 8 = 0), the same bits as vec4
 *   tiled     forward, dX and dW: 64×64 tiles staged in workgroup memory
 *             (256 invocations, 4×4 each), any sizes; for real GPUs
 *   decode    the generator's matmul: W and b read from the flat parameter
 *             buffer at offsets, with a store / GELU / residual-add epilogue
 * "auto" picks tiled on an adapter that is not a CPU fallback and allows 256
 * invocations and 8 KB of workgroup memory (tiledFits), else the fastest
 * register-blocked version the sizes allow: on CPU adapters workgroup memory
 * only adds barriers (docs/design.md). The tiled choice is the textbook one
 * for discrete GPUs, not a measured one: no real GPU was at hand to time it
 * (docs/benchmarks-log.md).
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import {
  decodeMatmulSpec,
  matmulBackwardDwScalar,
  matmulBackwardDwVec4,
  matmulBackwardDw16x8,
  matmulBackwardDxScalar,
  matmulBackwardDx16x8,
  matmulBackwardDxVec4,
  matmulForward16x8,
  matmulForwardScalar,
  matmulForwardVec4,
  matmulBackwardDwTiled,
  matmulBackwardDxTiled,
  matmulForwardTiled,
  type MatmulEpilogue,
} from "./spec";

export type { MatmulEpilogue } from "./spec";

/** Uniform of the training matmuls. */
type MknCall = SpecCall<typeof matmulForwardScalar.uniforms>;

/**
 * Matmul variants: "tiled" (workgroup memory, any sizes), "vec4" (vec4-typed
 * loads, needs the widths noted per kernel to be multiples of 4) or "scalar"
 * (any sizes); "vec4x16" is the 16×8 tile (forward: K % 4 = 0, N % 8 = 0;
 * dX: N % 4 = 0; dW: K % 4 = 0, N % 8 = 0). "auto": tiled where tiledFits,
 * else the fastest register-blocked version the sizes allow (the 16×8 tile
 * where it fits and M ≥ 16).
 */
export type MatmulVariant = "auto" | "tiled" | "vec4" | "scalar" | "vec4x16";

/**
 * True on adapters the tiled kernels are for: not a CPU fallback, and the
 * limits allow 256 invocations per workgroup and 8 KB of workgroup memory.
 */
function tiledFits(ctx: GpuContext): boolean {
  const a = ctx.adapter;
  return (
    !a.isFallback &&
    a.limits.maxComputeInvocationsPerWorkgroup >= 256 &&
    a.limits.maxComputeWorkgroupStorageSize >= 8192
  );
}

/** True when the tiled kernel runs: asked for, or "auto" on an adapter it fits. */
function tiledChosen(ctx: GpuContext, variant: MatmulVariant): boolean {
  return variant === "tiled" || (variant === "auto" && tiledFits(ctx));
}

/**
 * How the 16×8 tile runs: "now" when asked for ("vec4x16"); "upgrade" for
 * "auto" where it fits and M ≥ 16: the call starts on the 8×4 vec4 kernel
 * and moves to the 16×8 one once its pipeline is built in the background
 * (CallOptions.upgrade; the same bits, so the move changes no value). On
 * SwiftShader the 16×8 tiles run dX 1.0–1.5×, dW 1.0–1.2× and the forward
 * ~1.3× the 8×4 block on the update's shapes, but each takes 0.3–0.8 s to
 * build in Chromium (docs/benchmarks-log.md, 2026-12-05), which the first RL step
 * then does not wait for. "no" otherwise.
 * @throws Error when "vec4x16" is asked for and the sizes do not allow it.
 */
function wide(
  variant: MatmulVariant,
  fits: boolean,
  M: number,
  name: string,
  needs: string,
): "now" | "upgrade" | "no" {
  if (variant === "vec4x16" && !fits)
    throw new Error(`${name}: the vec4x16 variant needs ${needs}`);
  if (variant === "vec4x16") return "now";
  return variant === "auto" && fits && M >= 16 ? "upgrade" : "no";
}

/** @throws Error when "vec4" is asked for and the sizes do not allow it. */
function pick(variant: MatmulVariant, vec4Ok: boolean, name: string): boolean {
  if (variant === "vec4" && !vec4Ok)
    throw new Error(
      `${name}: the vec4 variant needs the sizes noted in its shader to be multiples of 4`,
    );
  return variant === "vec4" || (variant === "auto" && vec4Ok);
}

/**
 * y [M, N] = x [M, K] · w [K, N] (+ bias [N]) (+ res [M, N]); vec4 needs K, N % 4 = 0.
 * Pass `null` for an absent bias/res; `dummy` stands in for its binding.
 * @throws Error when the variant asked for does not fit the sizes.
 */
export function matmulForward(
  ctx: GpuContext,
  b: {
    x: Binding;
    w: Binding;
    bias: Binding | null;
    res: Binding | null;
    y: Binding;
    dummy: Binding;
  },
  M: number,
  K: number,
  N: number,
  variant: MatmulVariant = "auto",
): MknCall {
  const flags = (b.bias ? 1 : 0) | (b.res ? 2 : 0);
  const bindings = { x: b.x, w: b.w, bias: b.bias ?? b.dummy, res: b.res ?? b.dummy, y: b.y };
  const u = { M, K, N, flags };
  if (tiledChosen(ctx, variant)) return matmulForwardTiled.call(ctx, bindings, u);
  const tile = wide(
    variant,
    K % 4 === 0 && N % 8 === 0,
    M,
    "matmul_forward",
    "K % 4 = 0 and N % 8 = 0",
  );
  if (tile === "now") return matmulForward16x8.call(ctx, bindings, u);
  if (tile === "upgrade")
    return matmulForwardVec4.call(ctx, bindings, u, { upgrade: matmulForward16x8 });
  if (pick(variant, K % 4 === 0 && N % 4 === 0, "matmul_forward"))
    return matmulForwardVec4.call(ctx, bindings, u);
  return matmulForwardScalar.call(ctx, bindings, u);
}

/**
 * dx [M, K] = dy [M, N] · wᵀ (accumulate: dx +=); vec4 needs N % 4 = 0.
 * @throws Error when the variant asked for does not fit the sizes.
 */
export function matmulBackwardDx(
  ctx: GpuContext,
  b: { dy: Binding; w: Binding; dx: Binding },
  M: number,
  K: number,
  N: number,
  accumulate = false,
  variant: MatmulVariant = "auto",
): MknCall {
  const u = { M, K, N, flags: accumulate ? 1 : 0 };
  if (tiledChosen(ctx, variant))
    return matmulBackwardDxTiled.call(ctx, { dy: b.dy, w: b.w, dx: b.dx }, u);
  const bindings = { dy: b.dy, w: b.w, dx: b.dx };
  const tile = wide(variant, N % 4 === 0, M, "matmul_backward_dx", "N % 4 = 0");
  if (tile === "now") return matmulBackwardDx16x8.call(ctx, bindings, u);
  if (tile === "upgrade")
    return matmulBackwardDxVec4.call(ctx, bindings, u, { upgrade: matmulBackwardDx16x8 });
  const spec = pick(variant, N % 4 === 0, "matmul_backward_dx")
    ? matmulBackwardDxVec4
    : matmulBackwardDxScalar;
  return spec.call(ctx, bindings, u);
}

/**
 * dw [K, N] += xᵀ · dy; dbias [N] += column sums of dy when dbias is given; vec4 needs K, N % 4 = 0.
 * @throws Error when the variant asked for does not fit the sizes.
 */
export function matmulBackwardDw(
  ctx: GpuContext,
  b: { x: Binding; dy: Binding; dw: Binding; dbias: Binding | null; dummy: Binding },
  M: number,
  K: number,
  N: number,
  variant: MatmulVariant = "auto",
): MknCall {
  const bindings = { x: b.x, dy: b.dy, dw: b.dw, dbias: b.dbias ?? b.dummy };
  const u = { M, K, N, flags: b.dbias ? 1 : 0 };
  if (tiledChosen(ctx, variant)) return matmulBackwardDwTiled.call(ctx, bindings, u);
  const tile = wide(
    variant,
    K % 4 === 0 && N % 8 === 0,
    M,
    "matmul_backward_dw",
    "K % 4 = 0 and N % 8 = 0",
  );
  if (tile === "now") return matmulBackwardDw16x8.call(ctx, bindings, u);
  if (tile === "upgrade")
    return matmulBackwardDwVec4.call(ctx, bindings, u, { upgrade: matmulBackwardDw16x8 });
  const spec = pick(variant, K % 4 === 0 && N % 4 === 0, "matmul_backward_dw")
    ? matmulBackwardDwVec4
    : matmulBackwardDwScalar;
  return spec.call(ctx, bindings, u);
}

/**
 * Decode matmul y [R, O] = epilogue(x [R, I] · W + b) for the generator, W
 * [I, O] and b [O] read from the flat parameter buffer `w` at float offsets
 * `wOff` and `bOff` (64-float aligned; bOff = null: no bias). I % 4 = 0.
 * `rows8`: the 8-row × 8-column tile (V8X8) when O % 8 = 0, for prefills of
 * many rows (the same values as the 4-row tile).
 */
export function decodeMatmul(
  ctx: GpuContext,
  b: { x: Binding; w: Binding; y: Binding },
  d: { R: number; I: number; O: number; wOff: number; bOff: number | null },
  epi: MatmulEpilogue,
  rows8 = false,
): SpecCall<ReturnType<typeof decodeMatmulSpec>["uniforms"]> {
  return decodeMatmulSpec(d.O, epi, rows8).call(
    ctx,
    { x: b.x, w: b.w, y: b.y },
    {
      R: d.R,
      I: d.I,
      O: d.O,
      wOff: d.wOff,
      bOff: d.bOff ?? 0,
      hasBias: d.bOff === null ? 0 : 1,
      nColTiles: Math.ceil(d.O / 4),
    },
  );
}
