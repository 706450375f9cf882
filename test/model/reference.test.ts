// The CPU reference itself: its analytic f64 backward agrees with central
// finite differences, the PAD key mask and causality hold, and shapes/ids are checked.
import { describe, expect, it } from "vitest";
import { numPatches, paramLayout } from "../../src/model/config";
import { initParams, seededUniform } from "../../src/model/init";
import {
  logSoftmaxForward,
  policyLoss,
  referenceForward,
  referencePolicy,
  referenceSft,
  sftLoss,
  tokenStats,
  type PolicyLossInputs,
} from "../../src/model/reference";
import { PAD, TINY, tinyBatch } from "./tiny";

const L = 6;
const B = 2;

/** Params with non-trivial LayerNorm gains/biases so every gradient path is exercised. */
function richParams(seed: number): Float64Array {
  const p = Float64Array.from(initParams(TINY, seed));
  const u = seededUniform(seed + 1);
  for (const t of paramLayout(TINY).tensors) {
    for (let i = 0; i < t.size; i++) {
      if (t.name.endsWith(".g")) p[t.offset + i] = 1 + 0.3 * (u() - 0.5);
      else if (/\.(b|bqkv|bo|bfc|bproj)$/.test(t.name)) p[t.offset + i] = 0.1 * (u() - 0.5);
      else p[t.offset + i] *= 10; // 0.2-scale weights: attention is not uniform
    }
  }
  return p;
}

function policyInputs(
  seed: number,
  batch: ReturnType<typeof tinyBatch>,
  logprobs: Float64Array,
  beta: number,
): PolicyLossInputs {
  const u = seededUniform(seed);
  // old logprobs near the current ones so some ratios fall inside and some outside [1−ε, 1+ε]
  const oldLogprobs = Float64Array.from(logprobs, (lp) => lp + (u() - 0.5) * 0.8);
  const refLogprobs = Float64Array.from(logprobs, (lp) => lp + (u() - 0.5) * 1.0);
  return {
    advantages: [0.7, -1.3],
    oldLogprobs,
    refLogprobs,
    mask: batch.mask,
    clipEps: 0.2,
    beta,
    aggregation: "seq-mean-token-mean",
    normLength: L - 1,
  };
}

