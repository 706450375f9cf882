/**
 * Step 1's rollouts are generated once per seed and shared by the variants
 * (LabRun.trainCopy: before the first update every variant has the cold
 * start's parameters, prompts and rollout seed). A variant trained beside
 * another gets every metric and sample of a run of its own, step 1 and
 * after, while generating nothing at step 1. Small model, the shipped
 * open-ended cold start, a small batch (G 4, 2 prompts), CPU WebGPU adapter.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { loadShippedCheckpoint, mnistFor } from "../../src/cli/node-run";
import { parseExperiment } from "../../src/settings/experiment";
import { inProcessScorer } from "../../src/rl/reward-contract";
import { LabRun } from "../../src/run/lab-run";
import type { MetricRow } from "../../src/run/run-types";
import { METRIC_TABLE } from "../../src/settings/metric-table";
import { collectingSink } from "../support/run-sink";

const COST = new Set<string>(METRIC_TABLE.filter((m) => m.group === "cost").map((m) => m.key));

function experiment(variants: string[]) {
  return parseExperiment({
    modelSize: "small",
    variants: variants.map((name) => ({ name })),
    // A large step size (lab choice for this test) so the variants' step-2 rollouts differ.
    algorithm: { groupSize: 4, batchPrompts: 2, evalEvery: 100, steps: 10, lr: 0.02 },
    evalSize: 4,
  });
}

async function train(gpu: ReturnType<typeof useGpu>, variants: string[], steps: number) {
  const exp = experiment(variants);
  const ckpt = loadShippedCheckpoint(exp);
  expect(ckpt, "the shipped open-ended cold start is missing").not.toBeNull();
  const { sink, rows, samples } = collectingSink();
  const run = new LabRun(gpu.ctx, exp, sink, inProcessScorer, mnistFor(exp), {
    config: ckpt!.config,
    params: ckpt!.params,
  });
  await run.runSteps(steps);
  const train = rows.filter((r) => r.kind === "train");
  return { train, samples };
}

/** A row's values without the cost metrics (times, dispatches, submits): what the step computed. */
function computed(r: MetricRow): Record<string, number> {
  return Object.fromEntries(Object.entries(r.values).filter(([k]) => !COST.has(k)));
}

describe("step 1's rollouts shared by the variants (small model, CPU WebGPU adapter)", () => {
  const gpu = useGpu();

  it("gives a variant the metrics and samples of a run of its own, generating nothing at step 1", async () => {
    const both = await train(gpu, ["rlvr", "grr"], 2);
    const alone = await train(gpu, ["grr"], 2);
    for (const step of [1, 2]) {
      const a = both.train.find((r) => r.variant === "grr" && r.step === step)!;
      const b = alone.train.find((r) => r.variant === "grr" && r.step === step)!;
      expect(computed(a), `grr step ${step}`).toEqual(computed(b));
      const sa = both.samples.find((s) => s.variant === "grr" && s.step === step)!;
      const sb = alone.samples.find((s) => s.variant === "grr" && s.step === step)!;
      expect(sa.rollouts.map((r) => r.text)).toEqual(sb.rollouts.map((r) => r.text));
    }
    // The variants' step-2 rollouts differ (each its own policy's): the check above has teeth.
    const texts2 = (v: string) =>
      both.samples.find((s) => s.variant === v && s.step === 2)!.rollouts.map((r) => r.text);
    expect(texts2("grr")).not.toEqual(texts2("rlvr"));
    const at1 = (v: string) => both.train.find((r) => r.variant === v && r.step === 1)!.values;
    // The second variant's step 1 ran no generation: fewer dispatches than the first's.
    expect(at1("grr").dispatches).toBeLessThan(at1("rlvr").dispatches);
    const at2 = (v: string) => both.train.find((r) => r.variant === v && r.step === 2)!.values;
    expect(at2("grr").generate_ms).toBeGreaterThan(0);
  });
});
