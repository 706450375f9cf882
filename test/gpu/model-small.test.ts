// TrainGraph at the SwiftShader preset's real shapes (SMALL_CONFIG: d 64,
// 2 layers, 4 heads, 28×56 image in 7×7 patches → 32 patch tokens, V 196)
// with B = 4 rollouts of 40 text tokens: it builds within the adapter's
// limits, the initial SFT loss is ≈ ln V, a policy step with β > 0 gives
// finite statistics, and the step time is reported.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GpuContext } from "../../src/gpu/context";
import { requestNodeDevice } from "../../src/gpu/node-gpu";
import { numPatches, paramLayout, SMALL_CONFIG } from "../../src/model/config";
import { TrainGraph } from "../../src/model/graph";
import { initParams } from "../../src/model/init";
import { tinyBatch } from "../model/tiny";

const B = 4;
const L = 40;

describe("TrainGraph on SMALL_CONFIG", () => {
  let ctx: GpuContext;
  let graph: TrainGraph;
  beforeAll(async () => {
    ctx = new GpuContext(await requestNodeDevice());
    const params = ctx.createBufferFrom("params", initParams(SMALL_CONFIG, 1));
    const grads = ctx.createBuffer("grads", paramLayout(SMALL_CONFIG).totalFloats * 4);
    graph = new TrainGraph(ctx, SMALL_CONFIG, B, L, { padId: 0, params, grads });
    graph.setBatch(tinyBatch(SMALL_CONFIG, B, L, 20, 3));
  });
  afterAll(() => ctx?.destroy());

  it("SFT at init: loss ≈ ln V, then a policy step with KL; reports the step time", async () => {
    const d0 = ctx.stats.dispatches;
    graph.sftStep();
    const s = await graph.readStats();
    const dispatches = ctx.stats.dispatches - d0;
    expect(Math.abs(s.loss - Math.log(SMALL_CONFIG.vocabSize))).toBeLessThan(0.05);
    expect(s.tokens).toBe(B * (L - 20));
    const t0 = performance.now();
    const ref = graph.forwardLogprobs(graph.params, ctx.createBuffer("refLogprobs", B * L * 4));
    await ctx.sync();
    const tForward = performance.now() - t0;
    const t1 = performance.now();
    graph.policyStep({
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
      `SMALL_CONFIG B=${B} T=${numPatches(SMALL_CONFIG) + L}: forward+logprobs ${tForward.toFixed(0)} ms, policy step ${tStep.toFixed(0)} ms, ${dispatches} dispatches per step (${ctx.adapter.description})`,
    );
  });

  it("an on-policy step (no oldLogprobs) gives the same loss and gradients, bit for bit, as passing the forward's logprobs", async () => {
    const grads = graph.grads;
    const n = paramLayout(SMALL_CONFIG).totalFloats;
    const ref = graph.forwardLogprobs(graph.params, ctx.createBuffer("refLp2", B * L * 4));
    const old = graph.forwardLogprobs(graph.params, ctx.createBuffer("oldLp2", B * L * 4));
    const advantages = Float32Array.from([0.7, -1.2, 0.3, 0.9]);
    graph.policyStep({ advantages, oldLogprobs: old, refLogprobs: ref, beta: 0.01 });
    const a = await graph.readStats();
    const ga = await ctx.readF32(grads, 0, n);
    graph.policyStep({ advantages, refLogprobs: ref, beta: 0.01 });
    const b = await graph.readStats();
    const gb = await ctx.readF32(grads, 0, n);
    expect(b).toEqual(a);
    expect(a.clipFrac).toBe(0);
    expect(gb.some((x) => x !== 0)).toBe(true);
    expect(Buffer.from(gb.buffer).equals(Buffer.from(ga.buffer))).toBe(true);
  });
});
