// The whole tiny VLM on the GPU (TrainGraph) vs the f64 CPU reference, in the
// role of llm.c's test_gpt2.c: logits, per-token logprobs, SFT loss and the
// gradient of EVERY named parameter; the policy loss (positive and negative
// advantages, clipped and unclipped ratios, β > 0) in all three aggregations;
// a second (reference) parameter buffer through the same forward; NaN/Inf
// detection; and no allocations in steady state.
import { beforeAll, describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { numPatches, paramLayout } from "../../src/model/config";
import { TrainGraph, type PolicyAggregation } from "../../src/model/graph";
import { initParams, seededUniform } from "../../src/model/init";
import {
  referenceForward,
  referencePolicy,
  referenceSft,
  tokenStats,
} from "../../src/model/reference";
import { expectClose } from "../support/expect-close";
import { TINY, tinyBatch } from "../model/tiny";

const B = 2;
const L = 6;
const P = numPatches(TINY);
const T = P + L;
const V = TINY.vocabSize;

/** Init params with non-trivial LayerNorm gains/biases and larger weights, so every path carries signal. */
function richParams(seed: number): Float32Array {
  const p = initParams(TINY, seed);
  const u = seededUniform(seed + 1);
  for (const t of paramLayout(TINY).tensors) {
    for (let i = 0; i < t.size; i++) {
      if (t.name.endsWith(".g")) p[t.offset + i] = 1 + 0.3 * (u() - 0.5);
      else if (/\.(b|bqkv|bo|bfc|bproj)$/.test(t.name)) p[t.offset + i] = 0.1 * (u() - 0.5);
      else p[t.offset + i] *= 10;
    }
  }
  return p;
}

/** Compares a flat gradient tensor by tensor, with a tolerance scaled to each tensor's magnitude. */
function expectGradsClose(got: Float32Array, ref: Float64Array) {
  for (const t of paramLayout(TINY).tensors) {
    const r = ref.subarray(t.offset, t.offset + t.size);
    const gsub = got.subarray(t.offset, t.offset + t.size);
    const scale = r.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    expect(scale, `reference gradient of ${t.name} is not all zero`).toBeGreaterThan(0);
    expectClose(`grad ${t.name}`, gsub, r, 1e-7 + 2e-4 * scale, 2e-3);
  }
}

describe("TrainGraph on the tiny config", () => {
  const gpu = useGpu();
  let graph: TrainGraph;
  const params = richParams(3);
  const batch = tinyBatch(TINY, B, L, 3, 7);
  const layout = paramLayout(TINY);

  beforeAll(async () => {
    const pbuf = gpu.ctx.createBufferFrom("params", params);
    const gbuf = gpu.ctx.createBuffer("grads", layout.totalFloats * 4);
    graph = new TrainGraph(gpu.ctx, TINY, B, L, { padId: batch.padId, params: pbuf, grads: gbuf });
    graph.setBatch(batch);
  });

  it("fixture has a PAD inside every prompt", () => {
    for (let b = 0; b < B; b++) expect(batch.tokens[b * L]).toBe(batch.padId);
  });

  it("forward logits and per-token logprobs match the reference", async () => {
    const ref = referenceForward(TINY, params, batch).logits;
    graph.forwardLogprobs();
    const all = await gpu.ctx.readF32(graph.logits, 0, B * T * V);
    const text = new Float32Array(B * L * V);
    for (let b = 0; b < B; b++) text.set(all.subarray((b * T + P) * V, (b * T + T) * V), b * L * V);
    expectClose("logits", text, ref, 1e-5, 1e-4);
    const lp = tokenStats(ref, batch.tokens, B, L, V).logprobs;
    expectClose("logprobs", await gpu.ctx.readF32(graph.logprobs, 0, B * L), lp, 1e-5, 1e-4);
  });

  it("SFT loss and the gradient of every named parameter match the reference", async () => {
    const ref = referenceSft(TINY, params, batch, batch.mask);
    graph.sftForwardBackward();
    const stats = await graph.readStats();
    expect(stats.loss).toBeCloseTo(ref.loss, 5);
    expect(stats.tokens).toBe(B * (L - 3));
    expectGradsClose(await gpu.ctx.readF32(graph.grads), ref.grads);
  });

  const cases: Array<{
    name: string;
    adv: number[];
    spread: number;
    beta: number;
    agg: PolicyAggregation;
    tau?: number;
  }> = [
    {
      name: "A > 0 and A < 0, clipped and unclipped, β = 0.1, seq-mean-token-mean",
      adv: [0.8, -1.2],
      spread: 0.8,
      beta: 0.1,
      agg: "seq-mean-token-mean",
    },
    {
      name: "A < 0 and A > 0, ratios inside the clip range, β = 0.05, token-mean",
      adv: [-0.5, 1.5],
      spread: 0.1,
      beta: 0.05,
      agg: "token-mean",
    },
    {
      name: "mostly clipped, β = 0.2, seq-mean-token-sum-norm",
      adv: [1.1, -0.9],
      spread: 2.0,
      beta: 0.2,
      agg: "seq-mean-token-sum-norm",
    },
    {
      name: "temperature τ = 0.7, β = 0.1, seq-mean-token-mean",
      adv: [0.8, -1.2],
      spread: 0.8,
      beta: 0.1,
      agg: "seq-mean-token-mean",
      tau: 0.7,
    },
    {
      name: "temperature τ = 1.6, β = 0.05, token-mean",
      adv: [-0.5, 1.5],
      spread: 0.3,
      beta: 0.05,
      agg: "token-mean",
      tau: 1.6,
    },
  ];

  /** Reference per-token logprobs of softmax(logits/τ). */
  const refLogprobsAt = (tau: number) =>
    tokenStats(
      referenceForward(TINY, params, batch).logits.map((z) => z / tau),
      batch.tokens,
      B,
      L,
      V,
    ).logprobs;

  it.each(cases)("policy loss: $name", async ({ adv, spread, beta, agg, tau }) => {
    const lpNow = refLogprobsAt(tau ?? 1);
    const u = seededUniform(41);
    const oldLogprobs = Float32Array.from(lpNow, (x) => x + (u() - 0.5) * spread);
    const refLogprobs = Float32Array.from(lpNow, (x) => x + (u() - 0.5) * 1.0);
    const inputs = {
      advantages: adv,
      oldLogprobs,
      refLogprobs,
      mask: batch.mask,
      clipEps: 0.2,
      beta,
      aggregation: agg,
      normLength: 4,
      temperature: tau,
    };
    const ref = referencePolicy(TINY, params, batch, inputs);
    graph.policyForwardBackward({
      advantages: Float32Array.from(adv),
      oldLogprobs,
      refLogprobs,
      clipEps: 0.2,
      beta,
      aggregation: agg,
      normLength: 4,
      temperature: tau,
    });
    const s = await graph.readStats();
    expect(s.loss).toBeCloseTo(ref.loss, 5);
    expect(s.kl).toBeCloseTo(ref.kl, 5);
    expect(s.clipFrac).toBeCloseTo(ref.clipFrac, 6);
    expect(s.entropy).toBeCloseTo(ref.entropy, 5);
    expectGradsClose(await gpu.ctx.readF32(graph.grads), ref.grads);
  });

  it("forwardLogprobs at τ = 0.7 gives the logprobs of softmax(logits/τ); τ = 1 again after it", async () => {
    graph.forwardLogprobs(undefined, undefined, 0.7);
    expectClose(
      "logprobs τ=0.7",
      await gpu.ctx.readF32(graph.logprobs, 0, B * L),
      refLogprobsAt(0.7),
      1e-5,
      1e-4,
    );
    graph.forwardLogprobs();
    expectClose(
      "logprobs τ=1",
      await gpu.ctx.readF32(graph.logprobs, 0, B * L),
      refLogprobsAt(1),
      1e-5,
      1e-4,
    );
  });

  it("an SFT step after a τ ≠ 1 policy step uses τ = 1 again", async () => {
    graph.policyForwardBackward({
      advantages: Float32Array.from([1, -1]),
      oldLogprobs: Float32Array.from(refLogprobsAt(1.6)),
      temperature: 1.6,
    });
    await graph.readStats();
    const ref = referenceSft(TINY, params, batch, batch.mask);
    graph.sftForwardBackward();
    expect((await graph.readStats()).loss).toBeCloseTo(ref.loss, 5);
    expectGradsClose(await gpu.ctx.readF32(graph.grads), ref.grads);
  });

  it("rejects a temperature that is not > 0", () => {
    expect(() =>
      graph.policyForwardBackward({
        advantages: Float32Array.from([1, -1]),
        oldLogprobs: new Float32Array(B * L),
        temperature: 0,
      }),
    ).toThrow(/temperature must be a finite number > 0/);
    expect(() => graph.forwardLogprobs(undefined, undefined, -1)).toThrow(/temperature/);
  });

  it("the test cases exercise clipped and unclipped tokens", () => {
    const lpNow = tokenStats(
      referenceForward(TINY, params, batch).logits,
      batch.tokens,
      B,
      L,
      V,
    ).logprobs;
    const u = seededUniform(41);
    const oldLogprobs = Float32Array.from(lpNow, (x) => x + (u() - 0.5) * 0.8);
    const r = referencePolicy(TINY, params, batch, {
      advantages: [0.8, -1.2],
      oldLogprobs,
      refLogprobs: lpNow,
      mask: batch.mask,
      clipEps: 0.2,
      beta: 0.1,
      aggregation: "seq-mean-token-mean",
      normLength: 4,
    });
    expect(r.clipFrac).toBeGreaterThan(0);
    expect(r.clipFrac).toBeLessThan(1);
  });

  it("is deterministic: the same step twice gives bit-identical gradients", async () => {
    graph.setBatch(batch);
    graph.sftForwardBackward();
    const g1 = await gpu.ctx.readF32(graph.grads);
    graph.sftForwardBackward();
    const g2 = await gpu.ctx.readF32(graph.grads);
    expect(g2).toEqual(g1);
  });

  it("takes old logprobs already on the GPU (forwardLogprobs into graph.oldLogprobs)", async () => {
    graph.setBatch(batch);
    graph.forwardLogprobs(graph.params, graph.oldLogprobs);
    graph.policyForwardBackward({
      advantages: Float32Array.from([1, -1]),
      oldLogprobs: graph.oldLogprobs,
    });
    const s = await graph.readStats();
    // ρ = 1 everywhere: loss = −mean_b A_b = 0, nothing clipped; no refLogprobs: no KL
    expect(s.loss).toBeCloseTo(0, 6);
    expect(s.clipFrac).toBe(0);
    expect(s.kl).toBe(0);
  });

  it("runs a second (reference) parameter buffer through the same forward", async () => {
    const other = richParams(99);
    const obuf = gpu.ctx.createBufferFrom("refParams", other);
    const out = gpu.ctx.createBuffer("refLogprobs", B * L * 4);
    graph.forwardLogprobs(obuf, out);
    const ref = tokenStats(
      referenceForward(TINY, other, batch).logits,
      batch.tokens,
      B,
      L,
      V,
    ).logprobs;
    expectClose("reference-policy logprobs", await gpu.ctx.readF32(out, 0, B * L), ref, 1e-5, 1e-4);
  });

  it("throws a clear error when the loss is not finite", async () => {
    graph.setBatch(batch);
    graph.policyForwardBackward({
      advantages: Float32Array.from([Infinity, 1]),
      oldLogprobs: new Float32Array(B * L),
    });
    await expect(graph.readStats()).rejects.toThrow(/loss is .*diverged/);
    graph.policyForwardBackward({
      advantages: Float32Array.from([NaN, NaN]),
      oldLogprobs: new Float32Array(B * L),
    });
    await expect(graph.readStats()).rejects.toThrow(/diverged/);
  });

  it("plain SGD on its gradients lowers the SFT loss (the gradient points downhill)", async () => {
    const pbuf = gpu.ctx.createBufferFrom("sgdParams", params);
    const gbuf = gpu.ctx.createBuffer("sgdGrads", layout.totalFloats * 4);
    const g = new TrainGraph(gpu.ctx, TINY, B, L, {
      padId: batch.padId,
      params: pbuf,
      grads: gbuf,
    });
    g.setBatch(batch);
    const p = Float32Array.from(params);
    const losses: number[] = [];
    for (let step = 0; step < 8; step++) {
      g.sftForwardBackward();
      losses.push((await g.readStats()).loss);
      const grads = await gpu.ctx.readF32(gbuf);
      for (let i = 0; i < p.length; i++) p[i] -= 0.03 * grads[i];
      gpu.ctx.write(pbuf, p);
    }
    for (let i = 1; i < losses.length; i++)
      expect(losses[i], losses.join(", ")).toBeLessThan(losses[i - 1]);
    expect(losses[7]).toBeLessThan(0.8 * losses[0]);
  });

  it("allocates nothing in steady state (100 steps)", async () => {
    const old = new Float32Array(B * L);
    const adv = Float32Array.from([0.5, -0.5]);
    graph.setBatch(batch);
    graph.sftForwardBackward();
    await graph.readStats();
    const before = gpu.ctx.stats.buffersCreated;
    const bindGroups = gpu.ctx.stats.bindGroupsCreated;
    const t0 = performance.now();
    for (let i = 0; i < 50; i++) {
      graph.setBatch(batch);
      graph.sftForwardBackward();
      await graph.readStats();
      graph.forwardLogprobs(graph.params, graph.oldLogprobs);
      graph.policyForwardBackward({ advantages: adv, oldLogprobs: old, beta: 0 });
      await graph.readStats();
    }
    const ms = (performance.now() - t0) / 100;
    console.log(
      `tiny config: ${ms.toFixed(2)} ms per training step (forward+loss+backward+read-back), ${gpu.ctx.adapter.description}`,
    );
    expect(gpu.ctx.stats.buffersCreated).toBe(before);
    expect(gpu.ctx.stats.bindGroupsCreated).toBe(bindGroups);
  });
});
