/**
 * One whole RL step (src/rl/rl-step.ts) per advantage estimator of the
 * estimator table, on Node's WebGPU (SwiftShader) with the small model and
 * the shipped open-ended cold start as the reference, tiny sizes (G 4, one
 * prompt). A scorer of the test's own gives the rewards, so each step's
 * rewards are known:
 *   - distinct rewards (one rollout unscorable), β 0.05, a policy off the
 *     reference: the advantages the update used equal the CPU reference
 *     `groupAdvantages` on the rewards the step passed to the estimator;
 *     for the REINFORCE++ estimators those rewards are the totals minus
 *     β · Σ_t (logπ_old − logπ_ref) (the KL fold, foldKlIntoRewards), else
 *     the totals themselves; the unscorable rollout gets advantage 0; the
 *     parameters move.
 *   - equal rewards, β 0, fresh optimizer state: every advantage is 0 and
 *     the parameters do not move at all (no stale advantages reach the loss).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { loadShippedCheckpoint, mnistFor } from "../../src/cli/node-run";
import { groupAdvantages } from "../../src/kernels/advantages/reference";
import { LabEngine } from "../../src/engine/lab-engine";
import { ESTIMATOR_NAMES, estimatorEntry } from "../../src/settings/estimator-table";
import { parseExperiment } from "../../src/settings/experiment";
import { runModel } from "../../src/engine/lab-model";
import type { RewardScorer } from "../../src/rl/reward-contract";
import { rlStep } from "../../src/rl/rl-step";
import { taskGeneratorFor } from "../../src/run/lab-run";
import type { TaskPrompt } from "../../src/tasks/types";
import { Rng } from "../../src/tasks/rng";
import { imageTensor, joinPromptResponse, promptTensor } from "../../src/engine/sequences";

const G = 4;
const exp = parseExperiment({
  modelSize: "small",
  task: { hintRate: 0, traceSlipRate: 0 },
  variants: [{ name: "rlvr" }],
  algorithm: { groupSize: G, batchPrompts: 1, lr: 1e-3, weightDecay: 0 },
  evalSize: 4,
});

/** A scorer that gives rollout i of every group totals[i] (null: unscorable). */
function fixedScorer(totals: readonly (number | null)[]): RewardScorer {
  return {
    score: async (req) => ({
      groups: req.texts.map((texts) => ({
        rollouts: texts.map((_, i) => ({
          total: totals[i] ?? 0,
          components: {},
          verifierPassed: false,
          unscorable: totals[i] === null,
          answer: null,
        })),
        judgeCalls: 0,
        judgeFailures: 0,
      })),
    }),
  };
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

describe("rlStep per estimator (small model, CPU WebGPU adapter)", () => {
  const gpu = useGpu();
  let engine: LabEngine;
  let prompts: TaskPrompt[];
  /** The policy's start: the cold start moved a little, so logπ_old ≠ logπ_ref. */
  let offReference: Float32Array;
  /** The reference parameters as loaded (warm-up must leave them alone). */
  let ckptRef: Float32Array;

  beforeAll(async () => {
    const ckpt = loadShippedCheckpoint(exp);
    if (!ckpt) throw new Error("the shipped small open-ended checkpoint is missing");
    const tasks = taskGeneratorFor(exp, mnistFor(exp));
    const model = runModel(exp.modelSize, tasks, exp.evalSize);
    engine = new LabEngine(gpu.ctx, model.config, model.shape, ckpt.params);
    prompts = tasks.sampleBatch(1, new Rng(7));
    offReference = ckpt.params.map((x, i) => x + 0.01 * Math.sin(i));
    ckptRef = ckpt.params;
  });

  it.each(ESTIMATOR_NAMES)(
    "%s: the step's advantages are the reference's on its rewards, and the parameters move only with them",
    async (estimator) => {
      const alg = { ...exp.algorithm, estimator, beta: 0.05 };
      const variant = exp.variants[0];
      const policy = engine.createPolicy(
        `test.${estimator}`,
        { lr: alg.lr, weightDecay: 0, maxGradNorm: alg.gradClip },
        offReference,
      );
      const totals = [1, 0, null, 0.5];
      const distinct = await rlStep({
        engine,
        policy,
        variant,
        algorithm: alg,
        prompts,
        scorer: fixedScorer(totals),
        step: 1,
        seed: 11,
      });
      const reference = groupAdvantages({
        rewards: distinct.rewards,
        groupSize: G,
        estimator: estimator,
        std: alg.std,
        eps: alg.eps,
      });
      expect(maxAbsDiff(distinct.advantages, reference)).toBeLessThan(1e-5);
      expect(distinct.advantages[2]).toBe(0);
      expect(maxAbsDiff(distinct.advantages, [0, 0, 0, 0])).toBeGreaterThan(0.1);
      if (estimatorEntry(estimator).klInReward) {
        const kl = distinct.klSums!;
        expect(kl).toHaveLength(G);
        expect(Math.max(...kl.map(Math.abs)), "logπ_old = logπ_ref everywhere").toBeGreaterThan(0);
        totals.forEach((r, i) => {
          if (r === null) expect(distinct.rewards[i]).toBeNull();
          else expect(distinct.rewards[i]).toBeCloseTo(r - alg.beta * kl[i], 12);
        });
      } else {
        expect(distinct.klSums).toBeNull();
        expect(distinct.rewards.map((r) => (Number.isNaN(r) ? null : r))).toEqual(totals);
      }
      const moved = await engine.readParams(policy.params);
      expect(maxAbsDiff(moved, offReference)).toBeGreaterThan(0);

      // Equal rewards, no KL: zero advantages, so not a single parameter moves.
      engine.resetPolicy(policy, offReference);
      const equal = await rlStep({
        engine,
        policy,
        variant,
        algorithm: { ...alg, beta: 0 },
        prompts,
        scorer: fixedScorer([1, 1, 1, 1]),
        step: 2,
        seed: 12,
      });
      expect(Array.from(equal.advantages)).toEqual([0, 0, 0, 0]);
      expect(equal.values.frac_reward_zero_std).toBe(1);
      expect(maxAbsDiff(await engine.readParams(policy.params), offReference)).toBe(0);
      engine.destroyPolicy(policy);
    },
  );

  it("a warm-up update (LabEngine.warmUpdate) changes nothing: the step after it is bit for bit the step without it", async () => {
    const alg = { ...exp.algorithm, beta: 0.05 };
    const opts = { lr: alg.lr, weightDecay: 0, maxGradNorm: alg.gradClip };
    const step = async (name: string) => {
      const policy = engine.createPolicy(name, opts, offReference);
      await rlStep({
        engine,
        policy,
        variant: exp.variants[0],
        algorithm: alg,
        prompts,
        scorer: fixedScorer([1, 0, 0.25, 0.5]),
        step: 1,
        seed: 11,
      });
      return engine.readParams(policy.params);
    };
    const plain = await step("warm.plain");
    const { promptLen, maxNew } = engine.shape;
    await engine.warmUpdate(
      imageTensor(prompts, G),
      joinPromptResponse(
        promptTensor(prompts, promptLen, G),
        new Int32Array(G * maxNew),
        engine.shape,
      ),
      G,
    );
    expect(Array.from(await engine.readParams(engine.ref))).toEqual(Array.from(ckptRef));
    const after = await step("warm.after");
    expect(maxAbsDiff(plain, offReference)).toBeGreaterThan(0);
    expect(Buffer.from(after.buffer).equals(Buffer.from(plain.buffer))).toBe(true);
  });

  it("refuses given rollouts of another shape, naming both", async () => {
    const policy = engine.createPolicy(
      "shape.check",
      { lr: exp.algorithm.lr, weightDecay: 0, maxGradNorm: exp.algorithm.gradClip },
      offReference,
    );
    const { maxNew } = engine.shape;
    const rows = G - 1; // one rollout short of the step's prompts·G
    const rollouts = {
      tokens: new Int32Array(rows * maxNew),
      logprobs: new Float32Array(rows * maxNew),
      lengths: new Int32Array(rows),
    };
    await expect(
      rlStep({
        engine,
        policy,
        variant: exp.variants[0],
        algorithm: exp.algorithm,
        prompts,
        scorer: fixedScorer([1, 0, 0.25, 0.5]),
        step: 1,
        seed: 11,
        rollouts,
      }),
    ).rejects.toThrow(`${rows} rows of ${maxNew} tokens, not ${G} rows of ${maxNew}`);
  });
});
