/**
 * Checker tests of the decode kernels, each against the f64 CPU reference
 * layer of src/model/reference/layers.ts on random inputs whose sizes are not
 * multiples of the 4×4 tile or the 64-wide workgroup:
 *   decode_gather (each sequence's last row),
 * Tolerance |gpu − ref| ≤ atol + rtol·|ref| with rtol = 1e-4.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GpuContext, packParams, type Binding, type Kernel } from "../../src/gpu/context";
import { requestNodeDevice } from "../../src/gpu/node-gpu";
import { gatherKernel, grid } from "../../src/model/generate/kernels";
import { seededNormal } from "../../src/model/init";

function randn(n: number, seed: number, scale = 1): Float32Array {
  const r = seededNormal(seed);
  return Float32Array.from({ length: n }, () => r() * scale);
}

describe("decode kernels", () => {
  let ctx: GpuContext;
  beforeAll(async () => {
    ctx = new GpuContext(await requestNodeDevice());
  });
  afterAll(() => ctx?.destroy());

  async function run(
    kernel: Kernel,
    bindings: Binding[],
    params: ArrayBuffer | ArrayBufferView,
    threads: number,
    out: GPUBuffer,
    n: number,
  ): Promise<Float32Array> {
    ctx.run(ctx.call(kernel, bindings, params, grid(threads)));
    return ctx.readF32(out, 0, n);
  }

  it("decode_gather: the last row of each of 3 sequences of 4 rows", async () => {
    const W = 12;
    const x = randn(12 * W, 21);
    const xb = ctx.createBufferFrom("x", x);
    const yb = ctx.createBuffer("y", 3 * W * 4);
    const got = await run(
      gatherKernel(ctx),
      [xb, yb],
      packParams([3, W, 4, 3, 1]),
      3 * (W / 4),
      yb,
      3 * W,
    );
    expect(Array.from(got)).toEqual(
      [3, 7, 11].flatMap((r) => Array.from(x.subarray(r * W, (r + 1) * W))),
    );
    // div = 2: rows 0,1 ← row 3; rows 2,3 ← row 7 (a prompt's row replicated to its group).
    const yb4 = ctx.createBuffer("y4", 4 * W * 4);
    const rep = await run(
      gatherKernel(ctx),
      [xb, yb4],
      packParams([4, W, 4, 3, 2]),
      4 * (W / 4),
      yb4,
      4 * W,
    );
    expect(Array.from(rep)).toEqual(
      [3, 3, 7, 7].flatMap((r) => Array.from(x.subarray(r * W, (r + 1) * W))),
    );
  });
});
