/**
 * Checker of the generator's plumbing kernels (shaders/decode/) against the
 * CPU reference (src/kernels/decode/reference.ts): decode_gather (the last
 * row of each sequence, and a prompt's row replicated to its group) and
 * decode_advance (the step counter).
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import { decodeAdvance, decodeGather } from "../../../src/kernels/decode/launch";
import { gatherRows } from "../../../src/kernels/decode/reference";
import { seededNormal } from "../../../src/model/init";
import { expectClose } from "../../support/expect-close";

function randn(n: number, seed: number, scale = 1): Float32Array {
  const r = seededNormal(seed);
  return Float32Array.from({ length: n }, () => r() * scale);
}

describe("decode plumbing kernels", () => {
  const gpu = useGpu();

  it("decode_gather: the last row of each of 3 sequences of 4 rows, then rows replicated (div 2)", async () => {
    const W = 12;
    const x = randn(12 * W, 21);
    const xb = gpu.ctx.createBufferFrom("x", x);
    const yb = gpu.ctx.createBuffer("y", 3 * W * 4);
    const last = { R: 3, stride: 4, offset: 3, div: 1 };
    gpu.ctx.run(decodeGather(gpu.ctx, { x: xb, y: yb }, { ...last, W }));
    const got = await gpu.ctx.readF32(yb, 0, 3 * W);
    expectClose("decode_gather", got, gatherRows(x, W, last), 0, 0);
    expect(Array.from(got)).toEqual(
      [3, 7, 11].flatMap((r) => Array.from(x.subarray(r * W, (r + 1) * W))),
    );
    // div = 2: rows 0,1 ← row 3; rows 2,3 ← row 7 (a prompt's row replicated to its group).
    const yb4 = gpu.ctx.createBuffer("y4", 4 * W * 4);
    const rep = { R: 4, stride: 4, offset: 3, div: 2 };
    gpu.ctx.run(decodeGather(gpu.ctx, { x: xb, y: yb4 }, { ...rep, W }));
    expectClose(
      "decode_gather (div 2)",
      await gpu.ctx.readF32(yb4, 0, 4 * W),
      gatherRows(x, W, rep),
      0,
      0,
    );
  });

  it("decode_advance adds inc to the step counter and leaves the rest of state", async () => {
    const state = gpu.ctx.createBufferFrom("state", new Uint32Array([5, 7, 0, 0]));
    const call = decodeAdvance(gpu.ctx, { state }, 1);
    gpu.ctx.run(call);
    gpu.ctx.run(call);
    gpu.ctx.flush(); // a uniform write lands before the next submit
    call.set({ inc: 3 });
    gpu.ctx.run(call);
    expect(Array.from(new Uint32Array(await gpu.ctx.readBytes(state, 0, 16)))).toEqual([
      10, 7, 0, 0,
    ]);
  });
});
