/**
 * The run controller (src/controller/run-controller.ts) in Node on the CPU WebGPU adapter
 * (SwiftShader), driven by its commands as the worker drives it: init from
 * the shipped small open-ended cold start (the CPU adapter turns the
 * experiment's default size into the small model), single steps, a loop that
 * a pause stops at a step boundary and a second start finishes, live weights
 * (a marker at the next step), a fork (its first eval row copies the
 * parent's), reset (the cold-start parameters, forks dropped), and the errors
 * a wrong command or a checkpoint of another task form give.
 *
 * Sized small (one pointwise-GR variant, G 2, 1 prompt, 4 held-out prompts,
 * 3 steps). Pointwise GR gives each rollout its own judge offset, so the two
 * rewards of a group differ and RLOO's advantages are non-zero: the first
 * step moves the parameters.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeContext, REPO_ROOT } from "../../src/cli/node-run";
import { loadCheckpoint } from "../../src/model/checkpoint";
import { findVariant, parseExperiment } from "../../src/settings/experiment";
import { applyVariantSetting } from "../../src/settings/variant-settings";
import { inProcessScorer } from "../../src/rl/reward-contract";
import {
  RunController,
  type ControllerEvent,
  type RunControllerHost,
} from "../../src/controller/run-controller";

const VARIANT = "pointwise-gr";
const exp = parseExperiment({
  modelSize: "default", // the CPU adapter picks the small model
  task: { hintRate: 0, traceSlipRate: 0 },
  variants: [{ name: VARIANT }],
  algorithm: {
    groupSize: 2,
    batchPrompts: 1,
    evalEvery: 1,
    steps: 3,
    estimator: "rloo",
    gradClip: 1000,
    lr: 1e-3,
  },
  evalSize: 4,
});
const SHIPPED = "checkpoints/sft-digits2-open-small.ckpt";

const host: RunControllerHost = {
  createContext: nodeContext,
  createScorer: () => inProcessScorer,
  readAsset: async (path) => {
    const file = join(REPO_ROOT, "public", path);
    return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
  },
};

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity;
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

describe("RunController (small model, CPU WebGPU adapter)", () => {
  const events: ControllerEvent[] = [];
  let onEvent: (ev: ControllerEvent) => void = () => {};
  let controller: RunController;
  beforeAll(() => {
    controller = new RunController(host, (ev) => {
      events.push(ev);
      onEvent(ev);
    });
  });
  afterAll(() => controller?.dispose());

  /** Events since `from`, of one type. */
  const since = <T extends ControllerEvent["type"]>(from: number, type: T) =>
    events.slice(from).filter((e): e is Extract<ControllerEvent, { type: T }> => e.type === type);
  const rows = (from = 0) => since(from, "metrics").flatMap((e) => e.rows);
  const errors = (from = 0) => since(from, "error").map((e) => e.message);

  it("refuses commands before init and a cold start of another task form", async () => {
    await controller.send({ type: "step" });
    expect(errors()).toEqual(["the controller has no experiment yet (send init first)"]);
    expect(controller.phase).toBe("error");

    const at = events.length;
    await controller.send({
      type: "init",
      experiment: exp,
      checkpoint: "checkpoints/sft-digits2-mc-small.ckpt",
    });
    expect(errors(at).join("\n")).toContain("trained on the multiple-choice task");
    expect(controller.run).toBeNull();
    expect(controller.phase).toBe("error");
  });

  it("inits, steps, pauses, resumes, sets weights, forks and resets", async () => {
    // ---- init: CPU adapter → small model, the shipped cold start, its step-0 eval ----
    let at = events.length;
    await controller.send({ type: "init", experiment: exp });
    expect(errors(at)).toEqual([]);
    const ready = since(at, "ready")[0];
    expect(ready).toMatchObject({ isFallback: true, modelSize: "small" });
    expect(ready.note).toMatch(/small model/);
    expect(since(at, "log").map((e) => e.message)).toContain(
      `cold start: ${SHIPPED} (SFT step 1000, seed 3)`,
    );
    const start = rows(at).filter((r) => r.kind === "eval");
    expect(start.map((r) => [r.variant, r.step])).toEqual([[VARIANT, 0]]);
    expect(controller.phase).toBe("idle");
    const run = controller.run!;
    expect(run.experiment.modelSize).toBe("small");
    const cold = loadCheckpoint(new Uint8Array(readFileSync(join(REPO_ROOT, "public", SHIPPED))));

    // ---- one step: its rows and group come in one batch each; the parameters move ----
    at = events.length;
    await controller.send({ type: "step" });
    expect(errors(at)).toEqual([]);
    expect(controller.step).toBe(1);
    expect(controller.phase).toBe("paused");
    expect(since(at, "metrics")).toHaveLength(1);
    expect(rows(at).map((r) => [r.kind, r.step])).toEqual([
      ["train", 1],
      ["eval", 1],
    ]);
    expect(since(at, "samples").flatMap((e) => e.groups.map((g) => g.step))).toEqual([1]);
    const after1 = await run.variantParams(VARIANT);
    expect(
      maxAbsDiff(after1, cold.params),
      "one RL step left the parameters as they were",
    ).toBeGreaterThan(0);

    // ---- live weights: a marker at the next step ----
    at = events.length;
    await controller.send({ type: "setWeights", variant: VARIANT, weights: { lambda: 2 } });
    expect(since(at, "marker").map((e) => e.marker)).toEqual([
      { variant: VARIANT, step: 2, label: "lambda=2" },
    ]);
    expect(findVariant(run.experiment, VARIANT)!.weights.lambda).toBe(2);
    await controller.send({ type: "setWeights", variant: "grr", weights: { lambda: 2 } });
    expect(errors(at)).toEqual(["setWeights: no variant 'grr' in this run"]);
    // A value out of range is refused at the controller's entry with the CLI's message; the run keeps λ = 2.
    at = events.length;
    await controller.send({ type: "setWeights", variant: VARIANT, weights: { lambda: 99 } });
    const tooBig = `${VARIANT}.weights.lambda: Too big: expected number to be <=10`;
    expect(errors(at)).toEqual([tooBig]);
    expect(() => applyVariantSetting(run.experiment.variants, `${VARIANT}.lambda=99`)).toThrow(
      `'${VARIANT}.lambda=99': ${tooBig}`,
    );
    expect(findVariant(run.experiment, VARIANT)!.weights.lambda).toBe(2);
    expect(since(at, "marker")).toEqual([]);
    expect(controller.phase).toBe("paused");

    // ---- start; a pause sent during step 2 stops the loop at that step's end ----
    at = events.length;
    onEvent = (ev) => {
      if (ev.type === "status" && ev.phase === "rl" && ev.step === 2)
        void controller.send({ type: "pause" });
    };
    await controller.send({ type: "start" });
    await controller.whenIdle();
    onEvent = () => {};
    expect(controller.step).toBe(2);
    expect(controller.phase).toBe("paused");

    // ---- start again: the step budget (3) ends the loop ----
    await controller.send({ type: "start" });
    await controller.whenIdle();
    expect(controller.step).toBe(3);
    expect(controller.phase).toBe("done");
    expect(errors(at)).toEqual([]);
    const train = rows()
      .filter((r) => r.kind === "train")
      .map((r) => r.step);
    expect(train).toEqual([1, 2, 3]);

    // ---- fork at step 3: marker at the fork step, first eval row = the parent's at 3 ----
    at = events.length;
    await controller.send({ type: "fork", variant: VARIANT, weights: { lambda: 4 } });
    expect(errors(at)).toEqual([]);
    const key = `${VARIANT}@fork3`;
    expect(since(at, "marker")[0].marker).toMatchObject({
      variant: key,
      step: 3,
      fork: { parent: VARIANT, changes: { lambda: 4 } },
    });
    const parentEval3 = rows().find(
      (r) => r.variant === VARIANT && r.kind === "eval" && r.step === 3,
    )!;
    expect(rows(at).filter((r) => r.variant === key)).toEqual([{ ...parentEval3, variant: key }]);
    expect(run.forks.keys).toEqual([key]);
    await controller.send({ type: "fork", variant: "grr", weights: {} });
    expect(errors(at)).toEqual(["fork: no variant or fork 'grr' in this run"]);

    // ---- reset: step 0, the cold-start parameters, no forks ----
    await controller.send({ type: "reset" });
    expect(controller.step).toBe(0);
    expect(controller.phase).toBe("idle");
    expect(run.forks.keys).toEqual([]);
    expect(maxAbsDiff(await run.variantParams(VARIANT), cold.params)).toBe(0);
    expect(controller.run).toBe(run);
  });
});
