/**
 * LabRun.fork on Node's WebGPU (SwiftShader here) with the small model and
 * the shipped open-ended cold start, kept tiny (G 2, 1 prompt, 4 held-out
 * prompts): a fork at step s starts from the parent's parameters and AdamW
 * state at s, its first eval row is at s with the parent's values, and one
 * step later it has moved away from the parent when its weights differ
 * (and stays bit-identical when they do not: the optimizer state was copied).
 *
 * Settings that make a weight change reach the update with G = 2 (lab
 * choices for this test): pointwise GR (each rollout's judge call has its own
 * calibration offset, so the two rewards differ by a λ-dependent amount),
 * RLOO advantages (not scale-invariant, unlike GRPO's (R − μ)/σ) and no
 * gradient clipping (clipping would normalise a rescaled gradient away).
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { loadShippedCheckpoint, mnistFor } from "../../src/cli/node-run";
import { findVariant, parseExperiment } from "../../src/settings/experiment";
import { inProcessScorer } from "../../src/rl/reward-contract";
import { LabRun } from "../../src/run/lab-run";
import { parseForkKey } from "../../src/settings/fork-key";
import { collectingSink } from "../support/run-sink";

const exp = parseExperiment({
  modelSize: "small",
  task: { hintRate: 0, traceSlipRate: 0 }, // the shipped open-ended cold start
  variants: [{ name: "pointwise-gr" }],
  algorithm: {
    groupSize: 2,
    batchPrompts: 1,
    evalEvery: 1,
    steps: 10,
    estimator: "rloo",
    gradClip: 1000, // MAX_GRAD_CLIP: far above any gradient norm here
    lr: 1e-3,
  },
  evalSize: 4,
});

function recordingSink() {
  const { sink, rows, markers, samples } = collectingSink();
  return { sink, rows, markers, samples };
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity;
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

describe("LabRun.fork (small model, CPU WebGPU adapter)", () => {
  const gpu = useGpu();

  it("starts a branch at the parent's step, parameters and optimizer state, and lets it part when the weights differ", async () => {
    const ckpt = loadShippedCheckpoint(exp);
    expect(
      ckpt,
      "the shipped small open-ended checkpoint is missing from public/checkpoints",
    ).not.toBeNull();
    const rec = recordingSink();
    const run = new LabRun(gpu.ctx, exp, rec.sink, inProcessScorer, mnistFor(exp), {
      config: ckpt!.config,
      params: ckpt!.params,
    });
    await run.evalStart();
    await run.stepVariants();
    expect(run.step).toBe(1);
    const parentAt1 = await run.variantParams("pointwise-gr");
    const parentEval1 = rec.rows.find(
      (r) => r.variant === "pointwise-gr" && r.kind === "eval" && r.step === 1,
    )!;
    expect(parentEval1).toBeDefined();

    // A fork with λ 1 → 5, evaluated afresh (no parent row given).
    const key = await run.fork("pointwise-gr", { lambda: 5 });
    expect(key).toBe("pointwise-gr@fork1");
    expect(parseForkKey(key)).toEqual({
      base: "pointwise-gr",
      parent: "pointwise-gr",
      step: 1,
      n: 1,
    });
    // Compared as one number: a failing toEqual on 10^5 floats would spend minutes on its diff.
    expect(maxAbsDiff(await run.forks.params(key), parentAt1)).toBe(0);
    const forkEval = rec.rows.filter((r) => r.variant === key && r.kind === "eval");
    expect(forkEval.map((r) => r.step)).toEqual([1]);
    expect(forkEval[0].values).toEqual(parentEval1.values);
    expect(rec.markers.at(-1)).toMatchObject({
      variant: key,
      step: 1,
      fork: { parent: "pointwise-gr", changes: { lambda: 5 } },
    });
    expect(findVariant({ variants: [run.forks.config(key)] }, "pointwise-gr")!.weights.lambda).toBe(
      5,
    );

    // A second fork at the same step, same weights, copying the parent's eval row.
    const same = await run.fork("pointwise-gr", {}, undefined, { parentEval: () => parentEval1 });
    expect(same).toBe("pointwise-gr@fork1.2");
    const sameEval = rec.rows.filter((r) => r.variant === same);
    expect(sameEval).toEqual([{ ...parentEval1, variant: same }]);
    expect(run.forks.keys).toEqual([key, same]);

    await expect(run.fork("grr", { lambda: 2 })).rejects.toThrow(/no variant or fork 'grr'/);
    await expect(run.fork("pointwise-gr", { lambda: 99 })).rejects.toThrow(/weights\.lambda/);

    await run.stepVariants();
    const parentAt2 = await run.variantParams("pointwise-gr");
    const forkAt2 = await run.forks.params(key);
    expect(maxAbsDiff(parentAt2, parentAt1)).toBeGreaterThan(0);
    expect(
      maxAbsDiff(forkAt2, parentAt2),
      "λ 5 vs 1 changed nothing in the update",
    ).toBeGreaterThan(0);
    // Same weights, same prompts and sampling seed, copied m, v and t: the very same step.
    expect(
      maxAbsDiff(await run.forks.params(same), parentAt2),
      "a same-weights fork did not repeat its parent's step",
    ).toBe(0);
    for (const k of [key, same]) {
      expect(
        rec.rows.filter((r) => r.variant === k && r.kind === "train").map((r) => r.step),
      ).toEqual([2]);
      expect(
        rec.rows.filter((r) => r.variant === k && r.kind === "eval").map((r) => r.step),
      ).toEqual([1, 2]);
      expect(rec.samples.filter((g) => g.variant === k).map((g) => g.step)).toEqual([2]);
    }

    run.clearForks();
    expect(run.forks.keys).toEqual([]);
    await run.stepVariants();
    expect(rec.rows.filter((r) => r.variant === key && r.step === 3)).toEqual([]);
  });
});
