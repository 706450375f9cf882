/**
 * LabEngine.policyUpdate at a sampling temperature τ ≠ 1: old, reference and
 * current logprobs must all be softmax(logits/τ). On the first update the
 * policy equals the reference and the old policy, so the ratio is 1 (no
 * clipping) and the k3 KL is 0 at any τ; had one of the three been taken at
 * τ = 1, both would be non-zero. The loss and entropy are checked against the
 * f64 reference at the same τ.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { initParams } from "../../src/model/init";
import { referencePolicy, referenceForward, tokenStats } from "../../src/model/reference";
import { LabEngine } from "../../src/engine/lab-engine";
import { TINY, tinyBatch } from "../model/tiny";

const G = 4;
const L = 8;
const promptLen = 3;

describe("LabEngine policy update at a sampling temperature", () => {
  const gpu = useGpu();

  it.each([1, 0.6, 1.8])(
    "τ = %s: ratio 1 and KL 0 on the first update; loss and entropy as the reference",
    async (tau) => {
      const params = initParams(TINY, 5);
      const batch = tinyBatch(TINY, G, L, promptLen, 11);
      // tinyBatch pads with 0; the engine masks the tokenizer's PAD id as attention key, so use no PAD here.
      const tokens = Int32Array.from(batch.tokens, (t) => (t === 0 ? 1 : t));
      const engine = new LabEngine(gpu.ctx, TINY, { promptLen, maxNew: L - promptLen }, params);
      const policy = engine.createPolicy("p", { lr: 0, weightDecay: 0, maxGradNorm: 1 });
      const rewards = [1, 0, 0, 1];
      const adv = await engine.advantages(rewards, G, "grpo", "sample", 1e-6);
      const stats = await engine.policyUpdate(
        policy,
        batch.images as Float32Array,
        { tokens, mask: batch.mask, lengths: new Int32Array(G) },
        adv.kernel.advantages,
        {
          clipEps: 0.2,
          beta: 0.1,
          aggregation: "seq-mean-token-mean",
          lr: 0,
          temperature: tau,
        },
      );
      expect(stats.clipFrac).toBe(0);
      expect(Math.abs(stats.kl)).toBeLessThan(1e-6);
      const advantages = Array.from(await adv.kernel.readAdvantages());
      const refBatch = { B: G, textLen: L, images: batch.images, tokens, padId: -1 };
      const lp = tokenStats(
        referenceForward(TINY, params, refBatch).logits.map((z) => z / tau),
        tokens,
        G,
        L,
        TINY.vocabSize,
      ).logprobs;
      const ref = referencePolicy(TINY, params, refBatch, {
        advantages,
        oldLogprobs: lp,
        refLogprobs: lp,
        mask: batch.mask,
        clipEps: 0.2,
        beta: 0.1,
        aggregation: "seq-mean-token-mean",
        normLength: L - promptLen,
        temperature: tau,
      });
      expect(stats.loss).toBeCloseTo(ref.loss, 5);
      expect(stats.entropy).toBeCloseTo(ref.entropy, 4);
    },
  );
});
