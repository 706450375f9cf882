/**
 * Checker of the indexed row gather (shaders/rows/rows_gather.wgsl) against
 * the CPU reference (src/kernels/rows/reference.ts) on awkward sizes, with
 * negative entries (rows written 0), repeated and out-of-order rows, and a
 * row count changed through set(); and the CPU map of the loss rows
 * (lossRows) on a worked example.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import { lossRows, rowsGather } from "../../../src/kernels/rows/launch";
import { gatherRowsIndexed } from "../../../src/kernels/rows/reference";
import { seededNormal, seededUniform } from "../../../src/model/init";
import { expectClose } from "../../support/expect-close";

function randn(n: number, seed: number): Float32Array {
  const r = seededNormal(seed);
  return Float32Array.from({ length: n }, () => r());
}

describe("rows_gather", () => {
  const gpu = useGpu();

  for (const [rows, R, W] of [
    [7, 5, 4],
    [37, 53, 12],
    [129, 67, 196],
    [2, 1, 64],
  ] as const) {
    it(`x [${rows}, ${W}] → y [${R}, ${W}] with −1 entries and repeated rows`, async () => {
      const u = seededUniform(rows * 7 + R);
      const x = randn(rows * W, R + W);
      const idx = Int32Array.from({ length: R }, () => (u() < 0.25 ? -1 : Math.floor(u() * rows)));
      idx[0] = rows - 1; // the last row of x
      const ib = gpu.ctx.createBufferFrom("idx", idx);
      const xb = gpu.ctx.createBufferFrom("x", x);
      // y starts non-zero: the −1 rows must be written 0, not left.
      const yb = gpu.ctx.createBufferFrom("y", new Float32Array(R * W).fill(7));
      gpu.ctx.run(rowsGather(gpu.ctx, { idx: ib, x: xb, y: yb }, R, W));
      const got = await gpu.ctx.readF32(yb, 0, R * W);
      expectClose("rows_gather", got, gatherRowsIndexed(x, W, idx), 0, 0);
      expect(Array.from(got.subarray(0, W))).toEqual(Array.from(x.subarray((rows - 1) * W)));
    });
  }

  it("a row count set() after preparation gathers that many rows and leaves the rest", async () => {
    const W = 8;
    const x = randn(10 * W, 3);
    const idx = Int32Array.from([9, -1, 4, 0, 2, 2]);
    const ib = gpu.ctx.createBufferFrom("idx", idx);
    const xb = gpu.ctx.createBufferFrom("x", x);
    const yb = gpu.ctx.createBufferFrom("y", new Float32Array(6 * W).fill(5));
    const call = rowsGather(gpu.ctx, { idx: ib, x: xb, y: yb }, 6, W);
    call.set({ R: 3 });
    gpu.ctx.run(call);
    const got = await gpu.ctx.readF32(yb, 0, 6 * W);
    const want = gatherRowsIndexed(x, W, idx.subarray(0, 3));
    expectClose("first 3 rows", got.subarray(0, 3 * W), want, 0, 0);
    expect(Array.from(got.subarray(3 * W)).every((v) => v === 5)).toBe(true);
  });

  it("names a width that is not a multiple of 4", () => {
    const b = gpu.ctx.createBuffer("b", 64);
    expect(() => rowsGather(gpu.ctx, { idx: b, x: b, y: b }, 1, 6)).toThrow(/rows_gather: W = 6/);
  });
});

describe("lossRows", () => {
  it("keeps row b·T + P + s − 1 for each masked token s ≥ 1, pads with −1 to the quantum", () => {
    // B 2, L 4, P 3 (T 7): row 0 masks s = 0 (no prediction), 2, 3; row 1 masks s = 1.
    const mask = Float32Array.from([1, 0, 1, 1, 0, 1, 0, 0]);
    const r = lossRows(mask, 2, 4, 3, 4);
    expect(r.kept).toBe(3);
    expect(r.rows).toBe(4);
    expect(Array.from(r.idx)).toEqual([4, 5, 10, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]);
    const inv = new Array(14).fill(-1);
    inv[4] = 0;
    inv[5] = 1;
    inv[10] = 2;
    expect(Array.from(r.inv)).toEqual(inv);
    // Never past B·T rows, never 0 rows.
    expect(lossRows(new Float32Array(8).fill(1), 2, 4, 3, 64).rows).toBe(14);
    expect(lossRows(new Float32Array(8), 2, 4, 3, 4)).toMatchObject({ rows: 4, kept: 0 });
  });

  it("names a mask of the wrong size and bad dimensions", () => {
    expect(() => lossRows(new Float32Array(7), 2, 4, 3, 4)).toThrow(/mask has 7 values/);
    expect(() => lossRows(new Float32Array(8), 2, 4, 3, 0)).toThrow(/lossRows: B 2/);
  });
});