describe("CPU reference model", () => {
  const batch = tinyBatch(TINY, B, L, 3, 7);
  const params = richParams(3);
  const layout = paramLayout(TINY);

  it("gives logits of shape [B, L, V], finite, and rejects bad inputs", () => {
    const { logits } = referenceForward(TINY, params, batch);
    expect(logits.length).toBe(B * L * TINY.vocabSize);
    expect(logits.every(Number.isFinite)).toBe(true);
    expect(() =>
      referenceForward(TINY, params, { ...batch, tokens: Int32Array.from(batch.tokens, () => 99) }),
    ).toThrow(/outside/);
    expect(() =>
      referenceForward(TINY, params, { ...batch, textLen: 20, tokens: new Int32Array(B * 20) }),
    ).toThrow(/maxSeqLen/);
  });

  it("is causal: changing the last token leaves earlier logits unchanged", () => {
    const a = referenceForward(TINY, params, batch).logits;
    const tokens = Int32Array.from(batch.tokens);
    tokens[L - 1] = (tokens[L - 1] + 1) % TINY.vocabSize || 2;
    const b = referenceForward(TINY, params, { ...batch, tokens }).logits;
    const V = TINY.vocabSize;
    for (let i = 0; i < (L - 1) * V; i++) expect(b[i]).toBe(a[i]);
    expect(b.slice((L - 1) * V, L * V)).not.toEqual(a.slice((L - 1) * V, L * V));
  });

  it("masks PAD keys: the PAD embedding only reaches PAD rows", () => {
    const a = referenceForward(TINY, params, batch).logits;
    const p2 = Float64Array.from(params);
    const wte = layout.byName.get("wte")!;
    for (let c = 0; c < TINY.dModel; c++) p2[wte.offset + PAD * TINY.dModel + c] += 0.5;
    const b = referenceForward(TINY, p2, batch).logits;
    const V = TINY.vocabSize;
    for (let r = 0; r < B * L; r++) {
      const isPad = batch.tokens[r] === PAD;
      const same = a.slice(r * V, (r + 1) * V).every((x, i) => x === b[r * V + i]);
      expect(same, `row ${r} (pad ${isPad})`).toBe(!isPad);
    }
  });

  /** Central finite differences of `lossOf` at a few coordinates of every tensor. */
  function checkFiniteDiff(lossOf: (p: Float64Array) => number, grads: Float64Array) {
    const u = seededUniform(11);
    const h = 1e-5;
    let checked = 0;
    for (const t of layout.tensors) {
      for (let k = 0; k < 3; k++) {
        const i = t.offset + Math.floor(u() * t.size);
        const p = Float64Array.from(params);
        p[i] += h;
        const lp = lossOf(p);
        p[i] -= 2 * h;
        const lm = lossOf(p);
        const fd = (lp - lm) / (2 * h);
        expect(
          Math.abs(fd - grads[i]),
          `${t.name}[${i - t.offset}] fd ${fd} analytic ${grads[i]}`,
        ).toBeLessThanOrEqual(1e-7 + 1e-5 * Math.abs(fd));
        checked++;
      }
    }
    return checked;
  }

  it("SFT backward matches central finite differences on every tensor", () => {
    const { grads } = referenceSft(TINY, params, batch, batch.mask);
    const n = checkFiniteDiff((p) => referenceSft(TINY, p, batch, batch.mask).loss, grads);
    expect(n).toBe(layout.tensors.length * 3);
    // gradients into real parameters are not all zero, the padding is
    expect(grads.some((g) => g !== 0)).toBe(true);
  });

  it("policy-loss backward (β > 0, clipped and unclipped ratios) matches finite differences", () => {
    const { logits } = referenceForward(TINY, params, batch);
    const lp = sftLoss(logits, batch.tokens, batch.mask, B, L, TINY.vocabSize).logprobs;
    const inputs = policyInputs(5, batch, lp, 0.1);
    const r = referencePolicy(TINY, params, batch, inputs);
    expect(r.clipFrac).toBeGreaterThan(0);
    expect(r.clipFrac).toBeLessThan(1);
    expect(r.kl).toBeGreaterThan(0);
    checkFiniteDiff(
      (p) =>
        policyLoss(
          referenceForward(TINY, p, batch).logits,
          batch.tokens,
          inputs,
          B,
          L,
          TINY.vocabSize,
        ).loss,
      r.grads,
    );
  });

  it("log-softmax rows exponentiate to 1 and agree with the token logprobs", () => {
    const { logits } = referenceForward(TINY, params, batch);
    const V = TINY.vocabSize;
    const ls = new Float64Array(logits.length);
    logSoftmaxForward(ls, logits, B * L, V);
    const lp = tokenStats(logits, batch.tokens, B, L, V).logprobs;
    for (let r = 0; r < B * L; r++) {
      let s = 0;
      for (let v = 0; v < V; v++) s += Math.exp(ls[r * V + v]);
      expect(s).toBeCloseTo(1, 12);
      if (r % L !== L - 1) expect(ls[r * V + batch.tokens[r + 1]]).toBeCloseTo(lp[r + 1], 12);
    }
  });

  it("the policy loss aggregations weight tokens as documented", () => {
    // logits all zero: logπ = −log V everywhere, entropy log V
    const V = TINY.vocabSize;
    const logits = new Float64Array(B * L * V);
    const lp = -Math.log(V);
    const mask = new Float32Array(B * L);
    mask.set([0, 0, 0, 1, 1, 1], 0); // 3 tokens in row 0
    mask.set([0, 0, 0, 0, 0, 1], L); // 1 token in row 1
    const base = {
      advantages: [1, 3],
      oldLogprobs: new Float64Array(B * L).fill(lp),
      refLogprobs: new Float64Array(B * L).fill(lp),
      mask,
      clipEps: 0.2,
      beta: 0,
      normLength: 5,
    };
    // ρ = 1 everywhere: ℓ = −A per token
    const smtm = policyLoss(
      logits,
      batch.tokens,
      { ...base, aggregation: "seq-mean-token-mean" },
      B,
      L,
      V,
    );
    expect(smtm.loss).toBeCloseTo(-(1 + 3) / 2, 12);
    const tm = policyLoss(logits, batch.tokens, { ...base, aggregation: "token-mean" }, B, L, V);
    expect(tm.loss).toBeCloseTo(-(3 * 1 + 3) / 4, 12);
    const drg = policyLoss(
      logits,
      batch.tokens,
      { ...base, aggregation: "seq-mean-token-sum-norm" },
      B,
      L,
      V,
    );
    expect(drg.loss).toBeCloseTo(-(3 * 1 + 3) / (2 * 5), 12);
    expect(smtm.entropy).toBeCloseTo(Math.log(V), 12);
    expect(smtm.kl).toBe(0);
    expect(smtm.clipFrac).toBe(0);
    // numPatches sanity for the fixture
    expect(numPatches(TINY)).toBe(4);
  });
});
