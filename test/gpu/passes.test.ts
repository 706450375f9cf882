/**
 * The RL step's extra generation passes (src/rl/passes.ts) on the small
 * model, CPU WebGPU adapter. The rollouts are the prompts' SFT targets (so
 * every response has a `</think>` and a known length); the passes run on a
 * randomly initialized policy, which is enough for what is checked: SCS's
 * continuations reproduce the kept prefix token for token, come back as m
 * per rollout in one read-back, and are the same for the same seed; ACRE's
 * second asks keep the trace up to `</think>` byte for byte, with the options
 * a permutation that is not the identity.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { initParams } from "../../src/model/init";
import type { GenerateResult } from "../../src/model/generate";
import { LabEngine } from "../../src/engine/lab-engine";
import { runModel } from "../../src/engine/lab-model";
import { keptTokens, optionShuffleReask, truncatedContinuations } from "../../src/rl/passes";
import { perturbImages } from "../../src/rl/perturb";
import { imageTensor, promptTensor, row, targetTensor } from "../../src/engine/sequences";
import { Generator } from "../../src/model/generate";
import { createTaskGenerator, Rng } from "../../src/tasks/index";
import { deriveSeed } from "../../src/tasks/rng";
import { reaskWithShuffledOptions } from "../../src/tasks/generator";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";
import { decodeResponse, encode, EOS_ID, PAD_ID, THINK_END_ID } from "../../src/tasks/tokenizer";

const G = 2;
const alg = { temperature: 1, topK: 0, topP: 1 };

describe("generation passes (small model, CPU WebGPU adapter)", () => {
  const gpu = useGpu();

  const tasks = createTaskGenerator({ multipleChoice: true }, { mnist: loadMnistSubsetNode() });
  const model = runModel("small", tasks, 4);
  const prompts = tasks.sampleBatch(2, new Rng(5));
  /** The SFT targets as if they were the G rollouts of each prompt. */
  const rollouts = (maxNew: number): GenerateResult => {
    const repeated = prompts.flatMap((p) => Array.from({ length: G }, () => p));
    const tokens = targetTensor(repeated, maxNew);
    const lengths = Int32Array.from(repeated, (p) => encode(p.sftTarget).length + 1);
    return { tokens, lengths, logprobs: new Float32Array(tokens.length) };
  };

  it("SCS: m continuations per rollout from the kept prefix, one read-back, seeded", async () => {
    const engine = new LabEngine(gpu.ctx, model.config, model.shape, initParams(model.config, 1));
    const policy = engine.createPolicy("p", { lr: 1e-3, weightDecay: 0, maxGradNorm: 1 });
    const { maxNew } = engine.shape;
    const gen = rollouts(maxNew);
    const settings = { k: 0.8, m: 3, sigmaMin: 0.01, sigmaMax: 0.4 };
    const before = gpu.ctx.stats.readbacks;
    const a = await truncatedContinuations(engine, policy, prompts, G, gen, settings, {
      alg,
      seed: 7,
    });
    expect(gpu.ctx.stats.readbacks - before).toBe(1);
    expect(a.result.tokens.length).toBe(prompts.length * G * 3 * maxNew);
    a.groups.forEach((g, p) => {
      expect(g.continuations!.length).toBe(G);
      for (let r = 0; r < G; r++) {
        const i = p * G + r;
        const L = gen.lengths[i] - 1; // EOS excluded
        expect(g.keptTokens![r]).toBe(keptTokens(L, 0.8));
        expect(g.keptTokens![r]).toBe(Math.floor(0.8 * L));
        expect(g.continuations![r].length).toBe(3);
        const prefix = Array.from(row(gen.tokens, i, maxNew).subarray(0, g.keptTokens![r]));
        for (let t = 0; t < 3; t++) {
          const cont = Array.from(row(a.result.tokens, i * 3 + t, maxNew));
          expect(cont.slice(0, prefix.length)).toEqual(prefix);
          expect(g.continuations![r][t]).toBe(decodeResponse(cont));
          expect(g.sigmas![r][t]).toBeGreaterThanOrEqual(0.01);
          expect(g.sigmas![r][t]).toBeLessThanOrEqual(0.4);
        }
      }
    });
    const b = await truncatedContinuations(engine, policy, prompts, G, gen, settings, {
      alg,
      seed: 7,
    });
    expect(b.result.tokens).toEqual(a.result.tokens);
    const c = await truncatedContinuations(engine, policy, prompts, G, gen, settings, {
      alg,
      seed: 8,
    });
    expect(c.result.tokens).not.toEqual(a.result.tokens);
  }, 300_000);

  it("SCS with and without noise: the prefilled (and, without noise, group-shared) continuations are token for token those of independent rows forced one step at a time", async () => {
    const engine = new LabEngine(gpu.ctx, model.config, model.shape, initParams(model.config, 4));
    const policy = engine.createPolicy("p", { lr: 1e-3, weightDecay: 0, maxGradNorm: 1 });
    const { promptLen, maxNew } = engine.shape;
    const gen = rollouts(maxNew);
    const m = 2;
    const n = prompts.length * G * m;
    const pixels = prompts[0].image.length;
    const single = new Generator(gpu.ctx, model.config, n, promptLen, maxNew);
    for (const range of [
      { sigmaMin: 0, sigmaMax: 0 },
      { sigmaMin: 0.05, sigmaMax: 0.3 },
    ]) {
      const settings = { k: 0.4, m, ...range };
      const a = await truncatedContinuations(engine, policy, prompts, G, gen, settings, {
        alg,
        seed: 9,
      });
      // The same inputs, every row on its own, forced tokens one decode step each.
      const images = perturbImages(
        imageTensor(prompts, G),
        pixels,
        m,
        range,
        deriveSeed(9, "scs-noise"),
      ).images;
      const forced = Array.from({ length: n }, (_, j) => {
        const i = Math.floor(j / m);
        const keep = keptTokens(gen.lengths[i] - 1, 0.4);
        return keep > 0 ? row(gen.tokens, i, maxNew).subarray(0, keep) : null;
      });
      const b = await single.generate({
        paramsBuf: policy.params,
        images,
        promptTokens: promptTensor(prompts, promptLen, G * m),
        forcedPrefix: forced,
        forced: "step",
        seed: deriveSeed(9, "scs"),
        eosId: EOS_ID,
        padId: PAD_ID,
      });
      expect(Array.from(a.result.tokens)).toEqual(Array.from(b.tokens));
      expect(Array.from(a.result.lengths)).toEqual(Array.from(b.lengths));
    }
  }, 300_000);

  it("ACRE: the re-ask (the group's image prefilled once, the trace in one batched pass) gives the tokens of independent rows forced one step at a time", async () => {
    const engine = new LabEngine(gpu.ctx, model.config, model.shape, initParams(model.config, 5));
    const policy = engine.createPolicy("p", { lr: 1e-3, weightDecay: 0, maxGradNorm: 1 });
    const { promptLen, maxNew } = engine.shape;
    const gen = rollouts(maxNew);
    const a = await optionShuffleReask(engine, policy, prompts, G, gen, { alg, seed: 6 });
    const n = prompts.length * G;
    const rng = new Rng(deriveSeed(6, "acre"));
    const reasked = Array.from({ length: n }, (_, i) =>
      reaskWithShuffledOptions(prompts[Math.floor(i / G)], rng),
    );
    const forced = Array.from({ length: n }, (_, i) => {
      const ids = row(gen.tokens, i, maxNew);
      return ids.subarray(0, ids.indexOf(THINK_END_ID) + 1);
    });
    const b = await new Generator(gpu.ctx, model.config, n, promptLen, maxNew).generate({
      paramsBuf: policy.params,
      images: imageTensor(prompts, G),
      promptTokens: promptTensor(
        reasked.map((r) => r.prompt),
        promptLen,
      ),
      forcedPrefix: forced,
      forced: "step",
      seed: deriveSeed(6, "acre-answer"),
      eosId: EOS_ID,
      padId: PAD_ID,
    });
    expect(Array.from(a.result.tokens)).toEqual(Array.from(b.tokens));
  }, 300_000);

  it("ACRE: the second ask keeps the trace to </think> byte for byte, options shuffled", async () => {
    const engine = new LabEngine(gpu.ctx, model.config, model.shape, initParams(model.config, 2));
    const policy = engine.createPolicy("p", { lr: 1e-3, weightDecay: 0, maxGradNorm: 1 });
    const { maxNew } = engine.shape;
    const gen = rollouts(maxNew);
    const a = await optionShuffleReask(engine, policy, prompts, G, gen, { alg, seed: 3 });
    a.groups.forEach((g, p) => {
      const prompt = prompts[p];
      for (let r = 0; r < G; r++) {
        const trace = prompt.sftTarget.slice(0, prompt.sftTarget.indexOf("</think>") + 8);
        expect(g.reask!.texts[r]!.startsWith(trace)).toBe(true);
        const opts = g.reask!.options[r];
        expect(Object.keys(opts).sort()).toEqual(Object.keys(prompt.options!).sort());
        expect(Object.values(opts).sort()).toEqual(Object.values(prompt.options!).sort());
        expect(Object.keys(opts).some((l) => opts[l] !== prompt.options![l])).toBe(true);
      }
    });
    // A rollout without </think> gets no second answer.
    const cut = rollouts(maxNew);
    cut.tokens.fill(EOS_ID, 0, maxNew);
    const b = await optionShuffleReask(engine, policy, prompts, G, cut, { alg, seed: 3 });
    expect(b.groups[0].reask!.texts[0]).toBeNull();
    expect(b.groups[0].reask!.texts[1]).not.toBeNull();
  }, 300_000);
});
