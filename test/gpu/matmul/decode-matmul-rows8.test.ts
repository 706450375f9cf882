/**
 * Checker of the decode matmul's 8-row tile (shaders/matmul/decode_matmul.wgsl
 * V8X8, the generator's prefill segments): y = epilogue(x · W + b) against
 * the f64 CPU reference, for row counts that are not multiples of 8 and output
 * widths of one and of three 8-column tiles, every epilogue, with and without
 * bias; and bit for bit the 4-row VEC tile's values (the prefill and the
 * decode steps must agree to the last bit for a prefilled forced token to
 * give the tokens of forcing it one step at a time).
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import { decodeMatmul, type MatmulEpilogue } from "../../../src/kernels/matmul/launch";
import { geluForward } from "../../../src/kernels/gelu/reference";
import { matmulForward as matmulForwardRef } from "../../../src/kernels/matmul/reference";
import { seededNormal } from "../../../src/model/init";
import { expectClose } from "../../support/expect-close";

function randn(n: number, seed: number, scale = 1): Float32Array {
  const r = seededNormal(seed);
  return Float32Array.from({ length: n }, () => r() * scale);
}

describe("decode_matmul V8X8 (8 rows × 8 columns per invocation)", () => {
  const gpu = useGpu();

  for (const [R, O] of [
    [13, 8],
    [21, 24],
  ] as const)
    for (const epi of ["store", "gelu", "add"] as MatmulEpilogue[])
      for (const bias of [true, false])
        it(`R=${R} O=${O} epilogue=${epi} bias=${bias}`, async () => {
          const I = 12;
          const x = randn(R * I, 1);
          const W = randn(I * O, 2, 0.5);
          const b = randn(O, 3, 0.5);
          const y0 = randn(R * O, 4);
          // Parameter-buffer layout: W at float 64, b at 512 (64-float aligned like paramLayout).
          const flat = new Float32Array(1024);
          flat.set(W, 64);
          flat.set(b, 512);
          const xb = gpu.ctx.createBufferFrom("x", x);
          const wb = gpu.ctx.createBufferFrom("w", flat);
          const big = gpu.ctx.createBufferFrom("y8", y0);
          const small = gpu.ctx.createBufferFrom("y4", y0);
          const dims = { R, I, O, wOff: 64, bOff: bias ? 512 : null };
          const call = decodeMatmul(gpu.ctx, { x: xb, w: wb, y: big }, dims, epi, true);
          expect(call.kernel.name).toBe(`decode_matmul.V8X8.${epi}`);
          gpu.ctx.run(call);
          gpu.ctx.run(decodeMatmul(gpu.ctx, { x: xb, w: wb, y: small }, dims, epi));
          const got = await gpu.ctx.readF32(big, 0, R * O);
          const ref = new Float64Array(R * O);
          matmulForwardRef(ref, x, W, bias ? b : null, R, I, O);
          if (epi === "gelu") geluForward(ref, Float64Array.from(ref), R * O);
          if (epi === "add") for (let i = 0; i < R * O; i++) ref[i] += y0[i];
          expectClose("decode_matmul V8X8 y", got, ref);
          expect(Array.from(got)).toEqual(Array.from(await gpu.ctx.readF32(small, 0, R * O)));
        });

  it("falls back to the 4-row tile when O is not a multiple of 8", () => {
    const [x, w, y] = ["x", "w", "y"].map((l) => gpu.ctx.createBuffer(l, 4096));
    const dims = { R: 8, I: 4, O: 12, wOff: 0, bOff: null };
    const call = decodeMatmul(gpu.ctx, { x, w, y }, dims, "store", true);
    expect(call.kernel.name).toBe("decode_matmul.VEC.store");
  });
});
