// TrainGraph at the SwiftShader preset's real shapes (SMALL_CONFIG: d 64,
// 2 layers, 4 heads, 28×56 image in 7×7 patches → 32 patch tokens, V 196)
// with B = 4 rollouts of 40 text tokens: it builds within the adapter's
// limits, the initial SFT loss is ≈ ln V, a policy step with β > 0 gives
// finite statistics, and the step time is reported.
import { beforeAll, describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { numPatches, paramLayout, SMALL_CONFIG } from "../../src/model/config";
import { TrainGraph } from "../../src/model/graph";
import { initParams } from "../../src/model/init";
import { sliceColumns } from "../../src/engine/text-window";
import { expectClose } from "../support/expect-close";
import { tinyBatch } from "../model/tiny";

const B = 4;
const L = 40;

describe("TrainGraph on SMALL_CONFIG", () => {
  const gpu = useGpu();
  let graph: TrainGraph;
  beforeAll(async () => {
    const params = gpu.ctx.createBufferFrom("params", initParams(SMALL_CONFIG, 1));
    const grads = gpu.ctx.createBuffer("grads", paramLayout(SMALL_CONFIG).totalFloats * 4);
    graph = new TrainGraph(gpu.ctx, SMALL_CONFIG, B, L, { padId: 0, params, grads });
    graph.setBatch(tinyBatch(SMALL_CONFIG, B, L, 20, 3));
  });

  it("SFT at init: loss ≈ ln V, then a policy step with KL; reports the step time", async () => {
    const d0 = gpu.ctx.stats.dispatches;
    graph.sftForwardBackward();
    const s = await graph.readStats();
    const dispatches = gpu.ctx.stats.dispatches - d0;
    expect(Math.abs(s.loss - Math.log(SMALL_CONFIG.vocabSize))).toBeLessThan(0.05);
    expect(s.tokens).toBe(B * (L - 20));
    const t0 = performance.now();
    const ref = graph.forwardLogprobs(graph.params, gpu.ctx.createBuffer("refLogprobs", B * L * 4));
    await gpu.ctx.sync();
    const tForward = performance.now() - t0;
    const t1 = performance.now();
    graph.policyForwardBackward({
      advantages: Float32Array.from([1, -1, 0.5, -0.5]),
      oldLogprobs: ref,
      refLogprobs: ref,
      beta: 0.01,
    });
    const p = await graph.readStats();
    const tStep = performance.now() - t1;
    expect(Number.isFinite(p.loss) && Number.isFinite(p.kl) && Number.isFinite(p.entropy)).toBe(
      true,
    );
    expect(p.kl).toBeCloseTo(0, 6);
    console.log(
      `SMALL_CONFIG B=${B} T=${numPatches(SMALL_CONFIG) + L}: forward+logprobs ${tForward.toFixed(0)} ms, policy step ${tStep.toFixed(0)} ms, ${dispatches} dispatches per step (${gpu.ctx.adapter.description})`,
    );
  });

  it("an on-policy step (no oldLogprobs) gives the same loss and gradients, bit for bit, as passing the forward's logprobs", async () => {
    const grads = graph.grads;
    const n = paramLayout(SMALL_CONFIG).totalFloats;
    const ref = graph.forwardLogprobs(graph.params, gpu.ctx.createBuffer("refLp2", B * L * 4));
    const old = graph.forwardLogprobs(graph.params, gpu.ctx.createBuffer("oldLp2", B * L * 4));
    const advantages = Float32Array.from([0.7, -1.2, 0.3, 0.9]);
    graph.policyForwardBackward({ advantages, oldLogprobs: old, refLogprobs: ref, beta: 0.01 });
    const a = await graph.readStats();
    const ga = await gpu.ctx.readF32(grads, 0, n);
    graph.policyForwardBackward({ advantages, refLogprobs: ref, beta: 0.01 });
    const b = await graph.readStats();
    const gb = await gpu.ctx.readF32(grads, 0, n);
    expect(b).toEqual(a);
    expect(a.clipFrac).toBe(0);
    expect(gb.some((x) => x !== 0)).toBe(true);
    expect(Buffer.from(gb.buffer).equals(Buffer.from(ga.buffer))).toBe(true);
  });

  it("a window graph (the used columns only, at their positions) gives the loss, logprobs and gradients of the whole text", async () => {
    const n = paramLayout(SMALL_CONFIG).totalFloats;
    // The first 6 columns PAD in every row, the last 8 PAD and out of the loss: window [6, 32).
    const batch = tinyBatch(SMALL_CONFIG, B, L, 20, 5);
    for (let b = 0; b < B; b++)
      for (let s = 0; s < L; s++)
        if (s < 6 || s >= L - 8) {
          batch.tokens[b * L + s] = 0;
          batch.mask[b * L + s] = 0;
        }
    const win = { start: 6, len: L - 14 };
    const advantages = Float32Array.from([0.4, -0.8, 1.1, -0.2]);
    const bytes0 = gpu.ctx.stats.bytesCreated;
    const full = new TrainGraph(gpu.ctx, SMALL_CONFIG, B, L, {
      padId: 0,
      params: graph.params,
      grads: graph.grads,
    });
    full.setBatch(batch);
    const refFull = full.forwardLogprobs(full.params, gpu.ctx.createBuffer("refFull", B * L * 4));
    full.policyForwardBackward({ advantages, refLogprobs: refFull, beta: 0.02 });
    const a = await full.readStats();
    const ga = await gpu.ctx.readF32(full.grads, 0, n);
    const lpFull = await gpu.ctx.readF32(refFull, 0, B * L);

    const bytes1 = gpu.ctx.stats.bytesCreated;
    const window = new TrainGraph(gpu.ctx, SMALL_CONFIG, B, win.len, {
      padId: 0,
      params: graph.params,
      grads: graph.grads,
      shareBuffersOf: full,
    });
    // The window allocates no activations of its own (only its dispatches' uniforms).
    expect(gpu.ctx.stats.bytesCreated - bytes1).toBeLessThan((bytes1 - bytes0) / 100);
    window.setTextOffset(win.start);
    window.setBatch({
      images: batch.images,
      tokens: sliceColumns(batch.tokens, L, win),
      mask: sliceColumns(batch.mask, L, win),
    });
    const refWin = window.forwardLogprobs(
      window.params,
      gpu.ctx.createBuffer("refWin", B * win.len * 4),
    );
    window.policyForwardBackward({ advantages, refLogprobs: refWin, beta: 0.02 });
    const b = await window.readStats();
    const gb = await gpu.ctx.readF32(window.grads, 0, n);
    const lpWin = await gpu.ctx.readF32(refWin, 0, B * win.len);

    expect(b.tokens).toBe(a.tokens);
    expectClose("loss", [b.loss, b.entropy], [a.loss, a.entropy], 1e-5, 1e-5);
    // Column 0 of the window has no prediction; every later column matches the whole text's.
    for (let r = 0; r < B; r++)
      expectClose(
        `logprobs row ${r}`,
        lpWin.subarray(r * win.len + 1, (r + 1) * win.len),
        lpFull.subarray(r * L + win.start + 1, r * L + win.start + win.len),
        1e-5,
        1e-5,
      );
    expect(ga.some((x) => x !== 0)).toBe(true);
    expectClose("gradients", gb, ga, 1e-5, 1e-4);
    // Without the offset the positions are wrong: the logprobs differ.
    window.setTextOffset(0);
    window.forwardLogprobs(window.params, refWin);
    const shifted = await gpu.ctx.readF32(refWin, 0, B * win.len);
    expect(Math.max(...shifted.map((x, i) => Math.abs(x - lpWin[i])))).toBeGreaterThan(1e-3);
    expect(() => window.setTextOffset(1000)).toThrow(/setTextOffset: offset must be an integer/);
  });

  it("a compacted last layer with a head size that is not a multiple of 4 (attention on every row, then packed) gives the whole graph's loss and gradients", async () => {
    const config = { ...SMALL_CONFIG, dModel: 24, nHeads: 4 }; // head size 6
    const n = paramLayout(config).totalFloats;
    const params = gpu.ctx.createBufferFrom("params6", initParams(config, 4));
    const grads = gpu.ctx.createBuffer("grads6", n * 4);
    const batch = tinyBatch(config, B, L, 20, 9);
    for (const s of [21, 25, 26]) batch.mask[L + s] = 0;
    const advantages = Float32Array.from([-0.5, 1.3, 0.2, -0.9]);
    const full = new TrainGraph(gpu.ctx, config, B, L, { padId: 0, params, grads });
    const compact = new TrainGraph(gpu.ctx, config, B, L, {
      padId: 0,
      params,
      grads,
      shareBuffersOf: full,
      compactLastLayer: true,
    });
    const run = async (g: TrainGraph) => {
      g.setBatch(batch);
      const ref = g.forwardLogprobs(g.params, gpu.ctx.createBuffer("ref6", B * L * 4));
      g.policyForwardBackward({ advantages, refLogprobs: ref, beta: 0.05 });
      return { stats: await g.readStats(), grads: await gpu.ctx.readF32(g.grads, 0, n) };
    };
    const a = await run(full);
    const c = await run(compact);
    expect(c.stats.tokens).toBe(a.stats.tokens);
    expectClose(
      "loss, kl, entropy",
      [c.stats.loss, c.stats.kl, c.stats.entropy],
      [a.stats.loss, a.stats.kl, a.stats.entropy],
      1e-5,
      1e-5,
    );
    expect(a.grads.some((x) => x !== 0)).toBe(true);
    expectClose("gradients", c.grads, a.grads, 1e-5, 1e-4);
  });

  it("a compacted last layer (loss rows only) gives the loss, masked logprobs and gradients of the whole graph", async () => {
    const n = paramLayout(SMALL_CONFIG).totalFloats;
    const V = SMALL_CONFIG.vocabSize;
    // Gaps in the mask, a row with no loss token, and a window at an offset.
    const batch = tinyBatch(SMALL_CONFIG, B, L, 20, 7);
    for (let s = 0; s < L; s++) batch.mask[2 * L + s] = 0;
    for (const s of [22, 23, 30]) batch.mask[s] = 0;
    for (let b = 0; b < B; b++)
      for (let s = 0; s < 4; s++) {
        batch.tokens[b * L + s] = 0;
        batch.mask[b * L + s] = 0;
      }
    const advantages = Float32Array.from([0.7, -0.3, 0.9, -1.2]);
    const full = new TrainGraph(gpu.ctx, SMALL_CONFIG, B, L, {
      padId: 0,
      params: graph.params,
      grads: graph.grads,
    });
    const run = async (g: TrainGraph, win: { start: number; len: number }) => {
      g.setTextOffset(win.start);
      g.setBatch({
        images: batch.images,
        tokens: sliceColumns(batch.tokens, L, win),
        mask: sliceColumns(batch.mask, L, win),
      });
      const ref = g.forwardLogprobs(g.params, gpu.ctx.createBuffer("ref", B * win.len * 4));
      g.policyForwardBackward({ advantages, refLogprobs: ref, beta: 0.03 });
      const stats = await g.readStats();
      return {
        stats,
        grads: await gpu.ctx.readF32(g.grads, 0, n),
        lp: await gpu.ctx.readF32(ref, 0, B * win.len),
      };
    };
    const a = await run(full, { start: 0, len: L });
    for (const win of [
      { start: 0, len: L },
      { start: 4, len: L - 4 },
    ]) {
      const compact = new TrainGraph(gpu.ctx, SMALL_CONFIG, B, win.len, {
        padId: 0,
        params: graph.params,
        grads: graph.grads,
        shareBuffersOf: full,
        compactLastLayer: true,
      });
      const c = await run(compact, win);
      expect(c.stats.tokens).toBe(a.stats.tokens);
      expectClose(
        `loss, kl, entropy, clip (window at ${win.start})`,
        [c.stats.loss, c.stats.kl, c.stats.entropy, c.stats.clipFrac],
        [a.stats.loss, a.stats.kl, a.stats.entropy, a.stats.clipFrac],
        1e-5,
        1e-5,
      );
      // Masked tokens: the whole graph's logprobs; the rest: those of zero logits (−ln V).
      for (let b = 0; b < B; b++)
        for (let s = 1; s < win.len; s++) {
          const want = batch.mask[b * L + win.start + s]
            ? a.lp[b * L + win.start + s]
            : -Math.log(V);
          expectClose(`logprob ${b},${s}`, [c.lp[b * win.len + s]], [want], 1e-5, 1e-5);
        }
      expect(a.grads.some((x) => x !== 0)).toBe(true);
      expectClose(`gradients (window at ${win.start})`, c.grads, a.grads, 1e-5, 1e-4);
      const gpuMask = gpu.ctx.createBuffer("mask", B * win.len * 4);
      expect(() =>
        compact.setBatch({
          images: batch.images,
          tokens: sliceColumns(batch.tokens, L, win),
          mask: gpuMask,
        }),
      ).toThrow(/compactLastLayer\) needs the mask as a CPU array/);
    }
  });
});
