/**
 * The CLIs' device (src/cli/sweep-device.ts, what `claims` and `lab --seeds`
 * train through), in Node on SwiftShader: a seed-variant (RLVR, G 2, one
 * prompt, 3 steps, small model, the shipped open-ended cold start) whose
 * device is destroyed while step 2 is scored. The CLI gets a new device,
 * trains step 2 again from the snapshot of step 1 and ends with the rows
 * and parameters of an undisturbed run (bit for bit), each step's row once
 * and one ⚠ marker at step 2: it goes on instead of exiting.
 */
import { describe, expect, it } from "vitest";
import { loadShippedCheckpoint, mnistFor, nodeContext } from "../../src/cli/node-run";
import { SweepDevice } from "../../src/cli/sweep-device";
import type { GpuContext } from "../../src/gpu/context";
import { inProcessScorer, type RewardScorer } from "../../src/rl/reward-contract";
import type { MetricRow } from "../../src/run/run-types";
import { parseExperiment } from "../../src/settings/experiment";
import { collectingSink } from "../support/run-sink";

const exp = parseExperiment({
  modelSize: "small",
  task: { hintRate: 0, traceSlipRate: 0 },
  seeds: [5],
  variants: [{ name: "rlvr" }],
  algorithm: { groupSize: 2, batchPrompts: 1, evalEvery: 3, steps: 3 },
  evalSize: 4,
});

async function train(loseAtScore?: number) {
  const { sink, rows, markers } = collectingSink();
  const contexts: GpuContext[] = [];
  let scored = 0;
  const scorer: RewardScorer = {
    score: (req) => {
      if (++scored === loseAtScore) contexts.at(-1)!.device.destroy();
      return inProcessScorer.score(req);
    },
  };
  const device = new SweepDevice(
    async () => {
      const ctx = await nodeContext();
      contexts.push(ctx);
      return ctx;
    },
    sink,
    scorer,
  );
  const ckpt = loadShippedCheckpoint(exp)!;
  const start = { key: "run", config: ckpt.config, params: ckpt.params };
  const mnist = mnistFor(exp);
  const coldStart = await device.coldStartEval(exp, start, mnist, 5);
  let params: Float32Array | null = null;
  const result = await device.trainSeedVariant({
    exp,
    start,
    mnist,
    coldStart,
    whenDone: async (run) => {
      params = await run.variantParams("rlvr", 5);
    },
  });
  device.dispose();
  return { result, rows, markers, contexts: contexts.length, params: params! };
}

// Without the wall-clock fields and the engine's dispatch and submit counts: a new
// engine's first step cuts its work differently (how, not what, it computes).
const COST_COUNTS = new Set(["dispatches", "submits"]);
const withoutTimes = (rows: MetricRow[]) =>
  rows.map(({ time: _t, ...r }) => ({
    ...r,
    values: Object.fromEntries(
      Object.entries(r.values).filter(([k]) => !k.endsWith("_ms") && !COST_COUNTS.has(k)),
    ),
  }));

describe("the CLI's device lost mid-step (small model, CPU WebGPU adapter)", () => {
  it("gets a new device and ends with the undisturbed run's rows and parameters", async () => {
    expect(loadShippedCheckpoint(exp), "the shipped small open-ended checkpoint").not.toBeNull();
    const undisturbed = await train();
    expect(undisturbed.contexts).toBe(1);
    const lost = await train(2); // the second scoring call is step 2's
    expect(lost.contexts).toBe(2);
    expect(lost.result.rows.filter((r) => r.kind === "train").map((r) => r.step)).toEqual([
      1, 2, 3,
    ]);
    expect(withoutTimes(lost.result.rows)).toEqual(withoutTimes(undisturbed.result.rows));
    expect(lost.result.final).toEqual(undisturbed.result.final);
    let diff = 0;
    for (let i = 0; i < lost.params.length; i++)
      diff = Math.max(diff, Math.abs(lost.params[i] - undisturbed.params[i]));
    expect(diff, "final parameters after the lost device").toBe(0);
    expect(lost.markers.map((m) => [m.variant, m.step, m.fault])).toEqual([
      ["rlvr", 2, "device-lost"],
    ]);
  }, 900_000);
});
