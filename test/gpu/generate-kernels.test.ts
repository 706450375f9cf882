/**
 * Checker tests of the decode kernels, each against the f64 CPU reference
 * layer of src/model/reference/layers.ts on random inputs whose sizes are not
 * multiples of the 4×4 tile or the 64-wide workgroup:
 *   decode_embed (prefill rows and a decode row at the step counter's position),
 *   decode_gather (each sequence's last row),
 * Tolerance |gpu − ref| ≤ atol + rtol·|ref| with rtol = 1e-4.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GpuContext, packParams, type Binding, type Kernel } from "../../src/gpu/context";
import { requestNodeDevice } from "../../src/gpu/node-gpu";
import { embedKernel, gatherKernel, grid } from "../../src/model/generate/kernels";
import { embedForward, patchify } from "../../src/model/reference";
import { seededNormal } from "../../src/model/init";

function randn(n: number, seed: number, scale = 1): Float32Array {
  const r = seededNormal(seed);
  return Float32Array.from({ length: n }, () => r() * scale);
}

/** Asserts |a − b| ≤ atol + rtol·|b| elementwise; prints the first mismatches side by side. */
function expectClose(
  gpu: ArrayLike<number>,
  ref: ArrayLike<number>,
  atol = 1e-5,
  rtol = 1e-4,
): void {
  expect(gpu.length).toBe(ref.length);
  const bad: string[] = [];
  for (let i = 0; i < ref.length; i++) {
    if (!(Math.abs(gpu[i] - ref[i]) <= atol + rtol * Math.abs(ref[i])))
      bad.push(`[${i}] gpu ${gpu[i]} ref ${ref[i]}`);
  }
  expect(bad.slice(0, 5)).toEqual([]);
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

  // Geometry shared by the embedding and attention checks: 6×9 RGB image, 3×3 patches → P = 6.
  const dims = { imageHeight: 6, imageWidth: 9, imageChannels: 3, patchSize: 3 };
  const P = 6,
    pd = 27,
    D = 20,
    V = 11,
    N = 2,
    L = 5,
    T = P + L,
    PAD = 0;
  const text = Int32Array.from([0, 0, 3, 4, 5, 1, 0, 2, 9, 10]); // [N, L]; PAD inside and in front

  /** Flat parameters for the embedding: patch.w at 0, patch.b at 576, wte at 640, wpe at 896. */
  function embedParams(): {
    flat: Float32Array;
    patchW: Float32Array;
    patchB: Float32Array;
    wte: Float32Array;
    wpe: Float32Array;
  } {
    const patchW = randn(pd * D, 8, 0.3),
      patchB = randn(D, 9),
      wte = randn(V * D, 10),
      wpe = randn(16 * D, 11);
    const flat = new Float32Array(896 + 16 * D);
    flat.set(patchW, 0);
    flat.set(patchB, 576);
    flat.set(wte, 640);
    flat.set(wpe, 896);
    return { flat, patchW, patchB, wte, wpe };
  }

  it("decode_embed: all prefill rows, then one decode row at position posBase + state[0]", async () => {
    const img = randn(N * 6 * 9 * 3, 12);
    const e = embedParams();
    const imgB = ctx.createBufferFrom("img", img);
    const textB = ctx.createBufferFrom("text", text);
    const state = ctx.createBufferFrom("state", new Uint32Array([2, PAD, 0, 0]));
    const wb = ctx.createBufferFrom("w", e.flat);
    const xb = ctx.createBuffer("x", N * T * D * 4);
    const prm = (R: number, rowsPerSeq: number, posBase: number, useState: number) =>
      packParams([
        R,
        D,
        rowsPerSeq,
        posBase,
        useState,
        P,
        L,
        3,
        3,
        3,
        9,
        6 * 9 * 3,
        0,
        576,
        640,
        896,
        1,
      ]);
    const got = await run(
      embedKernel(ctx),
      [imgB, textB, state, wb, xb],
      prm(N * T, T, 0, 0),
      N * T * (D / 4),
      xb,
      N * T * D,
    );
    const patches = new Float64Array(N * P * pd);
    patchify(patches, img, dims, N);
    const ref = new Float64Array(N * T * D);
    embedForward(ref, patches, text, e.patchW, e.patchB, e.wte, e.wpe, N, P, L, pd, D);
    expectClose(got, ref);
    // Decode: rowsPerSeq 1, posBase P + 1, state[0] = 2 → position P + 3 (text index 3).
    const dec = await run(
      embedKernel(ctx),
      [imgB, textB, state, wb, xb],
      prm(N, 1, P + 1, 1),
      N * (D / 4),
      xb,
      N * D,
    );
    expectClose(
      dec,
      [0, 1].flatMap((n) => Array.from(ref.subarray((n * T + P + 3) * D, (n * T + P + 4) * D))),
    );
  });
});
