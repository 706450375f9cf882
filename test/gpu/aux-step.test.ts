/**
 * StructReward's auxiliary step (src/rl/aux-step.ts) on Node's WebGPU
 * (SwiftShader) with the small model from the shipped multiple-choice cold
 * start:
 *   - on a fixed batch (the same prompts, rollouts and seed every step) the
 *     auxiliary cross-entropy falls step after step, stepping the policy's
 *     auxiliary AdamW and leaving the policy update's own AdamW state alone;
 *   - a whole StructReward RL step with the options on reports the aux
 *     metrics (examples per kind as built for its rollouts, a finite loss,
 *     its time inside the step time) and moves the parameters past the
 *     update's; with them off it reports none and the auxiliary learning
 *     rate changes nothing (no auxiliary step runs).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { loadShippedCheckpoint, mnistFor } from "../../src/cli/node-run";
import { auxStep } from "../../src/rl/aux-step";
import { LabEngine } from "../../src/engine/lab-engine";
import { parseExperiment } from "../../src/settings/experiment";
import { runModel } from "../../src/engine/lab-model";
import { inProcessScorer } from "../../src/rl/reward-contract";
import { rlStep } from "../../src/rl/rl-step";
import { taskGeneratorFor } from "../../src/run/lab-run";
import { Rng } from "../../src/tasks/rng";
import type { TaskPrompt } from "../../src/tasks/types";

const G = 4;
const exp = parseExperiment({
  modelSize: "small",
  task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
  variants: [{ name: "structreward" }],
  algorithm: { groupSize: G, batchPrompts: 2, lr: 1e-3, weightDecay: 0 },
  evalSize: 4,
});

describe("StructReward auxiliary step (small model, CPU WebGPU adapter)", () => {
  const gpu = useGpu();
  let engine: LabEngine;
  let prompts: TaskPrompt[];
  let start: Float32Array;

  beforeAll(async () => {
    const ckpt = loadShippedCheckpoint(exp);
    if (!ckpt) throw new Error("the shipped small multiple-choice checkpoint is missing");
    const tasks = taskGeneratorFor(exp, mnistFor(exp));
    const model = runModel(exp.modelSize, tasks, exp.evalSize);
    engine = new LabEngine(gpu.ctx, model.config, model.shape, ckpt.params);
    prompts = tasks.sampleBatch(2, new Rng(7));
    start = ckpt.params;
  });

  const policyOf = (name: string) =>
    engine.createPolicy(name, { lr: 1e-3, weightDecay: 0, maxGradNorm: 1 }, start);

  it("the auxiliary loss falls over steps on a fixed batch", async () => {
    const policy = policyOf("aux.fixed");
    // Per group: the reference trace twice and twice with another letter boxed last (wrong).
    const texts = prompts.map((p) => {
      const at = p.sftTarget.lastIndexOf("\\boxed{");
      const wrong = ["A", "B", "C", "D"].find((l) => l !== p.answer.letter);
      const bad = `${p.sftTarget.slice(0, at)}\\boxed{${wrong}}`;
      return [p.sftTarget, bad, p.sftTarget, bad];
    });
    const losses: number[] = [];
    for (let s = 0; s < 4; s++) {
      const v = await auxStep(engine, policy, {
        prompts,
        texts,
        config: { recycle: true, hardNegatives: true, lrScale: 1 },
        lr: 1e-3,
        seed: 3,
      });
      // 8 pointwise + 8 pairs + 4 × (locate, choose) built; 8 rows kept.
      expect(v.aux_pointwise + v.aux_pairwise + v.aux_locate + v.aux_choose).toBe(8);
      expect(v.aux_dropped).toBe(16);
      losses.push(v.aux_loss!);
    }
    for (let s = 1; s < losses.length; s++) expect(losses[s]).toBeLessThan(losses[s - 1]);
    // The auxiliary optimizer stepped 4 times; the policy update's own AdamW state is untouched.
    expect(policy.auxAdam?.t).toBe(4);
    expect(policy.adam.t).toBe(0);
    expect(Array.from(await gpu.ctx.readF32(policy.adam.m, 0, 64)).every((x) => x === 0)).toBe(
      true,
    );
    expect(losses[3]).toBeLessThan(0.9 * losses[0]);
    // A fork continues the auxiliary optimizer too; a reset clears it.
    const child = engine.forkPolicy(policy, "aux.fixed.fork");
    expect(child.auxAdam?.t).toBe(4);
    const n = 256;
    expect(Array.from(await gpu.ctx.readF32(child.auxAdam!.v, 0, n))).toEqual(
      Array.from(await gpu.ctx.readF32(policy.auxAdam!.v, 0, n)),
    );
    engine.resetPolicy(child);
    expect(child.auxAdam?.t).toBe(0);
    engine.destroyPolicy(child);
    engine.destroyPolicy(policy);
  });

  it("a StructReward step with the options on trains the aux step; off, the step is the update alone", async () => {
    const step = async (weights: Record<string, unknown>, name: string) => {
      const policy = policyOf(name);
      const variant = parseExperiment({ variants: [{ name: "structreward", weights }] })
        .variants[0];
      const res = await rlStep({
        engine,
        policy,
        variant,
        algorithm: exp.algorithm,
        prompts,
        scorer: inProcessScorer,
        step: 1,
        seed: 21,
      });
      const params = await engine.readParams(policy.params);
      engine.destroyPolicy(policy);
      return { res, params };
    };
    const off = await step({}, "aux.off");
    expect(Object.keys(off.res.values).filter((k) => k.startsWith("aux_"))).toEqual([]);
    const again = await step({ recycle: "off", hardNegatives: "off", auxLr: 2 }, "aux.off2");
    expect(Array.from(again.params)).toEqual(Array.from(off.params));

    const on = await step({ recycle: "on", hardNegatives: "on" }, "aux.on");
    const v = on.res.values;
    // Same seed, same rollouts: the rewards are those of the step with the options off.
    expect(on.res.rewards).toEqual(off.res.rewards);
    // One pointwise example per rollout unless cut (P·G = 8 rows in all).
    const trained = v.aux_pointwise + v.aux_pairwise + v.aux_locate + v.aux_choose;
    expect(trained).toBeGreaterThan(0);
    expect(trained).toBeLessThanOrEqual(8);
    expect(Number.isFinite(v.aux_loss)).toBe(true);
    expect(v.aux_loss).toBeGreaterThan(0);
    expect(v.step_time_ms).toBeGreaterThanOrEqual(v.aux_ms);
    // The aux step moved the parameters past the update's.
    let moved = 0;
    for (let i = 0; i < on.params.length; i++) if (on.params[i] !== off.params[i]) moved++;
    expect(moved).toBeGreaterThan(0);
  });
});
