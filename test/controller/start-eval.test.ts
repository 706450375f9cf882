/**
 * The cold start's step-0 eval after the first RL step (the init option
 * `startEval: "after-first-step"`, what the page sends so that Train pressed
 * at once gives its first step without waiting for the eval), in Node on the
 * CPU WebGPU adapter: init goes idle with no eval row; the first Step emits
 * its training rows, then the step-0 eval rows; both are the rows of a run
 * whose init evaluated first (the eval reads the frozen reference; the step
 * does not depend on when the eval ran). Sized small (one variant, G 2, one
 * prompt, 4 held-out prompts).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeContext, REPO_ROOT } from "../../src/cli/node-run";
import { parseExperiment } from "../../src/settings/experiment";
import { inProcessScorer } from "../../src/rl/reward-contract";
import type { MetricRow } from "../../src/run/run-types";
import {
  RunController,
  type RunControllerHost,
  type ControllerEvent,
} from "../../src/controller/run-controller";

const exp = parseExperiment({
  modelSize: "default", // the CPU adapter picks the small model
  task: { hintRate: 0, traceSlipRate: 0 },
  variants: [{ name: "rlvr" }],
  algorithm: { groupSize: 2, batchPrompts: 1, evalEvery: 100, steps: 3 },
  evalSize: 4,
});

const host: RunControllerHost = {
  createContext: () => nodeContext(),
  createScorer: () => inProcessScorer,
  readAsset: async (path) => {
    const file = join(REPO_ROOT, "public", path);
    return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
  },
};

/** A row's values without the wall-clock ones. */
const valuesOf = (r: MetricRow) =>
  Object.fromEntries(Object.entries(r.values).filter(([k]) => !k.endsWith("_ms")));

/** init (with `startEval`), then one Step: every metrics row in order, and the phase after init. */
async function run(startEval?: "init" | "after-first-step") {
  const events: ControllerEvent[] = [];
  const controller = new RunController(host, (ev) => events.push(ev));
  try {
    await controller.send({ type: "init", experiment: exp, startEval });
    const afterInit = events.flatMap((e) => (e.type === "metrics" ? e.rows : []));
    const status = events.filter((e) => e.type === "status").at(-1);
    await controller.send({ type: "step" });
    const errors = events.filter((e) => e.type === "error");
    expect(errors).toEqual([]);
    return {
      afterInit,
      phase: status?.type === "status" ? status.phase : null,
      rows: events.flatMap((e) => (e.type === "metrics" ? e.rows : [])),
      messages: events.flatMap((e) => (e.type === "status" && e.message ? [e.message] : [])),
    };
  } finally {
    controller.dispose();
  }
}

describe("the cold start's eval after the first RL step", () => {
  it("init goes idle without it; the first Step gives its rows, then the step-0 eval, both as an eval-first run's", async () => {
    const first = await run("init");
    const later = await run("after-first-step");
    expect(first.afterInit.map((r) => [r.kind, r.step])).toEqual([["eval", 0]]);
    expect(later.afterInit).toEqual([]);
    expect(later.phase).toBe("idle");
    expect(later.rows.map((r) => [r.kind, r.step])).toEqual([
      ["train", 1],
      ["eval", 0],
    ]);
    expect(later.messages).toContain("evaluating the cold-start checkpoint (step 0)");
    const byKind = (rows: MetricRow[], kind: string) =>
      rows.filter((r) => r.kind === kind).map((r) => [r.variant, r.step, valuesOf(r)]);
    expect(byKind(later.rows, "eval")).toEqual(byKind(first.rows, "eval"));
    expect(byKind(later.rows, "train")).toEqual(byKind(first.rows, "train"));
  }, 600_000);
});
