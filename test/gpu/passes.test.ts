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
import { row, targetTensor } from "../../src/engine/sequences";
import { createTaskGenerator, Rng } from "../../src/tasks/index";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";
import { decodeResponse, encode, EOS_ID } from "../../src/tasks/tokenizer";

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
