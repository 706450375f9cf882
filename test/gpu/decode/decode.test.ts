/**
 * Checker of the generator's plumbing kernel (shaders/decode/):
 * decode_advance (the step counter).
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import { decodeAdvance } from "../../../src/kernels/decode/launch";

describe("decode plumbing kernels", () => {
  const gpu = useGpu();

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
