/**
 * Checker of the LayerNorm family (shaders/layernorm/) against its f64 CPU
 * reference (src/kernels/layernorm/reference.ts): forward (out, mean, rstd),
 * input gradient (written and accumulated), parameter gradients, and the
 * decode LayerNorm (plain rows and the gathered last row of each sequence),
 * on row counts that are not multiples of the 64-wide workgroup.
 */
import { describe, it } from "vitest";
import { useGpu } from "../../support/gpu";
import {
  decodeLayernorm,
  layernormBackwardDx,
  layernormBackwardParams,
  layernormForward,
} from "../../../src/kernels/layernorm/launch";
import {
  layernormBackward as layernormBackwardRef,
  layernormForward as layernormForwardRef,
} from "../../../src/kernels/layernorm/reference";
import { seededNormal } from "../../../src/model/init";
import { expectClose } from "../../support/expect-close";
import { randArray } from "../../model/tiny";

function randn(n: number, seed: number, scale = 1): Float32Array {
  const r = seededNormal(seed);
  return Float32Array.from({ length: n }, () => r() * scale);
}

describe("layernorm kernels", () => {
  const gpu = useGpu();
  const f32 = (label: string, a: ArrayLike<number>) =>
    gpu.ctx.createBufferFrom(label, Float32Array.from(a));

  it.each([
    [1, 4],
    [7, 16],
    [67, 12],
    [130, 64],
  ])("layernorm forward and backward at N=%i C=%i", async (N, C) => {
    const inp = randArray(N * C, 1, -2, 3);
    const g = randArray(C, 2, 0.5, 1.5),
      b = randArray(C, 3);
    const dout = randArray(N * C, 4);
    const out = new Float64Array(N * C),
      mean = new Float64Array(N),
      rstd = new Float64Array(N);
    layernormForwardRef(out, mean, rstd, inp, g, b, N, C);
    const dinp0 = randArray(N * C, 5);
    const dinp = Float64Array.from(dinp0),
      dg = Float64Array.from(randArray(C, 6)),
      db = Float64Array.from(randArray(C, 7));
    const dg0 = Float32Array.from(dg),
      db0 = Float32Array.from(db);
    layernormBackwardRef(dinp, dg, db, dout, inp, g, mean, rstd, N, C);

    const bufs = {
      inp: f32("inp", inp),
      g: f32("g", g),
      b: f32("b", b),
      out: gpu.ctx.createBuffer("out", N * C * 4),
      mean: gpu.ctx.createBuffer("mean", N * 4),
      rstd: gpu.ctx.createBuffer("rstd", N * 4),
    };
    gpu.ctx.run(layernormForward(gpu.ctx, bufs, N, C));
    expectClose("ln out", await gpu.ctx.readF32(bufs.out, 0, N * C), out, 1e-5, 1e-4);
    expectClose("ln mean", await gpu.ctx.readF32(bufs.mean, 0, N), mean, 1e-6, 1e-4);
    expectClose("ln rstd", await gpu.ctx.readF32(bufs.rstd, 0, N), rstd, 1e-6, 1e-4);
    const bd = {
      dout: f32("dout", dout),
      inp: bufs.inp,
      g: bufs.g,
      mean: bufs.mean,
      rstd: bufs.rstd,
      dinp: f32("dinp", dinp0),
    };
    gpu.ctx.run(layernormBackwardDx(gpu.ctx, bd, N, C, true));
    const pg = {
      dout: bd.dout,
      inp: bufs.inp,
      mean: bufs.mean,
      rstd: bufs.rstd,
      dg: f32("dg", dg0),
      db: f32("db", db0),
    };
    gpu.ctx.run(layernormBackwardParams(gpu.ctx, pg, N, C));
    expectClose(
      "ln dinp (accumulated)",
      await gpu.ctx.readF32(bd.dinp, 0, N * C),
      dinp,
      1e-5,
      1e-3,
    );
    expectClose("ln dg", await gpu.ctx.readF32(pg.dg, 0, C), dg, 1e-4, 1e-4);
    expectClose("ln db", await gpu.ctx.readF32(pg.db, 0, C), db, 1e-4, 1e-4);
    // write mode
    gpu.ctx.run(layernormBackwardDx(gpu.ctx, bd, N, C, false));
    expectClose(
      "ln dinp (written)",
      await gpu.ctx.readF32(bd.dinp, 0, N * C),
      dinp.map((v, i) => v - dinp0[i]),
      1e-5,
      1e-3,
    );
  });

  it("decode_layernorm: plain rows and the gathered last row of each sequence", async () => {
    const D = 20,
      rows = 9;
    const x = randn(rows * D, 5, 3);
    const g = randn(D, 6, 0.3).map((v) => 1 + v);
    const b = randn(D, 7, 0.3);
    const flat = new Float32Array(128);
    flat.set(g, 0);
    flat.set(b, 64);
    const xb = gpu.ctx.createBufferFrom("x", x);
    const wb = gpu.ctx.createBufferFrom("w", flat);
    const yb = gpu.ctx.createBuffer("y", rows * D * 4);
    const b2 = { x: xb, w: wb, y: yb };
    gpu.ctx.run(
      decodeLayernorm(gpu.ctx, b2, { R: rows, D, inStride: 1, inOffset: 0, gOff: 0, bOff: 64 }),
    );
    const plain = await gpu.ctx.readF32(yb, 0, rows * D);
    const ref = new Float64Array(rows * D);
    layernormForwardRef(ref, new Float64Array(rows), new Float64Array(rows), x, g, b, rows, D);
    expectClose("decode_layernorm", plain, ref);
    // 3 sequences of 3 rows: take rows 2, 5, 8.
    gpu.ctx.run(
      decodeLayernorm(gpu.ctx, b2, { R: 3, D, inStride: 3, inOffset: 2, gOff: 0, bOff: 64 }),
    );
    const last = await gpu.ctx.readF32(yb, 0, 3 * D);
    expectClose(
      "decode_layernorm (gathered)",
      last,
      [2, 5, 8].flatMap((r) => Array.from(ref.subarray(r * D, (r + 1) * D))),
    );
  });
});
