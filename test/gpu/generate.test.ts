/**
 * Generator (src/model/generate.ts) end to end on a tiny model:
 * KV-cache greedy decoding equals full recomputation by the f64 CPU reference,
 * logprobs match its log-softmax, EOS/PAD handling, forced prefixes, seeds,
 * per-sequence independence, clear errors, and no allocations per batch.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { numPatches } from "../../src/model/config";
import { Generator, type GenerateResult } from "../../src/model/generate";
import { referenceForward } from "../../src/model/reference";
import { logSoftmaxRow, randomImages, randomParams, TINY } from "./generate-helpers";

const cfg = TINY;
const V = cfg.vocabSize;
const PAD = 0;
const N = 4;
const PROMPT = 5;
const MAXNEW = 8;

/** Prompts [N, PROMPT] left-padded with PAD to different lengths. */
function prompts(): Int32Array {
  const rows = [
    [PAD, PAD, 3, 4, 5],
    [6, 7, 8, 9, 10],
    [PAD, PAD, PAD, PAD, 11],
    [PAD, 2, 12, 13, 1],
  ];
  return Int32Array.from(rows.flat());
}

/** Full text [N, PROMPT + M] = prompt then the generated tokens (PAD after EOS). */
function fullText(promptTokens: Int32Array, r: GenerateResult, M: number): Int32Array {
  const out = new Int32Array(N * (PROMPT + M));
  for (let s = 0; s < N; s++) {
    out.set(promptTokens.subarray(s * PROMPT, (s + 1) * PROMPT), s * (PROMPT + M));
    out.set(r.tokens.subarray(s * M, (s + 1) * M), s * (PROMPT + M) + PROMPT);
  }
  return out;
}

