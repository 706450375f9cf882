/**
 * SCS Tab. 4's ablation arms on one fixed group (docs/reward-spec.md §4.3):
 * the same sampled rollouts of the shipped SCS cold start, cut at the same k
 * (0.8), continued m = 4 times by the full method (sampled, each its own noisy
 * image), truncation only (sampled, no noise) and perturbation only (greedy,
 * each its own noisy image). The arms' r_con differ on the same rollouts, and
 * perturbation only without noise collapses to one answer per rollout (its
 * continuations then differ through nothing). Small model, CPU WebGPU adapter.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { loadShippedCheckpoint, mnistFor } from "../../src/cli/node-run";
import { LabEngine } from "../../src/engine/lab-engine";
import { runModel } from "../../src/engine/lab-model";
import { imageTensor, promptTensor } from "../../src/engine/sequences";
import { scoreSCS } from "../../src/rewards/scs";
import { truncatedContinuations } from "../../src/rl/passes";
import type { ContinuationSettings } from "../../src/settings/variant-table";
import { presetExperiment } from "../../src/settings/presets";
import { Rng } from "../../src/tasks/index";
import { taskGeneratorFor } from "../../src/run/run-tasks";
import { decodeResponse } from "../../src/tasks/tokenizer";
import { row } from "../../src/engine/sequences";

const G = 8;
const alg = { temperature: 1, topK: 0, topP: 1 };

describe("SCS ablation arms on a fixed group (small model, shipped SCS cold start)", () => {
  const gpu = useGpu();

  it("full, truncation-only and perturbation-only give different r_con on the same rollouts", async () => {
    const exp = presetExperiment("scs-paper");
    const ckpt = loadShippedCheckpoint(exp);
    expect(ckpt, "the shipped SCS cold start is missing").not.toBeNull();
    const tasks = taskGeneratorFor(exp, mnistFor(exp));
    const model = runModel("small", tasks, 4);
    const engine = new LabEngine(gpu.ctx, ckpt!.config, model.shape, ckpt!.params);
    const policy = engine.createPolicy("p", { lr: 0, weightDecay: 0, maxGradNorm: 1 });
    const { promptLen, maxNew } = engine.shape;
    const prompts = tasks.sampleBatch(2, new Rng(11));
    const gen = await engine.generate(
      policy,
      imageTensor(prompts, G),
      promptTensor(prompts, promptLen, G),
      { ...alg, greedy: false, seed: 21 },
      G,
    );
    const base = { k: 0.8, m: 4, sigmaMin: 0.01, sigmaMax: 0.4 };
    const arms: Record<string, ContinuationSettings> = {
      full: base,
      truncationOnly: { ...base, sigmaMin: 0, sigmaMax: 0 },
      perturbationOnly: { ...base, greedy: true },
      neither: { ...base, sigmaMin: 0, sigmaMax: 0, greedy: true },
    };
    const rCon: Record<string, number[]> = {};
    for (const [name, settings] of Object.entries(arms)) {
      const { groups } = await truncatedContinuations(engine, policy, prompts, G, gen, settings, {
        alg,
        seed: 5,
      });
      rCon[name] = groups.flatMap((g, p) => {
        const texts = Array.from({ length: G }, (_, r) =>
          decodeResponse(row(gen.tokens, p * G + r, maxNew)),
        );
        return scoreSCS(prompts[p], texts, g.continuations!).rollouts.map((s) => s.components.rCon);
      });
    }
    // r_con = (4 − |𝒜|)/4 ∈ {0, 0.25, 0.5, 0.75} for every rollout of every arm.
    for (const v of Object.values(rCon))
      for (const x of v) expect([0, 0.25, 0.5, 0.75]).toContain(x);
    // Greedy from one prefix on one clean image: one answer, the most r_con can be.
    expect(rCon.neither).toEqual(Array(2 * G).fill(0.75));
    // The three arms score the same 16 rollouts differently.
    expect(rCon.full).not.toEqual(rCon.truncationOnly);
    expect(rCon.full).not.toEqual(rCon.perturbationOnly);
    expect(rCon.truncationOnly).not.toEqual(rCon.perturbationOnly);
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    // Sampling spreads the answers more than the image noise alone does.
    expect(mean(rCon.perturbationOnly)).toBeGreaterThan(mean(rCon.full));
  }, 300_000);
});
