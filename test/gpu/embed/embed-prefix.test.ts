/**
 * Checker of the shared-prefix embedding (shaders/embed/embed_prefix.wgsl,
 * forward and backward on the prefix layout of src/layout/prefix-layout.ts)
 * against its f64 CPU reference (embedPrefixForward / embedPrefixBackward in
 * src/kernels/embed/reference.ts) and the plain kernels: groups of 2, G = 1,
 * S = P + 1 and S = 0, a window offset, gradients accumulated into nonzero
 * buffers; and prefixTokenOrder lists each id's text rows.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import {
  embedForward,
  embedPrefixBackward,
  embedPrefixForward,
  prefixTokenOrder,
} from "../../../src/kernels/embed/launch";
import {
  embedPrefixBackward as embedPrefixBackwardRef,
  embedPrefixForward as embedPrefixForwardRef,
} from "../../../src/kernels/embed/reference";
import { seededUniform } from "../../../src/model/init";
import { prefixLayout, rowSeq } from "../../../src/layout/prefix-layout";
import { expectClose } from "../../support/expect-close";
import { randArray } from "../../model/tiny";

describe("shared-prefix embedding", () => {
  const gpu = useGpu();
  const f32 = (label: string, a: ArrayLike<number>) =>
    gpu.ctx.createBufferFrom(label, Float32Array.from(a));
  const i32 = (label: string, a: ArrayLike<number>) =>
    gpu.ctx.createBufferFrom(label, Int32Array.from(a));

  it.each([
    { B: 4, G: 2, P: 3, L: 6, S: 5, C: 8, V: 9, posOff: 0 },
    { B: 3, G: 1, P: 4, L: 5, S: 5, C: 12, V: 7, posOff: 2 },
    { B: 2, G: 2, P: 2, L: 4, S: 0, C: 8, V: 6, posOff: 3 },
  ])("forward and backward equal the reference %o", async ({ B, G, P, L, S, C, V, posOff }) => {
    const T = P + L;
    const l = prefixLayout(B, G, T, S);
    const u = seededUniform(B * 7 + S);
    // Tokens equal within a group over the shared columns, as a shared-prefix batch has them.
    const tokens = new Int32Array(B * L);
    for (let b = 0; b < B; b++)
      for (let s = 0; s < L; s++)
        tokens[b * L + s] =
          S > 0 && s < S - P && b % G !== 0 ? tokens[(b - (b % G)) * L + s] : Math.floor(u() * V);
    const nImg = S > 0 ? B / G : B;
    const patchEmb = randArray(nImg * P * C, 3);
    const wte = randArray(V * C, 4);
    const wpe = randArray((T + posOff) * C, 5);
    const dout = randArray(l.rows * C, 6);
    const out = new Float64Array(l.rows * C);
    embedPrefixForwardRef(out, patchEmb, tokens, wte, wpe, l, P, L, C, posOff);
    const dwte0 = randArray(V * C, 7);
    const dwpe0 = randArray((T + posOff) * C, 8);
    const dwte = Float64Array.from(dwte0);
    const dwpe = Float64Array.from(dwpe0);
    const dpatch = new Float64Array(nImg * P * C);
    embedPrefixBackwardRef(dwte, dwpe, dpatch, dout, tokens, l, P, L, C, posOff);

    const dims = { nG: B / G, G, S, T, P, L, C, posOff };
    const outB = f32("out", new Float32Array(l.rows * C).fill(Number.NaN));
    const tokB = i32("tokens", tokens);
    const wteB = f32("wte", wte);
    const wpeB = f32("wpe", wpe);
    gpu.ctx.run(
      embedPrefixForward(
        gpu.ctx,
        { patchEmb: f32("pe", patchEmb), tokens: tokB, wte: wteB, wpe: wpeB, out: outB },
        dims,
      ),
    );
    const { order, start } = prefixTokenOrder(tokens, l, P, L, V);
    const b = {
      dout: f32("dout", dout),
      order: i32("order", order.length ? order : [0]),
      start: i32("start", start),
      dwte: f32("dwte", dwte0),
      dwpe: f32("dwpe", dwpe0),
      dpatchEmb: f32("dpatch", new Float32Array(nImg * P * C).fill(Number.NaN)),
    };
    gpu.ctx.run(embedPrefixBackward(gpu.ctx, b, dims, V));
    expectClose("out", await gpu.ctx.readF32(outB), out, 1e-6, 1e-6);
    expectClose("dwte", await gpu.ctx.readF32(b.dwte), dwte, 1e-5, 1e-5);
    expectClose("dwpe", await gpu.ctx.readF32(b.dwpe), dwpe, 1e-5, 1e-5);
    expectClose("dpatchEmb", await gpu.ctx.readF32(b.dpatchEmb), dpatch, 0, 0);
    // Every text row is listed once, under its own id, ascending within an id.
    let listed = 0;
    for (let v = 0; v < V; v++)
      for (let k = start[v]; k < start[v + 1]; k++) {
        const { b: seq, t } = rowSeq(l, order[k]);
        expect(t).toBeGreaterThanOrEqual(P);
        expect(tokens[seq * L + t - P]).toBe(v);
        if (k > start[v]) expect(order[k]).toBeGreaterThan(order[k - 1]);
        listed++;
      }
    expect(listed).toBe(l.rows - nImg * P);
  });

  it("with S = 0 the prefix forward is the plain embed_forward on [B, T]", async () => {
    const B = 3;
    const P = 4;
    const L = 5;
    const C = 8;
    const V = 6;
    const T = P + L;
    const tokens = Int32Array.from({ length: B * L }, (_, i) => (i * 5) % V);
    const patchEmb = randArray(B * P * C, 9);
    const wte = randArray(V * C, 10);
    const wpe = randArray((T + 2) * C, 11);
    const mk = () => ({
      patchEmb: f32("pe", patchEmb),
      tokens: i32("t", tokens),
      wte: f32("wte", wte),
      wpe: f32("wpe", wpe),
      out: gpu.ctx.createBuffer("out", B * T * C * 4),
    });
    const a = mk();
    const p = mk();
    gpu.ctx.run(embedForward(gpu.ctx, a, B, P, L, C, 2));
    gpu.ctx.run(embedPrefixForward(gpu.ctx, p, { nG: B, G: 1, S: 0, T, P, L, C, posOff: 2 }));
    expectClose("out", await gpu.ctx.readF32(p.out), await gpu.ctx.readF32(a.out), 0, 0);
    expect(() =>
      embedPrefixForward(gpu.ctx, p, { nG: B, G: 1, S: 2, T, P, L, C, posOff: 0 }),
    ).toThrow(/S = 2 must be 0 or in \[P = 4/);
  });
});
