/**
 * Checker of the generator's plumbing kernel (shaders/decode/):
 * decode_advance (the step counter).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GpuContext } from "../../../src/gpu/context";
import { requestNodeDevice } from "../../../src/gpu/node-gpu";
import { decodeAdvance } from "../../../src/kernels/decode/launch";

describe("decode plumbing kernels", () => {
  let ctx: GpuContext;
  beforeAll(async () => {
    ctx = new GpuContext(await requestNodeDevice());
  });
  afterAll(() => ctx?.destroy());

  it("decode_advance adds inc to the step counter and leaves the rest of state", async () => {
    const state = ctx.createBufferFrom("state", new Uint32Array([5, 7, 0, 0]));
    const call = decodeAdvance(ctx, { state }, 1);
    ctx.run(call);
    ctx.run(call);
    ctx.flush(); // a uniform write lands before the next submit
    call.set({ inc: 3 });
    ctx.run(call);
    expect(Array.from(new Uint32Array(await ctx.readBytes(state, 0, 16)))).toEqual([10, 7, 0, 0]);
  });
});