describe("Generator", () => {
  const gpu = useGpu();
  let gen: Generator;
  let paramsBuf: GPUBuffer;
  const params = randomParams(cfg, 7);
  const images = randomImages(cfg, N, 11);
  const promptTokens = prompts();
  beforeAll(async () => {
    gen = new Generator(gpu.ctx, cfg, N, PROMPT, MAXNEW);
    paramsBuf = gpu.ctx.createBufferFrom("test.params", params);
  });

  const base = () => ({ paramsBuf, images, promptTokens, seed: 1, eosId: V - 1, padId: PAD });

  it("greedy with the KV cache equals greedy by full recomputation (f64 reference), logprobs included", async () => {
    const first = await gen.generate({ ...base(), greedy: true, eosId: V - 1 });
    // Choose an EOS that sequence 0 emits at step 2 or earlier, so EOS handling is exercised.
    const eos = first.tokens[2];
    const r = await gen.generate({ ...base(), greedy: true, eosId: eos });
    const L = PROMPT + MAXNEW;
    const text = fullText(promptTokens, r, MAXNEW);
    const ref = referenceForward(cfg, params, {
      B: N,
      textLen: L,
      images,
      tokens: text,
      padId: PAD,
    }).logits;
    let checked = 0;
    for (let s = 0; s < N; s++) {
      const len = r.lengths[s];
      const eosAt = Array.from(r.tokens.subarray(s * MAXNEW, (s + 1) * MAXNEW)).indexOf(eos);
      expect(len).toBe(eosAt < 0 ? MAXNEW : eosAt + 1);
      for (let t = 0; t < MAXNEW; t++) {
        const tok = r.tokens[s * MAXNEW + t];
        const lp = r.logprobs[s * MAXNEW + t];
        if (t >= len) {
          expect(tok).toBe(PAD);
          expect(lp).toBe(0);
          continue;
        }
        const row = s * L + PROMPT - 1 + t; // logits at text position PROMPT-1+t predict token t
        const ls = logSoftmaxRow(ref, row, V);
        const sorted = Array.from(ls).sort((a, b) => b - a);
        expect(sorted[0] - sorted[1]).toBeGreaterThan(1e-3); // decisive, so argmax is well defined
        expect(ls[tok]).toBe(sorted[0]); // greedy picked the reference argmax
        expect(Math.abs(lp - ls[tok])).toBeLessThan(1e-4 + 1e-4 * Math.abs(ls[tok]));
        checked++;
      }
    }
    expect(r.lengths[0]).toBeLessThanOrEqual(3);
    expect(checked).toBeGreaterThan(N * 3);
    // The tokens before EOS do not depend on the EOS id.
    for (let t = 0; t < r.lengths[0]; t++) expect(r.tokens[t]).toBe(first.tokens[t]);
  });

  it("sampled logprobs equal log softmax(logits/T) of the reference when no filter is on", async () => {
    const T = 0.8;
    const r = await gen.generate({ ...base(), temperature: T, seed: 99 });
    const L = PROMPT + MAXNEW;
    const ref = referenceForward(cfg, params, {
      B: N,
      textLen: L,
      images,
      tokens: fullText(promptTokens, r, MAXNEW),
      padId: PAD,
    }).logits;
    for (let s = 0; s < N; s++) {
      for (let t = 0; t < r.lengths[s]; t++) {
        const ls = logSoftmaxRow(ref, s * L + PROMPT - 1 + t, V, T);
        const tok = r.tokens[s * MAXNEW + t];
        expect(Math.abs(r.logprobs[s * MAXNEW + t] - ls[tok])).toBeLessThan(
          1e-4 + 1e-4 * Math.abs(ls[tok]),
        );
      }
    }
  });

  it("the same seed gives the same tokens; different seeds differ", async () => {
    const a = await gen.generate({ ...base(), seed: 5 });
    const b = await gen.generate({ ...base(), seed: 5 });
    const c = await gen.generate({ ...base(), seed: 6 });
    expect(Array.from(b.tokens)).toEqual(Array.from(a.tokens));
    expect(Array.from(b.logprobs)).toEqual(Array.from(a.logprobs));
    expect(Array.from(c.tokens)).not.toEqual(Array.from(a.tokens));
  });

  it("a forced prefix is reproduced and sampling continues exactly as if those tokens had been sampled", async () => {
    const free = await gen.generate({ ...base(), seed: 21 });
    const k = 3;
    const prefix = [
      Array.from(free.tokens.subarray(0, k)),
      null,
      Array.from(free.tokens.subarray(2 * MAXNEW, 2 * MAXNEW + 2)),
      [],
    ];
    const forced = await gen.generate({
      ...base(),
      seed: 21,
      forcedPrefix: prefix,
      forced: "step",
    });
    expect(Array.from(forced.tokens)).toEqual(Array.from(free.tokens));
    for (let i = 0; i < N * MAXNEW; i++)
      expect(forced.logprobs[i]).toBeCloseTo(free.logprobs[i], 5);
    // Prefilled (the default): the same tokens; the prefilled tokens' logprobs are not computed.
    const pre = await gen.generate({ ...base(), seed: 21, forcedPrefix: prefix });
    expect(Array.from(pre.tokens)).toEqual(Array.from(free.tokens));
    expect(Array.from(pre.lengths)).toEqual(Array.from(free.lengths));
    prefix.forEach((p, s) => {
      for (let t = 0; t < MAXNEW; t++) {
        const i = s * MAXNEW + t;
        if (t < (p?.length ?? 0)) expect(pre.logprobs[i]).toBeNaN();
        else expect(pre.logprobs[i]).toBeCloseTo(free.logprobs[i], 5);
      }
    });
    // A prefix the model would not have produced: reproduced verbatim, its logprobs
    // are log softmax(logits/T) unfiltered even with top-k on.
    const odd = [[1, 2, 3], [4], null, [5, 6, 7, 8]];
    const T = 1.3;
    const r = await gen.generate({
      ...base(),
      seed: 3,
      temperature: T,
      topK: 2,
      forcedPrefix: odd,
      forced: "step",
    });
    const L = PROMPT + MAXNEW;
    const ref = referenceForward(cfg, params, {
      B: N,
      textLen: L,
      images,
      tokens: fullText(promptTokens, r, MAXNEW),
      padId: PAD,
    }).logits;
    odd.forEach((pre, s) => {
      (pre ?? []).forEach((tok, t) => {
        expect(r.tokens[s * MAXNEW + t]).toBe(tok);
        const ls = logSoftmaxRow(ref, s * L + PROMPT - 1 + t, V, T);
        expect(Math.abs(r.logprobs[s * MAXNEW + t] - ls[tok])).toBeLessThan(
          1e-4 + 1e-4 * Math.abs(ls[tok]),
        );
      });
    });
  });

  it("the batched prefill of forced prefixes gives the same tokens as forcing them one decode step at a time", async () => {
    // Forced prefixes of every kind: long, none, one with an EOS inside (prefilled up to it),
    // and the whole response (prefilled up to maxNew − 1, the last column forced by the sampler).
    const eos = V - 1;
    const prefixes = [[3, 5, 7, 9, 2], null, [4, 6, eos, 8], [1, 2, 3, 4, 5, 6, 7, 8]];
    for (const o of [{ seed: 12 }, { seed: 13, topK: 5, temperature: 0.7 }, { greedy: true }]) {
      const opts = { ...base(), eosId: eos, forcedPrefix: prefixes, ...o };
      const step = await gen.generate({ ...opts, forced: "step" });
      expect(gen.lastPlan!.forced).toBe(0);
      const pre = await gen.generate(opts);
      expect(Array.from(gen.lastPlan!.prefilled)).toEqual([5, 0, 2, MAXNEW - 1]);
      expect(Array.from(pre.tokens)).toEqual(Array.from(step.tokens));
      expect(Array.from(pre.lengths)).toEqual(Array.from(step.lengths));
      expect(pre.lengths[2]).toBe(3); // the forced EOS ends sequence 2
      prefixes.forEach((_, s) => {
        for (let t = gen.lastPlan!.prefilled[s]; t < MAXNEW; t++)
          expect(pre.logprobs[s * MAXNEW + t]).toBe(step.logprobs[s * MAXNEW + t]);
      });
    }
    // Every sequence forced far enough: the decode steps start at the shortest prefilled count.
    const long = [0, 1, 2, 3].map((s) => [2 + s, 3, 4, 5, 6, 7].slice(0, 4 + (s % 2)));
    const a = await gen.generate({ ...base(), seed: 30, forcedPrefix: long, forced: "step" });
    const b = await gen.generate({ ...base(), seed: 30, forcedPrefix: long });
    expect(Array.from(b.tokens)).toEqual(Array.from(a.tokens));
    expect(gen.lastRun.steps).toBeLessThanOrEqual(MAXNEW - 4);
  });

  it("stops after the steps every sequence needs, in the same tokens as running all of them", async () => {
    const eos = V - 1;
    // Every sequence ends at column 3 (a forced EOS, run as decode steps): 4 steps needed.
    const ending = Array.from({ length: N }, (_, s) => [2 + s, 3, 4, eos]);
    const opts = { ...base(), seed: 40, eosId: eos, forcedPrefix: ending, forced: "step" as const };
    const fresh = new Generator(gpu.ctx, cfg, N, PROMPT, MAXNEW);
    const all = await fresh.generate(opts);
    expect(fresh.lastRun).toEqual({ steps: MAXNEW, readbacks: 1 });
    expect(Array.from(all.lengths)).toEqual([4, 4, 4, 4]);
    // The next batch of this maxNew runs as many steps as the last one needed, plus a margin.
    const again = await fresh.generate(opts);
    expect(Array.from(again.tokens)).toEqual(Array.from(all.tokens));
    expect(fresh.lastRun).toEqual({ steps: 4 + 2, readbacks: 1 });
    // A batch that needs more steps than that gets them in a second chunk, in the tokens of one run.
    const other = await fresh.generate({ ...base(), seed: 41, eosId: eos });
    const ref = await new Generator(gpu.ctx, cfg, N, PROMPT, MAXNEW).generate({
      ...base(),
      seed: 41,
      eosId: eos,
    });
    expect(Math.max(...ref.lengths)).toBeGreaterThan(4 + 2);
    expect(fresh.lastRun).toEqual({ steps: MAXNEW, readbacks: 2 });
    expect(Array.from(other.tokens)).toEqual(Array.from(ref.tokens));
    expect(Array.from(other.logprobs)).toEqual(Array.from(ref.logprobs));
    expect(Array.from(other.lengths)).toEqual(Array.from(ref.lengths));
    // The columns no step reached are PAD, whatever its id (here 1).
    const pad1 = { ...opts, padId: 1 };
    const full1 = await new Generator(gpu.ctx, cfg, N, PROMPT, MAXNEW).generate(pad1);
    await fresh.generate(pad1);
    const early1 = await fresh.generate(pad1);
    expect(fresh.lastRun.steps).toBeLessThan(MAXNEW);
    expect(Array.from(early1.tokens)).toEqual(Array.from(full1.tokens));
    expect(early1.tokens[MAXNEW - 1]).toBe(1);
  });

  it("greedy after a forced prefix equals greedy with the prefix appended to the prompt", async () => {
    const pre = [9, 4, 2];
    const r = await gen.generate({ ...base(), greedy: true, forcedPrefix: [pre, pre, pre, pre] });
    const P2 = PROMPT + pre.length;
    const gen2 = new Generator(gpu.ctx, cfg, N, P2, MAXNEW - pre.length);
    const p2 = new Int32Array(N * P2);
    for (let s = 0; s < N; s++) {
      p2.set(promptTokens.subarray(s * PROMPT, (s + 1) * PROMPT), s * P2);
      p2.set(pre, s * P2 + PROMPT);
    }
    const r2 = await gen2.generate({ ...base(), promptTokens: p2, greedy: true });
    const M2 = MAXNEW - pre.length;
    for (let s = 0; s < N; s++) {
      expect(Array.from(r.tokens.subarray(s * MAXNEW, s * MAXNEW + 3))).toEqual(pre);
      expect(Array.from(r.tokens.subarray(s * MAXNEW + 3, (s + 1) * MAXNEW))).toEqual(
        Array.from(r2.tokens.subarray(s * M2, (s + 1) * M2)),
      );
    }
  });

  it("each sequence depends only on its own image and prompt", async () => {
    const perm = [2, 0, 3, 1];
    const pix = images.length / N;
    const imgs2 = new Float32Array(images.length);
    const pr2 = new Int32Array(promptTokens.length);
    perm.forEach((src, dst) => {
      imgs2.set(images.subarray(src * pix, (src + 1) * pix), dst * pix);
      pr2.set(promptTokens.subarray(src * PROMPT, (src + 1) * PROMPT), dst * PROMPT);
    });
    const a = await gen.generate({ ...base(), greedy: true });
    const b = await gen.generate({ ...base(), greedy: true, images: imgs2, promptTokens: pr2 });
    perm.forEach((src, dst) => {
      expect(Array.from(b.tokens.subarray(dst * MAXNEW, (dst + 1) * MAXNEW))).toEqual(
        Array.from(a.tokens.subarray(src * MAXNEW, (src + 1) * MAXNEW)),
      );
      expect(b.lengths[dst]).toBe(a.lengths[src]);
    });
    // Sampling: changing the other sequences' images and prompts leaves sequence 0 unchanged.
    const c = await gen.generate({ ...base(), seed: 8 });
    const imgs3 = Float32Array.from(images, (v, i) => (i < pix ? v : 1 - v));
    const pr3 = Int32Array.from(promptTokens, (v, i) => (i < PROMPT ? v : (v + 1) % V));
    const d = await gen.generate({ ...base(), seed: 8, images: imgs3, promptTokens: pr3 });
    expect(Array.from(d.tokens.subarray(0, MAXNEW))).toEqual(
      Array.from(c.tokens.subarray(0, MAXNEW)),
    );
  });

  it("shared-prompt groups (groupSize 2) give exactly the tokens and logprobs of independent sequences", async () => {
    const pix = images.length / N;
    const gi = new Float32Array(images.length);
    const gp = new Int32Array(promptTokens.length);
    for (let s = 0; s < N; s++) {
      const src = s - (s % 2);
      gi.set(images.subarray(src * pix, (src + 1) * pix), s * pix);
      gp.set(promptTokens.subarray(src * PROMPT, (src + 1) * PROMPT), s * PROMPT);
    }
    const grouped = new Generator(gpu.ctx, cfg, N, PROMPT, MAXNEW, { groupSize: 2 });
    const forcedPrefix = [null, [5, 6], null, [1]];
    for (const o of [{ greedy: true }, { seed: 4, topK: 6 }, { seed: 9, forcedPrefix }]) {
      const a = await gen.generate({ ...base(), images: gi, promptTokens: gp, ...o });
      const b = await grouped.generate({ ...base(), images: gi, promptTokens: gp, ...o });
      expect(Array.from(b.tokens)).toEqual(Array.from(a.tokens));
      expect(Array.from(b.logprobs)).toEqual(Array.from(a.logprobs));
      expect(Array.from(b.lengths)).toEqual(Array.from(a.lengths));
    }
    // Images shared, prompts not (an option-shuffled re-ask): the patches run once per group.
    const gp2 = Int32Array.from(gp, (v, i) =>
      Math.floor(i / PROMPT) % 2 === 1 && v !== PAD ? (v % (V - 2)) + 1 : v,
    );
    for (const o of [{ greedy: true }, { seed: 5, forcedPrefix }]) {
      const a = await gen.generate({ ...base(), images: gi, promptTokens: gp2, ...o });
      const b = await grouped.generate({ ...base(), images: gi, promptTokens: gp2, ...o });
      expect(grouped.lastPlan!.shareImages && !grouped.lastPlan!.sharePrompts).toBe(true);
      expect(Array.from(b.tokens)).toEqual(Array.from(a.tokens));
      expect(Array.from(b.logprobs)).toEqual(Array.from(a.logprobs));
    }
    await expect(grouped.generate({ ...base() })).rejects.toThrow(
      /groupSize 2: the image of sequence 1 differs from sequence 0's/,
    );
    expect(() => new Generator(gpu.ctx, cfg, N, PROMPT, MAXNEW, { groupSize: 3 })).toThrow(
      /groupSize 3 must be a positive integer dividing N = 4/,
    );
  });

  it("throws clear errors for shapes beyond the constructed ones or maxSeqLen", async () => {
    const P = numPatches(cfg);
    expect(() => new Generator(gpu.ctx, cfg, N, cfg.maxSeqLen - P, 1)).toThrow(
      /exceeds config\.maxSeqLen/,
    );
    await expect(gen.generate({ ...base(), maxNew: MAXNEW + 1 })).rejects.toThrow(
      /maxNew 9 must be an integer in \[1, 8\]/,
    );
    await expect(
      gen.generate({ ...base(), promptTokens: new Int32Array(N * (PROMPT + 1)) }),
    ).rejects.toThrow(/promptTokens has 24 ids, expected N·promptLen/);
    await expect(
      gen.generate({ ...base(), maxNew: 2, forcedPrefix: [[1, 2, 3], null, null, null] }),
    ).rejects.toThrow(/forced prefix of sequence 0 has 3 tokens, more than maxNew 2/);
    await expect(
      gen.generate({ ...base(), forcedPrefix: [[V], null, null, null] }),
    ).rejects.toThrow(/forced token 14/);
    await expect(gen.generate({ ...base(), temperature: 0 })).rejects.toThrow(/temperature/);
  });

  it("allocates no GPU buffers across 100+ decode steps and reads back once per batch", async () => {
    await gen.generate({ ...base(), seed: 0 }); // warm-up (staging buffer)
    const buffers = gpu.ctx.stats.buffersCreated;
    const submits = gpu.ctx.stats.submits;
    const calls = 13;
    for (let i = 0; i < calls; i++) await gen.generate({ ...base(), seed: i, topP: 0.9, topK: 5 });
    expect(gpu.ctx.stats.buffersCreated).toBe(buffers);
    // Submits per batch: the prefill, the decode steps, the read-back copy.
    expect(gpu.ctx.stats.submits - submits).toBe(3 * calls);
  });
});
