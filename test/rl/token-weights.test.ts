// The token weights of one group (src/rl/token-weights.ts) against the CPU
// reference of the policy loss (src/kernels/loss/reference.ts, the GPU loss
// kernel's reference): coef = −dloss/dlogπ per response token, on-policy
// (ratio 1), for GRPO, RLOO and REINFORCE++ (KL folded into the reward:
// no KL term in the loss) under each aggregation.
import { describe, expect, it } from "vitest";
import { policyLoss, type PolicyAggregation } from "../../src/kernels/loss/reference";
import { groupAdvantages } from "../../src/kernels/advantages/reference";
import {
  aggregationWeight,
  groupTokenWeights,
  rolloutTokenWeights,
  type SampleTokens,
} from "../../src/rl/token-weights";
import { estimatorEntry } from "../../src/settings/estimator-table";
import { mulberry32 } from "../../src/rewards/index";
import { VOCAB } from "../../src/tasks/tokenizer";

const B = 4; // one group of 4 rollouts is the whole batch
const P = 2; // prompt positions (masked out)
const M = 5; // response positions
const L = P + M;
const V = 6;
const lengths = [5, 3, 4, 2]; // response tokens per rollout (up to and including EOS)
const rewards = [1, 0, 0.5, 1];

function batch(seed: number) {
  const rnd = mulberry32(seed);
  const logits = Float64Array.from({ length: B * L * V }, () => 2 * rnd() - 1);
  const tokens = Int32Array.from({ length: B * L }, () => Math.floor(rnd() * V));
  const refLogprobs = Float64Array.from({ length: B * L }, () => -0.5 - 2 * rnd());
  const mask = new Float64Array(B * L);
  for (let b = 0; b < B; b++) for (let s = 0; s < lengths[b]; s++) mask[b * L + P + s] = 1;
  return { logits, tokens, refLogprobs, mask };
}

describe("token weights = −dloss/dlogπ of the loss reference", () => {
  const aggs: PolicyAggregation[] = [
    "seq-mean-token-mean",
    "token-mean",
    "seq-mean-token-sum-norm",
  ];
  for (const estimator of ["grpo", "rloo", "reinforce++"] as const)
    for (const aggregation of aggs)
      it(`${estimator}, ${aggregation}`, () => {
        const { logits, tokens, refLogprobs, mask } = batch(7);
        const advantages = groupAdvantages({ rewards, groupSize: B, estimator });
        const beta = 0.04;
        const klInReward = estimatorEntry(estimator).klInReward;
        const ref = policyLoss(
          logits,
          tokens,
          {
            advantages,
            refLogprobs,
            mask,
            clipEps: 0.2,
            beta: klInReward ? 0 : beta,
            aggregation,
            normLength: M,
            temperature: 1.3,
          },
          B,
          L,
          V,
        );
        const total = lengths.reduce((a, b) => a + b, 0);
        let checked = 0;
        for (let b = 0; b < B; b++) {
          const at = (s: number) => b * L + P + s;
          const logprob = Array.from({ length: lengths[b] }, (_, s) => ref.logprobs[at(s)]);
          const w = rolloutTokenWeights({
            logprob,
            refLogprob: Array.from({ length: lengths[b] }, (_, s) => refLogprobs[at(s)]),
            advantage: advantages[b],
            weight: aggregationWeight(aggregation, B, lengths[b], total, M),
            beta,
            clipEps: 0.2,
            klInReward,
          });
          for (let s = 0; s < lengths[b]; s++) {
            expect(w.coef[s], `rollout ${b} token ${s}`).toBeCloseTo(-ref.dlogprobs[at(s)], 12);
            expect(w.coef[s]).toBeCloseTo(w.pgCoef[s] + w.klCoef[s], 14);
            expect(w.ratio[s]).toBe(1);
            expect(w.clipped[s]).toBe(false);
            if (klInReward) expect(w.klCoef[s]).toBe(0);
            else expect(w.klCoef[s]).not.toBe(0);
            checked++;
          }
        }
        expect(checked).toBe(total);
      });

  it("seq-mean-token-mean: the surrogate part is A/(B·n_b) on every token of a rollout", () => {
    const w = rolloutTokenWeights({
      logprob: [-1, -2, -0.5],
      refLogprob: [-1, -2, -0.5],
      advantage: 0.75,
      weight: aggregationWeight("seq-mean-token-mean", 8, 3, 20, 64),
      beta: 0.1,
      clipEps: 0.2,
      klInReward: false,
    });
    // 0.75 / (8 · 3) = 0.03125; logπ = logπ_ref: the k3 gradient 1 − e⁰ is 0.
    expect(w.pgCoef).toEqual([0.03125, 0.03125, 0.03125]);
    expect(w.klCoef).toEqual([0, 0, 0]);
  });
});

describe("groupTokenWeights", () => {
  it("reads a kept group: token text, only the tokens up to EOS, each rollout's advantage", () => {
    const G = 2;
    const maxNew = 4;
    const ids = (words: string[]) => words.map((w) => VOCAB.indexOf(w));
    const think = ids(["<think>", "</think>", "<eos>", "<pad>"]);
    const kept: SampleTokens = {
      prompt: { id: "p" } as SampleTokens["prompt"],
      responseIds: Int32Array.from([...think, ...think]),
      logprobs: Float32Array.from([-0.1, -0.2, -0.3, 0, -0.4, -0.5, -0.6, 0]),
      lengths: Int32Array.from([3, 2]),
      advantages: Float32Array.from([1, -1]),
      estimator: "rloo",
      beta: 0.04,
      clipEps: 0.2,
      aggregation: "token-mean",
      temperature: 1,
      batchRows: 8,
      batchTokens: 10,
      normLength: maxNew,
    };
    expect(think.every((i) => i >= 0)).toBe(true);
    const ref = Float32Array.from([-0.1, -0.2, -0.3, 0, -0.4, -0.5, -0.6, 0]);
    const out = groupTokenWeights(kept, ref, VOCAB);
    expect(out.map((r) => r.tokens)).toEqual([
      ["<think>", "</think>", "<eos>"],
      ["<think>", "</think>"],
    ]);
    // token-mean: w = 1/10; logπ = logπ_ref so no KL part: coef = ±0.1.
    expect(out[0].coef.map((c) => Number(c.toFixed(12)))).toEqual([0.1, 0.1, 0.1]);
    expect(out[1].coef.map((c) => Number(c.toFixed(12)))).toEqual([-0.1, -0.1]);
    expect(out[1].advantage).toBe(-1);
  });
});
