/**
 * Checker of the GELU family (shaders/gelu/) against its f64 CPU reference
 * (src/kernels/gelu/reference.ts): forward and backward on awkward sizes and
 * large |x|, and a dispatch past 65535 workgroups (spilling into y).
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import { geluBackward, geluForward } from "../../../src/kernels/gelu/launch";
import {
  geluBackward as geluBackwardRef,
  geluForward as geluForwardRef,
} from "../../../src/kernels/gelu/reference";
import { geluForwardSpec } from "../../../src/kernels/gelu/spec";
import { expectClose } from "../../support/expect-close";
import { randArray } from "../../model/tiny";

describe("gelu kernels", () => {
  const gpu = useGpu();
  const f32 = (label: string, a: ArrayLike<number>) =>
    gpu.ctx.createBufferFrom(label, Float32Array.from(a));

  it.each([1, 63, 1000])("gelu forward and backward at N=%i (incl. large |x|)", async (N) => {
    const inp = randArray(N, 8, -6, 6);
    if (N > 2) {
      inp[0] = 40;
      inp[1] = -40;
    }
    const dout = randArray(N, 9);
    const out = new Float64Array(N),
      dinp = new Float64Array(N);
    geluForwardRef(out, inp, N);
    geluBackwardRef(dinp, inp, dout, N);
    const b = {
      inp: f32("inp", inp),
      out: gpu.ctx.createBuffer("out", N * 4),
      dout: f32("dout", dout),
      dinp: gpu.ctx.createBuffer("dinp", N * 4),
    };
    gpu.ctx.run(geluForward(gpu.ctx, b, N));
    gpu.ctx.run(geluBackward(gpu.ctx, b, N));
    expectClose("gelu", await gpu.ctx.readF32(b.out, 0, N), out, 1e-6, 1e-5);
    expectClose("gelu'", await gpu.ctx.readF32(b.dinp, 0, N), dinp, 1e-6, 1e-4);
  });

  it.each([4, 1000, 65536])(
    "four floats per invocation (vec4) write the bits of one per invocation at N=%i",
    async (N) => {
      const inp = randArray(N, 11, -8, 8);
      inp[0] = 40;
      inp[1] = -40;
      inp[2] = 0;
      inp[3] = -1e-30;
      const dout = randArray(N, 12);
      const ref = new Float64Array(N);
      geluForwardRef(ref, inp, N);
      const outs: Uint32Array[] = [];
      for (const variant of ["scalar", "vec4"] as const) {
        // 8 floats past N, NaN: a kernel that wrote past N would change them.
        const pad = () => f32("out", new Float32Array(N + 8).fill(Number.NaN));
        const b = { inp: f32("inp", inp), out: pad(), dout: f32("dout", dout), dinp: pad() };
        gpu.ctx.run(geluForward(gpu.ctx, b, N, variant));
        gpu.ctx.run(geluBackward(gpu.ctx, b, N, variant));
        for (const buf of [b.out, b.dinp])
          expect(Array.from(await gpu.ctx.readF32(buf, N, 8)).every(Number.isNaN)).toBe(true);
        const out = await gpu.ctx.readF32(b.out, 0, N);
        expectClose(`gelu ${variant}`, out, ref, 1e-6, 1e-5);
        outs.push(
          new Uint32Array(out.buffer),
          new Uint32Array((await gpu.ctx.readF32(b.dinp, 0, N)).buffer),
        );
      }
      expect(outs[2]).toEqual(outs[0]);
      expect(outs[3]).toEqual(outs[1]);
    },
  );

  it("refuses the vec4 variant for N not a multiple of 4", () => {
    const b = { inp: f32("inp", [1, 2, 3]), out: gpu.ctx.createBuffer("out", 12) };
    expect(() => geluForward(gpu.ctx, b, 3, "vec4")).toThrow(
      /vec4 variant needs N % 4 = 0, got N = 3/,
    );
  });

  it("elementwise kernels spill past 65535 workgroups into the y dimension", async () => {
    const N = 65535 * 64 + 1000;
    const [x, y] = geluForwardSpec.workgroups(
      { N },
      gpu.ctx.adapter.limits.maxComputeWorkgroupsPerDimension,
    );
    expect(y).toBeGreaterThan(1);
    expect(x * y * 64).toBeGreaterThanOrEqual(N);
    const inp = randArray(N, 30, -3, 3);
    const out = new Float64Array(N);
    geluForwardRef(out, inp, N);
    const b = { inp: f32("inp", inp), out: gpu.ctx.createBuffer("out", N * 4) };
    gpu.ctx.run(geluForward(gpu.ctx, b, N));
    const got = await gpu.ctx.readF32(b.out, 0, N);
    // check the tail (served by the spilled workgroups) and a stride through the rest
    expectClose("gelu tail", got.subarray(N - 5000), out.subarray(N - 5000), 1e-6, 1e-5);
    expectClose(
      "gelu strided",
      got.filter((_, i) => i % 997 === 0),
      out.filter((_, i) => i % 997 === 0),
      1e-6,
      1e-5,
    );
  });
});
