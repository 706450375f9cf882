/**
 * A device lost during cold-start SFT (src/controller/run-training.ts, Node,
 * SwiftShader): 14 SFT steps from scratch (small model, batch 4), the device
 * destroyed while SFT step 12's update is in flight. Training goes on from
 * the SFT snapshot of step 10 (SFT_SNAPSHOT_EVERY) on a new device, trains
 * steps 11 and 12 again and ends with the cold start of an undisturbed run
 * bit for bit: tolerance 0, because an SFT step's batch and learning rate
 * are functions of its number and the seed, and the snapshot holds the
 * parameters and AdamW m, v, t. What is lost is time only: at most
 * SFT_SNAPSHOT_EVERY − 1 steps trained again (here 1: step 11; step 12 was
 * in flight). Each SFT row goes out once, and SFT gets one ⚠ marker.
 */
import { describe, expect, it } from "vitest";
import { mnistFor, nodeContext } from "../../src/cli/node-run";
import type { GpuContext } from "../../src/gpu/context";
import { SFT_SNAPSHOT_EVERY } from "../../src/controller/device-recovery";
import { HeldSink } from "../../src/controller/held-sink";
import { LabRun } from "../../src/run/lab-run";
import { inProcessScorer } from "../../src/rl/reward-contract";
import { RunTraining } from "../../src/controller/run-training";
import type { MetricRow } from "../../src/run/run-types";
import { parseExperiment } from "../../src/settings/experiment";
import { collectingSink } from "../support/run-sink";

const SFT_STEPS = 14;
const LOSE_AT = 12;
const exp = parseExperiment({
  modelSize: "small",
  task: { hintRate: 0, traceSlipRate: 0 },
  variants: [{ name: "rlvr" }],
  sftSteps: SFT_STEPS,
  sftBatch: 4,
  evalSize: 4,
});

function recording() {
  const { sink, rows, markers, logs } = collectingSink();
  return { rows, markers, logs, sink };
}

/** SFT from scratch through RunTraining; `lose` may destroy the device of the first run. */
async function sft(lose?: (run: LabRun, ctx: GpuContext) => void) {
  const rec = recording();
  const held = new HeldSink(rec.sink);
  let contexts = 0;
  const training = new RunTraining({
    createContext: async () => {
      contexts++;
      return nodeContext();
    },
    sink: held,
    notices: rec.sink,
    output: held,
  });
  training.scorer = inProcessScorer;
  training.mnist = mnistFor(exp);
  const ctx = await training.acquire();
  const run = new LabRun(ctx, exp, held, inProcessScorer, training.mnist, null);
  lose?.(run, ctx);
  run.beginSft({ steps: SFT_STEPS, evalEvery: 0 });
  training.setRun(run, await run.snapshot());
  await training.trainSft(() => false);
  const done = training.run!;
  const params = done.initialParams;
  training.devices.disposing = true;
  training.ctx?.destroy();
  return { ...rec, params, contexts, rebuilt: done !== run };
}

describe("SFT with a device lost mid-step (small model, CPU WebGPU adapter)", () => {
  it("goes on from the last SFT snapshot on a new device and ends with the undisturbed cold start", async () => {
    expect(SFT_SNAPSHOT_EVERY).toBe(10);
    const undisturbed = await sft();
    expect(undisturbed.contexts).toBe(1);

    const lost = await sft((run, ctx) => {
      // Step LOSE_AT's update is submitted, then the device goes before its result is read.
      const update = run.engine.sftUpdate.bind(run.engine);
      let calls = 0;
      run.engine.sftUpdate = (...args) => {
        const pending = update(...args);
        if (++calls === LOSE_AT) ctx.device.destroy();
        return pending;
      };
    });
    expect(lost.contexts).toBe(2);
    expect(lost.rebuilt).toBe(true);
    let diff = 0;
    for (let i = 0; i < lost.params.length; i++)
      diff = Math.max(diff, Math.abs(lost.params[i] - undisturbed.params[i]));
    expect(lost.params.length).toBe(undisturbed.params.length);
    expect(diff, "cold start after the lost device vs undisturbed").toBe(0);

    // Every SFT row once, with the undisturbed values (wall-clock fields aside).
    const values = (rows: MetricRow[]) =>
      rows.map((r) => ({
        step: r.step,
        kind: r.kind,
        values: Object.fromEntries(Object.entries(r.values).filter(([k]) => !k.endsWith("_ms"))),
      }));
    expect(lost.rows.filter((r) => r.kind === "train").map((r) => r.step)).toEqual(
      Array.from({ length: SFT_STEPS }, (_, i) => i + 1),
    );
    expect(values(lost.rows)).toEqual(values(undisturbed.rows));
    expect(lost.markers.map((m) => [m.variant, m.step, m.fault])).toEqual([
      ["sft", 11, "device-lost"],
    ]);
    expect(lost.markers[0].label).toMatch(
      /GPU device lost .*SFT went on from its snapshot of step 10/,
    );
    expect(lost.logs.join("\n")).toMatch(
      /Restored the SFT snapshot of step 10; SFT goes on from step 11/,
    );
  }, 900_000);
});
