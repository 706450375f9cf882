/**
 * Checker of the loss family (shaders/loss/: loss_token → loss_reduce →
 * loss_logits_grad) against its f64 CPU reference
 * (src/kernels/loss/reference.ts) on random logits: SFT, and the policy loss
 * in all three aggregations, incl. a row with no masked token and KL terms
 * past both clamps.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import * as K from "../../../src/kernels/loss/launch";
import {
  policyLoss,
  sftLoss,
  tokenStats,
  type PolicyAggregation,
} from "../../../src/kernels/loss/reference";
import { seededUniform } from "../../../src/model/init";
import { expectClose } from "../../support/expect-close";
import { randArray } from "../../model/tiny";

const B = 3,
  L = 7,
  P = 2,
  V = 13,
  T = P + L;

describe("loss kernels", () => {
  const gpu = useGpu();
  let bufs: Record<string, GPUBuffer>;
  const u = seededUniform(5);
  const logitsAll = randArray(B * T * V, 1, -3, 3); // [B, T, V]
  const logits = new Float64Array(B * L * V); // text rows only, for the reference
  for (let b = 0; b < B; b++)
    logits.set(logitsAll.subarray((b * T + P) * V, (b * T + T) * V), b * L * V);
  const tokens = Int32Array.from({ length: B * L }, () => Math.floor(u() * V));
  const mask = Float32Array.from({ length: B * L }, (_, i) =>
    i % L >= 3 && Math.floor(i / L) !== 1 ? 1 : 0,
  ); // row 1 empty
  const lp = tokenStats(logits, tokens, B, L, V).logprobs;
  const oldLogprobs = Float32Array.from(lp, (x) => x + (u() - 0.5) * 1.2);
  const refLogprobs = Float32Array.from(lp, (x) => x + (u() - 0.5) * 2);
  refLogprobs[4] = lp[4] + 30; // x clamped at +20
  refLogprobs[5] = lp[5] + 5; // k3 = e⁵ − 6 > 10: term clamped
  const advantages = Float32Array.from([1.3, 0.4, -0.7]);

  beforeAll(async () => {
    const f = (n: string, a: Float32Array | Int32Array) => gpu.ctx.createBufferFrom(n, a);
    bufs = {
      logits: f("logits", logitsAll),
      tokens: f("tokens", tokens),
      mask: f("mask", mask),
      advantages: f("adv", advantages),
      oldLogprobs: f("old", oldLogprobs),
      refLogprobs: f("ref", refLogprobs),
      logprobs: gpu.ctx.createBuffer("lp", B * L * 4),
      tok: gpu.ctx.createBuffer("tok", B * L * 32),
      g: gpu.ctx.createBuffer("g", B * L * 4),
      stats: gpu.ctx.createBuffer("stats", 32),
      dlogits: gpu.ctx.createBuffer("dlogits", B * T * V * 4),
    };
  });

  async function run(mode: number, agg: number, clipEps: number, beta: number, normLength: number) {
    const d = { B, T, L, P, V };
    gpu.ctx.run(K.lossToken(gpu.ctx, bufs as never, d, mode, clipEps, beta));
    gpu.ctx.run(K.lossReduce(gpu.ctx, bufs as never, B, L, agg, normLength));
    gpu.ctx.run(K.lossLogitsGrad(gpu.ctx, bufs as never, d));
    const stats = await gpu.ctx.readF32(bufs.stats, 0, 8);
    const all = await gpu.ctx.readF32(bufs.dlogits, 0, B * T * V);
    const text = new Float32Array(B * L * V);
    for (let b = 0; b < B; b++) {
      text.set(all.subarray((b * T + P) * V, (b * T + T) * V), b * L * V);
      // patch rows carry no gradient
      expect(all.subarray(b * T * V, (b * T + P) * V).every((x) => x === 0)).toBe(true);
    }
    return { stats, dlogits: text, logprobs: await gpu.ctx.readF32(bufs.logprobs, 0, B * L) };
  }

  it("SFT: token-mean cross-entropy, its logits gradient and the logprobs", async () => {
    const ref = sftLoss(logits, tokens, mask, B, L, V);
    const got = await run(K.LOSS_MODE.sft, K.AGGREGATION["token-mean"], 0.2, 0, 1);
    expect(got.stats[0]).toBeCloseTo(ref.loss, 5);
    expect(got.stats[4]).toBe(8);
    expectClose("logprobs", got.logprobs, ref.logprobs, 1e-5, 1e-5);
    expectClose("dlogits", got.dlogits, ref.dlogits, 1e-7, 1e-4);
  });

  it.each(["seq-mean-token-mean", "token-mean", "seq-mean-token-sum-norm"] as PolicyAggregation[])(
    "policy loss with clip and clamped k3 KL, %s",
    async (agg) => {
      const inputs = {
        advantages,
        oldLogprobs,
        refLogprobs,
        mask,
        clipEps: 0.2,
        beta: 0.3,
        aggregation: agg,
        normLength: 5,
      };
      const ref = policyLoss(logits, tokens, inputs, B, L, V);
      expect(ref.clipFrac).toBeGreaterThan(0);
      const got = await run(K.LOSS_MODE.policy, K.AGGREGATION[agg], 0.2, 0.3, 5);
      expect(got.stats[0]).toBeCloseTo(ref.loss, 5);
      expect(got.stats[1]).toBeCloseTo(ref.kl, 5);
      expect(got.stats[2]).toBeCloseTo(ref.clipFrac, 6);
      expect(got.stats[3]).toBeCloseTo(ref.entropy, 5);
      expectClose("dlogits", got.dlogits, ref.dlogits, 1e-7, 1e-4);
    },
  );

  it.each([
    ["with a reference policy", K.LOSS_MODE.policyOnPolicy, K.LOSS_MODE.policy, 0.3],
    ["without a reference policy", K.LOSS_MODE.policyNoRefOnPolicy, K.LOSS_MODE.policyNoRef, 0],
  ] as const)(
    "on-policy (logπ_old = logπ, ρ = 1) %s: the reference, and the same as passing the logprobs",
    async (_, onMode, offMode, beta) => {
      const agg = "seq-mean-token-mean";
      const inputs = {
        advantages,
        refLogprobs,
        mask,
        clipEps: 0.2,
        beta,
        aggregation: agg,
        normLength: 5,
      } as const;
      const ref = policyLoss(logits, tokens, inputs, B, L, V);
      expect(ref.clipFrac).toBe(0);
      const got = await run(onMode, K.AGGREGATION[agg], 0.2, beta, 5);
      expect(got.stats[0]).toBeCloseTo(ref.loss, 5);
      // Without a reference policy there is no KL term and the kernel reports KL 0.
      expect(got.stats[1]).toBeCloseTo(beta > 0 ? ref.kl : 0, 5);
      expect(got.stats[2]).toBe(0);
      expectClose("dlogits", got.dlogits, ref.dlogits, 1e-7, 1e-4);
      // The kernel's own logprobs passed as logπ_old give the same bits.
      const saved = await gpu.ctx.readF32(bufs.oldLogprobs, 0, B * L);
      gpu.ctx.write(bufs.oldLogprobs, got.logprobs);
      const off = await run(offMode, K.AGGREGATION[agg], 0.2, beta, 5);
      gpu.ctx.write(bufs.oldLogprobs, saved);
      expect(Array.from(off.stats)).toEqual(Array.from(got.stats));
      expect(Array.from(off.dlogits)).toEqual(Array.from(got.dlogits));
    },
  );
});
