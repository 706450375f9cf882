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
});
