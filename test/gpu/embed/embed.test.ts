/**
 * Checker of the embedding family (shaders/embed/) against its f64 CPU
 * reference (src/kernels/embed/reference.ts): patchify, the training
 * embedding forward and backward (with the patch matmul between them), and
 * the decode embedding (all prefill rows, then one decode row at the step
 * counter's position).
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import {
  decodeEmbed,
  embedBackward,
  embedForward,
  patchify,
  tokenOrder,
} from "../../../src/kernels/embed/launch";
import {
  embedBackward as embedBackwardRef,
  embedForward as embedForwardRef,
  patchify as patchifyRef,
} from "../../../src/kernels/embed/reference";
import { matmulBackwardDw, matmulForward } from "../../../src/kernels/matmul/launch";
import { seededNormal, seededUniform } from "../../../src/model/init";
import { expectClose } from "../../support/expect-close";
import { randArray } from "../../model/tiny";

function randn(n: number, seed: number, scale = 1): Float32Array {
  const r = seededNormal(seed);
  return Float32Array.from({ length: n }, () => r() * scale);
}

describe("embedding kernels", () => {
  const gpu = useGpu();
  const f32 = (label: string, a: ArrayLike<number>) =>
    gpu.ctx.createBufferFrom(label, Float32Array.from(a));
  const i32 = (label: string, a: ArrayLike<number>) =>
    gpu.ctx.createBufferFrom(label, Int32Array.from(a));

  it.each([
    { B: 2, H: 8, W: 8, Ch: 1, ps: 4, L: 6, C: 16, V: 12, posOff: 0 },
    { B: 3, H: 6, W: 9, Ch: 3, ps: 3, L: 5, C: 8, V: 7, posOff: 0 },
    // A window of a longer text: text column s at position P + 2 + s.
    { B: 3, H: 6, W: 9, Ch: 3, ps: 3, L: 5, C: 8, V: 7, posOff: 2 },
  ])(
    "patchify, embeddings forward and backward %o",
    async ({ B, H, W, Ch, ps, L, C, V, posOff }) => {
      const P = (H / ps) * (W / ps),
        pd = ps * ps * Ch,
        T = P + L;
      const images = randArray(B * H * W * Ch, 20, 0, 1);
      const u = seededUniform(21);
      const tokens = Int32Array.from({ length: B * L }, () => Math.floor(u() * V));
      const patchW = randArray(pd * C, 22),
        patchB = randArray(C, 23),
        wte = randArray(V * C, 24),
        wpe = randArray((T + 2) * C, 25);
      const patches = new Float64Array(B * P * pd);
      patchifyRef(
        patches,
        images,
        { imageHeight: H, imageWidth: W, imageChannels: Ch, patchSize: ps },
        B,
      );
      const out = new Float64Array(B * T * C);
      embedForwardRef(out, patches, tokens, patchW, patchB, wte, wpe, B, P, L, pd, C, posOff);
      const dout = randArray(B * T * C, 26);
      const dpw = new Float64Array(pd * C),
        dpb = new Float64Array(C),
        dwte = new Float64Array(V * C),
        dwpe = new Float64Array((T + 2) * C);
      embedBackwardRef(
        dpw,
        dpb,
        dwte,
        dwpe,
        Float64Array.from(dout),
        patches,
        tokens,
        B,
        P,
        L,
        pd,
        C,
        posOff,
      );

      const dummy = gpu.ctx.createBuffer("dummy", 16);
      const b = {
        images: f32("images", images),
        patches: gpu.ctx.createBuffer("patches", patches.length * 4),
        tokens: i32("tokens", tokens),
        order: i32("order", tokenOrder(tokens, V).order),
        start: i32("start", tokenOrder(tokens, V).start),
        patchW: f32("pw", patchW),
        patchB: f32("pb", patchB),
        wte: f32("wte", wte),
        wpe: f32("wpe", wpe),
        patchEmb: gpu.ctx.createBuffer("pe", B * P * C * 4),
        out: gpu.ctx.createBuffer("out", out.length * 4),
        dout: f32("dout", dout),
        dwte: gpu.ctx.createBuffer("dwte", V * C * 4),
        dwpe: gpu.ctx.createBuffer("dwpe", (T + 2) * C * 4),
        dpatchEmb: gpu.ctx.createBuffer("dpe", B * P * C * 4),
        dpw: gpu.ctx.createBuffer("dpw", pd * C * 4),
        dpb: gpu.ctx.createBuffer("dpb", C * 4),
      };
      gpu.ctx.run(patchify(gpu.ctx, b, { B, H, W, Ch, patchSize: ps }));
      gpu.ctx.run(
        matmulForward(
          gpu.ctx,
          { x: b.patches, w: b.patchW, bias: b.patchB, res: null, y: b.patchEmb, dummy },
          B * P,
          pd,
          C,
        ),
      );
      gpu.ctx.run(embedForward(gpu.ctx, b, B, P, L, C, posOff));
      gpu.ctx.run(embedBackward(gpu.ctx, b, B, P, L, C, V, posOff));
      gpu.ctx.run(
        matmulBackwardDw(
          gpu.ctx,
          { x: b.patches, dy: b.dpatchEmb, dw: b.dpw, dbias: b.dpb, dummy },
          B * P,
          pd,
          C,
        ),
      );
      expectClose("patches", await gpu.ctx.readF32(b.patches, 0, patches.length), patches, 0, 0);
      expectClose("embed out", await gpu.ctx.readF32(b.out, 0, out.length), out, 1e-5, 1e-4);
      expectClose("dwte", await gpu.ctx.readF32(b.dwte, 0, V * C), dwte, 1e-5, 1e-4);
      expectClose("dwpe", await gpu.ctx.readF32(b.dwpe, 0, (T + 2) * C), dwpe, 1e-5, 1e-4);
      expectClose("dpatch.w", await gpu.ctx.readF32(b.dpw, 0, pd * C), dpw, 1e-5, 1e-4);
      expectClose("dpatch.b", await gpu.ctx.readF32(b.dpb, 0, C), dpb, 1e-5, 1e-4);
    },
  );
  it("tokenOrder: a stable counting sort of the positions by id; an id out of range is named", () => {
    const { order, start } = tokenOrder(Int32Array.from([2, 0, 2, 1, 0, 2]), 4);
    expect(Array.from(start)).toEqual([0, 2, 3, 6, 6]);
    expect(Array.from(order)).toEqual([1, 4, 3, 0, 2, 5]);
    expect(() => tokenOrder(Int32Array.from([0, 4]), 4)).toThrow(
      /tokenOrder: token 4 at 1 is outside \[0, 4\)/,
    );
  });

  // Geometry of the decode check: 6×9 RGB image, 3×3 patches → P = 6.
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
    const imgB = gpu.ctx.createBufferFrom("img", img);
    const textB = gpu.ctx.createBufferFrom("text", text);
    const state = gpu.ctx.createBufferFrom("state", new Uint32Array([2, PAD, 0, 0]));
    const wb = gpu.ctx.createBufferFrom("w", e.flat);
    const xb = gpu.ctx.createBuffer("x", N * T * D * 4);
    const prm = (R: number, rowsPerSeq: number, posBase: number, useState: number) => ({
      R,
      D,
      rowsPerSeq,
      posBase,
      useState,
      P,
      textCap: L,
      gridW: 3,
      ps: 3,
      C: 3,
      imgW: 9,
      imgSize: 6 * 9 * 3,
      patchWOff: 0,
      patchBOff: 576,
      wteOff: 640,
      wpeOff: 896,
      seqMul: 1,
    });
    const b = { image: imgB, text: textB, state, w: wb, x: xb };
    gpu.ctx.run(decodeEmbed(gpu.ctx, b, prm(N * T, T, 0, 0)));
    const got = await gpu.ctx.readF32(xb, 0, N * T * D);
    const patches = new Float64Array(N * P * pd);
    patchifyRef(patches, img, dims, N);
    const ref = new Float64Array(N * T * D);
    embedForwardRef(ref, patches, text, e.patchW, e.patchB, e.wte, e.wpe, N, P, L, pd, D);
    expectClose("decode_embed prefill", got, ref);
    // Decode: rowsPerSeq 1, posBase P + 1, state[0] = 2 → position P + 3 (text index 3).
    gpu.ctx.run(decodeEmbed(gpu.ctx, b, prm(N, 1, P + 1, 1)));
    const dec = await gpu.ctx.readF32(xb, 0, N * D);
    expectClose(
      "decode_embed step",
      dec,
      [0, 1].flatMap((n) => Array.from(ref.subarray((n * T + P + 3) * D, (n * T + P + 4) * D))),
    );
  });
});
