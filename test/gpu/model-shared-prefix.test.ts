/**
 * The shared-prefix policy update (TrainGraphOptions.sharedPrefix, the
 * prefix layout of src/layout/prefix-layout.ts) against the unshared paths:
 * the whole graph on the GPU (every rollout on its own) and the f64 CPU
 * reference (src/model/reference.ts referencePolicy). Loss, KL, clip
 * fraction, entropy, every masked token's logprob and every parameter
 * gradient must agree within 1e-5 relative: values against the value's own
 * size, gradients against the size of their tensor's largest element (a
 * gradient that sums over rows has elements near 0 whose relative error
 * means nothing). Sizes: groups of 3, G = 1, one group of every rollout,
 * responses of unequal length right-padded, prompts left-padded per group,
 * a text window; a batch whose images differ within a group runs unshared.
 * A kv pass that leaves one rollout out of a prefix key's sum fails it.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { numPatches, paramLayout, SMALL_CONFIG, type ModelConfig } from "../../src/model/config";
import { TrainGraph } from "../../src/model/graph";
import { initParams, seededUniform } from "../../src/model/init";
import { referencePolicy, tokenStats } from "../../src/model/reference";
import { TINY } from "../model/tiny";

const PAD = 0;
const TOL = 1e-5;

/**
 * A batch of nG groups of G rollouts of L text tokens: group g's image and
 * prompt (promptLen columns, g + 1 leading PADs) in each of its rows; row
 * b's response of its own length (EOS-like last token, then PAD, out of the
 * mask); mask 1 on the response tokens.
 */
function groupBatch(
  config: ModelConfig,
  nG: number,
  G: number,
  L: number,
  promptLen: number,
  seed: number,
) {
  const u = seededUniform(seed);
  const B = nG * G;
  const V = config.vocabSize;
  const pixels = config.imageHeight * config.imageWidth * config.imageChannels;
  const images = new Float32Array(B * pixels);
  const tokens = new Int32Array(B * L).fill(PAD);
  const mask = new Float32Array(B * L);
  for (let g = 0; g < nG; g++) {
    const img = Float32Array.from({ length: pixels }, () => u());
    const prompt = Array.from({ length: promptLen }, (_, s) =>
      s <= g % (promptLen - 1) ? PAD : 2 + Math.floor(u() * (V - 2)),
    );
    for (let k = 0; k < G; k++) {
      const b = g * G + k;
      images.set(img, b * pixels);
      prompt.forEach((id, s) => {
        tokens[b * L + s] = id;
      });
      const len = Math.max(1, L - promptLen - ((b * 5) % 4));
      for (let s = 0; s < len; s++) {
        tokens[b * L + promptLen + s] = 2 + Math.floor(u() * (V - 2));
        mask[b * L + promptLen + s] = 1;
      }
    }
  }
  return { B, textLen: L, images, tokens, mask, padId: PAD };
}

/** |a − b| ≤ TOL·|b| (+ a floor for values that are 0 by construction). */
function expectRel(name: string, got: number, want: number) {
  expect(Math.abs(got - want), `${name}: ${got} vs ${want}`).toBeLessThanOrEqual(
    TOL * Math.abs(want) + 1e-9,
  );
}

/** Every tensor of `got` within `tol` of `want` relative to the tensor's largest |element|. */
function expectGrads(
  config: ModelConfig,
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  tol = TOL,
) {
  let worst = 0;
  let where = "";
  for (const t of paramLayout(config).tensors) {
    let scale = 0;
    for (let i = t.offset; i < t.offset + t.size; i++) scale = Math.max(scale, Math.abs(want[i]));
    expect(scale, `gradient of ${t.name} is not all zero`).toBeGreaterThan(0);
    for (let i = t.offset; i < t.offset + t.size; i++) {
      const err = Math.abs(got[i] - want[i]) / scale;
      if (!(err <= worst)) {
        worst = err;
        where = `${t.name}[${i - t.offset}]: ${got[i]} vs ${want[i]} (scale ${scale})`;
      }
    }
  }
  expect(worst, `largest gradient error ${where}`).toBeLessThanOrEqual(tol);
}

