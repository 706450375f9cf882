/**
 * SCS and ACRE in the whole RL loop (LabRun.rlStep: rollouts, generation
 * passes, rewards, advantages, update) on the small model, CPU WebGPU
 * adapter, a multiple-choice task, random initial weights (what is checked
 * does not need a trained policy): two steps each, with the pass results in
 * the step rows, the reward components, the extra-pass time, the inspector's
 * view of the cut and the re-ask, and OSCR in every eval row.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { mnistFor } from "../../src/cli/node-run";
import { parseExperiment } from "../../src/settings/experiment";
import { inProcessScorer } from "../../src/rl/reward-contract";
import { LabRun } from "../../src/run/lab-run";
import { collectingSink } from "../support/run-sink";

describe("SCS and ACRE train in the RL loop (small model, CPU WebGPU adapter)", () => {
  const gpu = useGpu();

  it("two RL steps each: pass components, extra-pass time, inspector details, OSCR at eval", async () => {
    const exp = parseExperiment({
      modelSize: "small",
      seed: 3,
      task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
      variants: [{ name: "scs", weights: { m: 2 } }, { name: "acre" }],
      algorithm: { groupSize: 2, batchPrompts: 2, steps: 2, evalEvery: 2 },
      evalSize: 4,
    });
    const { sink, rows, samples: groups } = collectingSink();
    const run = new LabRun(gpu.ctx, exp, sink, inProcessScorer, mnistFor(exp), null);
    await run.evalStart();
    await run.stepVariants();
    await run.stepVariants();
    for (const name of ["scs", "acre"]) {
      const train = rows.filter((r) => r.variant === name && r.kind === "train");
      expect(train.map((r) => r.step)).toEqual([1, 2]);
      for (const r of train) {
        expect(Number.isFinite(r.values.reward_mean), name).toBe(true);
        expect(r.values.passes_ms, name).toBeGreaterThan(0);
        expect(r.values.update_skipped).toBe(0);
      }
      const evals = rows.filter((r) => r.variant === name && r.kind === "eval");
      expect(evals.map((r) => r.step)).toEqual([0, 2]);
      for (const r of evals) {
        expect(r.values.oscr).toBeGreaterThanOrEqual(0);
        expect(r.values.oscr).toBeLessThanOrEqual(1);
      }
    }
    const scsRow = rows.find((r) => r.variant === "scs" && r.kind === "train")!;
    // m = 2 continuations: r_con = (2 − |𝒜|)/2 ∈ {0, 0.5} per rollout; the row holds the mean of 4.
    const rCon = scsRow.values["components/rCon"];
    expect(rCon).toBeGreaterThanOrEqual(0);
    expect(rCon).toBeLessThanOrEqual(0.5);
    expect(Number.isInteger(rCon * 8)).toBe(true);
    const acreRow = rows.find((r) => r.variant === "acre" && r.kind === "train")!;
    expect(acreRow.values["components/rC"]).toBeGreaterThanOrEqual(0);
    expect(acreRow.values["components/rC"]).toBeLessThanOrEqual(1);

    const scsView = groups.find((g) => g.variant === "scs")!;
    for (const r of scsView.rollouts) {
      expect(r.scs!.continuations).toHaveLength(2);
      expect(r.text.startsWith(r.scs!.keptText)).toBe(true);
    }
    const acreView = groups.find((g) => g.variant === "acre")!;
    for (const r of acreView.rollouts) {
      expect(Object.values(r.reask!.options).sort()).toEqual(
        Object.values(acreView.options!).sort(),
      );
    }
  }, 600_000);
});
