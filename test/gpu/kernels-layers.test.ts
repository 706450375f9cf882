// LayerNorm, GELU, attention (causal + PAD key mask), patchify and embeddings
// on the GPU vs the f64 CPU references, on awkward sizes.
import { afterAll, beforeAll, describe, it } from "vitest";
import { GpuContext } from "../../src/gpu/context";
import { requestNodeDevice } from "../../src/gpu/node-gpu";
import * as K from "../../src/model/kernels";
import * as R from "../../src/model/reference";
import { seededUniform } from "../../src/model/init";
import { expectClose, randArray } from "../model/tiny";

describe("layer kernels", () => {
  let ctx: GpuContext;
  beforeAll(async () => {
    ctx = new GpuContext(await requestNodeDevice());
  });
  afterAll(() => ctx?.destroy());
  const f32 = (label: string, a: ArrayLike<number>) =>
    ctx.createBufferFrom(label, Float32Array.from(a));
  const i32 = (label: string, a: ArrayLike<number>) =>
    ctx.createBufferFrom(label, Int32Array.from(a));

  it.each([
    { B: 2, H: 8, W: 8, Ch: 1, ps: 4, L: 6, C: 16, V: 12 },
    { B: 3, H: 6, W: 9, Ch: 3, ps: 3, L: 5, C: 8, V: 7 },
  ])("patchify, embeddings forward and backward %o", async ({ B, H, W, Ch, ps, L, C, V }) => {
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
    R.patchify(
      patches,
      images,
      { imageHeight: H, imageWidth: W, imageChannels: Ch, patchSize: ps },
      B,
    );
    const out = new Float64Array(B * T * C);
    R.embedForward(out, patches, tokens, patchW, patchB, wte, wpe, B, P, L, pd, C);
    const dout = randArray(B * T * C, 26);
    const dpw = new Float64Array(pd * C),
      dpb = new Float64Array(C),
      dwte = new Float64Array(V * C),
      dwpe = new Float64Array((T + 2) * C);
    R.embedBackward(dpw, dpb, dwte, dwpe, Float64Array.from(dout), patches, tokens, B, P, L, pd, C);

    const dummy = ctx.createBuffer("dummy", 16);
    const b = {
      images: f32("images", images),
      patches: ctx.createBuffer("patches", patches.length * 4),
      tokens: i32("tokens", tokens),
      patchW: f32("pw", patchW),
      patchB: f32("pb", patchB),
      wte: f32("wte", wte),
      wpe: f32("wpe", wpe),
      patchEmb: ctx.createBuffer("pe", B * P * C * 4),
      out: ctx.createBuffer("out", out.length * 4),
      dout: f32("dout", dout),
      dwte: ctx.createBuffer("dwte", V * C * 4),
      dwpe: ctx.createBuffer("dwpe", (T + 2) * C * 4),
      dpatchEmb: ctx.createBuffer("dpe", B * P * C * 4),
      dpw: ctx.createBuffer("dpw", pd * C * 4),
      dpb: ctx.createBuffer("dpb", C * 4),
    };
    ctx.run(K.patchify(ctx, b, { B, H, W, Ch, patchSize: ps }));
    ctx.run(
      K.matmulForward(
        ctx,
        { x: b.patches, w: b.patchW, bias: b.patchB, res: null, y: b.patchEmb, dummy },
        B * P,
        pd,
        C,
      ),
    );
    ctx.run(K.embedForward(ctx, b, B, P, L, C));
    ctx.run(K.embedBackward(ctx, b, B, P, L, C, V));
    ctx.run(
      K.matmulBackwardDw(
        ctx,
        { x: b.patches, dy: b.dpatchEmb, dw: b.dpw, dbias: b.dpb, dummy },
        B * P,
        pd,
        C,
      ),
    );
    expectClose("patches", await ctx.readF32(b.patches, 0, patches.length), patches, 0, 0);
    expectClose("embed out", await ctx.readF32(b.out, 0, out.length), out, 1e-5, 1e-4);
    expectClose("dwte", await ctx.readF32(b.dwte, 0, V * C), dwte, 1e-5, 1e-4);
    expectClose("dwpe", await ctx.readF32(b.dwpe, 0, (T + 2) * C), dwpe, 1e-5, 1e-4);
    expectClose("dpatch.w", await ctx.readF32(b.dpw, 0, pd * C), dpw, 1e-5, 1e-4);
    expectClose("dpatch.b", await ctx.readF32(b.dpb, 0, C), dpb, 1e-5, 1e-4);
  });
});