describe("shared-prefix update (TrainGraph sharedPrefix)", () => {
  const gpu = useGpu();

  /** The policy step on `batch` with a graph built by `make`: stats, masked logprobs and gradients. */
  async function policyStep(
    config: ModelConfig,
    batch: ReturnType<typeof groupBatch>,
    params: Float32Array,
    opts: { sharedPrefix?: number; window?: { start: number; len: number } },
    broken = false,
  ) {
    const { B, textLen: L } = batch;
    const n = paramLayout(config).totalFloats;
    const pb = gpu.ctx.createBufferFrom("params", params);
    const grads = gpu.ctx.createBuffer("grads", n * 4);
    const win = opts.window ?? { start: 0, len: L };
    const slice = <T extends Int32Array | Float32Array>(a: T): T => {
      const out = new (a.constructor as new (k: number) => T)(B * win.len);
      for (let b = 0; b < B; b++)
        out.set(a.subarray(b * L + win.start, b * L + win.start + win.len), b * win.len);
      return out;
    };
    const graph = new TrainGraph(gpu.ctx, config, B, win.len, {
      padId: PAD,
      params: pb,
      grads,
      compactLastLayer: opts.sharedPrefix !== undefined,
      sharedPrefix: opts.sharedPrefix,
    });
    if (broken)
      for (const c of graph.dispatches().backward)
        if (c.kernel.name.startsWith("attention_prefix.bkv"))
          (c as unknown as { set(v: { sumG: number }): void }).set({
            sumG: opts.sharedPrefix! - 1,
          });
    graph.setTextOffset(win.start);
    graph.setBatch({ images: batch.images, tokens: slice(batch.tokens), mask: slice(batch.mask) });
    const u = seededUniform(77);
    const refLp = graph.forwardLogprobs(graph.params, gpu.ctx.createBuffer("ref", B * win.len * 4));
    const lpNow = await gpu.ctx.readF32(refLp, 0, B * win.len);
    const refLogprobs = Float32Array.from(lpNow, (x) => x + (u() - 0.5) * 0.4);
    const oldLogprobs = Float32Array.from(lpNow, (x) => x + (u() - 0.5) * 0.6);
    const advantages = Float32Array.from({ length: B }, (_, b) => Math.sin(b + 1));
    const step = { advantages, refLogprobs, oldLogprobs, beta: 0.05, clipEps: 0.2 };
    graph.policyForwardBackward(step);
    const stats = await graph.readStats();
    return {
      graph,
      stats,
      lp: lpNow,
      grads: await gpu.ctx.readF32(grads, 0, n),
      step,
      win,
    };
  }

  const tinyCases = [
    { nG: 2, G: 3, L: 8, promptLen: 4 },
    { nG: 3, G: 1, L: 8, promptLen: 3 }, // G = 1: every rollout its own prefix
    { nG: 1, G: 4, L: 7, promptLen: 4 }, // one group of every rollout
  ];

  it.each(tinyCases)(
    "equals the unshared GPU graph and the CPU reference on the tiny model %o",
    async ({ nG, G, L, promptLen }) => {
      const config = TINY;
      const P = numPatches(config);
      const params = initParams(config, 5).map((x, i) => x * 8 + 0.02 * Math.sin(i));
      const batch = groupBatch(config, nG, G, L, promptLen, 11 + G);
      const shared = await policyStep(config, batch, params, { sharedPrefix: G });
      const plain = await policyStep(config, batch, params, {});
      // The group shares its patches and all but the last prompt column.
      expect(shared.graph.prefix!.S).toBe(P + promptLen - 1);
      expect(shared.graph.prefix!.rows).toBe(
        nG * (P + promptLen - 1) + nG * G * (L - promptLen + 1),
      );
      const ref = referencePolicy(config, params, batch, {
        ...plain.step,
        mask: batch.mask,
        aggregation: "seq-mean-token-mean",
        normLength: L - 1,
      });
      const refLp = tokenStats(ref.logits, batch.tokens, batch.B, L, config.vocabSize).logprobs;
      for (const [name, a, b] of [
        ["loss", shared.stats.loss, plain.stats.loss],
        ["kl", shared.stats.kl, plain.stats.kl],
        ["entropy", shared.stats.entropy, plain.stats.entropy],
        ["clipFrac", shared.stats.clipFrac, plain.stats.clipFrac],
      ] as const)
        expectRel(`${name} (shared vs unshared GPU)`, a, b);
      // Against the f64 reference both f32 paths carry the same rounding: the shared one is held to the
      // bounds the unshared graph meets in test/gpu/model-train.test.ts (KL sums near-cancelling terms).
      for (const [name, a, b] of [
        ["loss", shared.stats.loss, ref.loss],
        ["kl", shared.stats.kl, ref.kl],
        ["entropy", shared.stats.entropy, ref.entropy],
      ] as const)
        expect(Math.abs(a - b), `${name} (shared vs CPU): ${a} vs ${b}`).toBeLessThanOrEqual(5e-6);
      expect(shared.stats.tokens).toBe(plain.stats.tokens);
      for (let i = 0; i < batch.mask.length; i++) {
        if (!batch.mask[i] || i % L === 0) continue;
        expectRel(`logprob ${i} (shared vs unshared GPU)`, shared.lp[i], plain.lp[i]);
        expect(
          Math.abs(shared.lp[i] - refLp[i]),
          `logprob ${i} (shared vs CPU)`,
        ).toBeLessThanOrEqual(1e-5 + 1e-4 * Math.abs(refLp[i]));
      }
      expectGrads(config, shared.grads, plain.grads);
      expectGrads(config, shared.grads, ref.grads, 2e-4);
    },
  );

  it("a batch whose images differ within a group runs unshared, with the same results", async () => {
    const config = TINY;
    const params = initParams(config, 6).map((x) => x * 8);
    const batch = groupBatch(config, 2, 2, 8, 3, 21);
    batch.images[batch.images.length - 1] += 0.5; // the last rollout's image differs from its group's
    const shared = await policyStep(config, batch, params, { sharedPrefix: 2 });
    const plain = await policyStep(config, batch, params, {});
    expect(shared.graph.prefix!.S).toBe(0);
    expectRel("loss", shared.stats.loss, plain.stats.loss);
    expectGrads(config, shared.grads, plain.grads);
  });

  it("on the small model with 4 groups of 8 in a text window equals the unshared graph; a kv pass that drops one rollout from the sum does not", async () => {
    const config = SMALL_CONFIG;
    const params = initParams(config, 7);
    const batch = groupBatch(config, 4, 8, 40, 16, 31);
    const window = { start: 3, len: 36 };
    const shared = await policyStep(config, batch, params, { sharedPrefix: 8, window });
    const plain = await policyStep(config, batch, params, { window });
    const P = numPatches(config);
    expect(shared.graph.prefix!.S).toBe(P + 16 - 3 - 1);
    expectRel("loss", shared.stats.loss, plain.stats.loss);
    expectRel("kl", shared.stats.kl, plain.stats.kl);
    expectRel("entropy", shared.stats.entropy, plain.stats.entropy);
    for (let i = 0; i < shared.lp.length; i++) {
      const b = Math.floor(i / window.len);
      const s = i % window.len;
      if (s > 0 && batch.mask[b * 40 + window.start + s])
        expectRel(`logprob ${b},${s}`, shared.lp[i], plain.lp[i]);
    }
    expectGrads(config, shared.grads, plain.grads);
    const broken = await policyStep(config, batch, params, { sharedPrefix: 8, window }, true);
    expectRel("loss (the forward is not touched)", broken.stats.loss, plain.stats.loss);
    expect(() => expectGrads(config, broken.grads, plain.grads)).toThrow(/largest gradient error/);
  });
});
