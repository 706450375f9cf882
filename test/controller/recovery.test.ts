/**
 * Runs survive faults (src/controller/run-controller.ts over src/run/lab-run.ts), in Node on
 * the CPU WebGPU adapter (SwiftShader):
 * - the device destroyed in the middle of step 2 (during its scoring), and
 *   again at the end of step 3 (its row made, its snapshot not yet taken):
 *   each time the controller gets a new device, restores the snapshot of the
 *   step before and trains the step again; the run ends at step 3 with the
 *   parameters of an undisturbed run from the same cold start (compared bit
 *   for bit), each step's row once, a "device-lost" marker at steps 2 and 3;
 * - a saved snapshot (the `snapshot` event) resumes: `init` with `resume`
 *   gives the same next step and the same final parameters;
 * - a NaN gradient: AdamW skips the update (params, m, v, t unchanged), the
 *   row has update_skipped 1 and an "update-skipped" marker; a second skip in
 *   a row pauses the run with the reason;
 * - a step that fails the same way twice (the scorer refuses it) is tried
 *   again once, then paused with the reason; Train again tries once more and
 *   pauses again;
 * - the reward worker (the page's client over a fake worker,
 *   test/support/fake-reward-worker.ts) killed while it scores a step: a
 *   fresh worker scores it again and the step's row equals the undisturbed one.
 *
 * Sized small (one pointwise-GR variant, G 2, 1 prompt, 4 held-out prompts,
 * 3 steps, eval at the last step only).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeContext, REPO_ROOT } from "../../src/cli/node-run";
import { parseExperiment } from "../../src/settings/experiment";
import type { ScoreRequest } from "../../src/rl/reward-contract";
import type { MetricRow } from "../../src/run/run-types";
import { decodeSnapshot } from "../../src/run/snapshot";
import {
  RunController,
  type ControllerEvent,
  type RunControllerHost,
} from "../../src/controller/run-controller";
import { createRewardWorkerScorer } from "../../src/workers/reward-worker-client";
import { FakeRewardWorker } from "../support/fake-reward-worker";

const VARIANT = "pointwise-gr";
const STEPS = 3;
const exp = parseExperiment({
  modelSize: "default", // the CPU adapter picks the small model
  task: { hintRate: 0, traceSlipRate: 0 },
  variants: [{ name: VARIANT }],
  algorithm: {
    groupSize: 2,
    batchPrompts: 1,
    evalEvery: STEPS,
    steps: STEPS,
    estimator: "rloo",
    gradClip: 1000,
    lr: 1e-3,
  },
  evalSize: 4,
});

/** Called before each scoring request (fault injection); a throw is the scorer's error. */
let beforeScore: (req: ScoreRequest) => void = () => {};
let contexts = 0;
let rewardWorkers = 0;
/** The reward worker the client talks to now. */
let rewardWorker: FakeRewardWorker | null = null;
const host: RunControllerHost = {
  createContext: async () => {
    contexts++;
    return nodeContext();
  },
  // The page's reward worker client, over fake workers (Node has no Web Workers).
  createScorer: () =>
    createRewardWorkerScorer({
      makeWorker: () => {
        rewardWorkers++;
        rewardWorker = new FakeRewardWorker("answer", (req) => beforeScore(req));
        return rewardWorker as unknown as Worker;
      },
    }),
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

/**
 * A train row's values without the wall-clock ones and the engine's dispatch
 * and submit counts (a new engine's first step cuts its work differently: how,
 * not what, it computes).
 */
function trainValues(r: MetricRow): Record<string, number> {
  return Object.fromEntries(
    Object.entries(r.values).filter(
      ([k]) => !k.endsWith("_ms") && k !== "dispatches" && k !== "submits",
    ),
  );
}

describe("RunController fault recovery (small model, CPU WebGPU adapter)", () => {
  const events: ControllerEvent[] = [];
  let controller: RunController;
  beforeAll(() => {
    controller = new RunController(host, (ev) => events.push(ev));
  });
  afterAll(() => controller?.dispose());

  const since = <T extends ControllerEvent["type"]>(from: number, type: T) =>
    events.slice(from).filter((e): e is Extract<ControllerEvent, { type: T }> => e.type === type);
  const rows = (from: number, kind: "train" | "eval" = "train") =>
    since(from, "metrics")
      .flatMap((e) => e.rows)
      .filter((r) => r.kind === kind);
  const errors = (from: number) => since(from, "error").map((e) => e.message);
  const markers = (from: number) => since(from, "marker").map((e) => e.marker);

  /** Filled by the first test: the undisturbed run's step rows, snapshots and final parameters. */
  const undisturbed: {
    rows: MetricRow[];
    snapshots: Map<number, Uint8Array>;
    final: Float32Array | null;
  } = {
    rows: [],
    snapshots: new Map(),
    final: null,
  };

  it("a device lost mid-step: new device, snapshot of the step before restored, same end as an undisturbed run", async () => {
    let at = events.length;
    await controller.send({ type: "init", experiment: exp });
    expect(errors(at)).toEqual([]);
    expect(contexts).toBe(1);

    // ---- the undisturbed run: three single steps (each posts its snapshot) ----
    for (let s = 1; s <= STEPS; s++) await controller.send({ type: "step" });
    expect(errors(at)).toEqual([]);
    expect(controller.step).toBe(STEPS);
    undisturbed.rows = rows(at);
    for (const e of since(at, "snapshot")) undisturbed.snapshots.set(e.step, e.bytes);
    expect([...undisturbed.snapshots.keys()]).toEqual([1, 2, 3]);
    undisturbed.final = await controller.run!.variantParams(VARIANT);

    // ---- the same run from Reset, with the device destroyed while step 2 is scored,
    // then after step 3 is trained, before its snapshot is read back ----
    await controller.send({ type: "reset" });
    at = events.length;
    let lostAt2 = false;
    beforeScore = () => {
      if (controller.step === 1 && !lostAt2) {
        lostAt2 = true;
        controller.context!.device.destroy();
      }
      if (controller.step === 2) {
        beforeScore = () => {};
        const run = controller.run!;
        const snapshot = run.snapshot.bind(run);
        run.snapshot = () => {
          controller.context!.device.destroy();
          return snapshot();
        };
      }
    };
    await controller.send({ type: "start" });
    await controller.whenIdle();
    beforeScore = () => {};
    expect(errors(at)).toEqual([]);
    expect(contexts).toBe(3);
    expect(controller.phase).toBe("done");
    expect(controller.step).toBe(STEPS);
    // The rows of the lost attempts never went out (step 3's was made): each step once.
    const train = rows(at);
    expect(train.map((r) => r.step)).toEqual([1, 2, 3]);
    expect(train.map(trainValues)).toEqual(
      undisturbed.rows.filter((r) => r.kind === "train").map(trainValues),
    );
    const lost = markers(at).filter((m) => m.fault === "device-lost");
    expect(lost.map((m) => [m.variant, m.step])).toEqual([
      [VARIANT, 2],
      [VARIANT, 3],
    ]);
    expect(lost[0].label).toMatch(/GPU device lost \(destroyed.*snapshot of step 1/);
    const log = since(at, "log")
      .map((e) => e.message)
      .join("\n");
    expect(log).toMatch(/Restored the snapshot of step 1; step 2 is trained again/);
    expect(log).toMatch(/Restored the snapshot of step 2; step 3 is trained again/);
    const final = await controller.run!.variantParams(VARIANT);
    expect(maxAbsDiff(final, undisturbed.final!), "final parameters after the lost device").toBe(0);
  });

  it("resumes a saved snapshot: same next step, same final parameters", async () => {
    const bytes = undisturbed.snapshots.get(2)!;
    expect(decodeSnapshot(bytes).step).toBe(2);
    const at = events.length;
    await controller.send({ type: "init", experiment: exp, resume: bytes });
    expect(errors(at)).toEqual([]);
    expect(controller.step).toBe(2);
    expect(controller.phase).toBe("paused");
    expect(since(at, "ready")[0].note).toMatch(/Resumed at step 2/);
    expect(markers(at)).toEqual([
      { variant: VARIANT, step: 2, label: "resumed from the snapshot of step 2" },
    ]);
    expect(rows(at, "eval")).toEqual([]); // no cold-start eval on a resume

    await controller.send({ type: "step" });
    expect(errors(at)).toEqual([]);
    expect(controller.phase).toBe("done");
    const step3 = rows(at);
    expect(step3.map(trainValues)).toEqual(
      undisturbed.rows.filter((r) => r.kind === "train" && r.step === 3).map(trainValues),
    );
    const final = await controller.run!.variantParams(VARIANT);
    expect(maxAbsDiff(final, undisturbed.final!), "final parameters after a resume").toBe(0);

    // A damaged snapshot is refused by name.
    const bad = bytes.slice();
    bad[bad.length >> 1] ^= 1;
    const at2 = events.length;
    await controller.send({ type: "init", experiment: exp, resume: bad });
    expect(errors(at2)).toEqual(["resume: snapshot: checksum mismatch, the snapshot is damaged"]);
  });

  it("a NaN gradient skips the update (metric, marker, state unchanged); twice in a row pauses with the reason", async () => {
    await controller.send({ type: "init", experiment: exp });
    const run = controller.run!;
    /** The next optimizer step of the variant sees a NaN in its gradient. */
    const poisonNextUpdate = () => {
      const adam = run.policyOf(VARIANT).adam;
      const step = adam.step.bind(adam);
      adam.step = (lr?: number) => {
        adam.step = step;
        run.ctx.write(run.engine.grads, new Float32Array([Number.NaN]));
        step(lr);
      };
    };
    const before = await run.engine.readPolicyState(run.policyOf(VARIANT));

    let at = events.length;
    poisonNextUpdate();
    await controller.send({ type: "step" });
    expect(errors(at)).toEqual([]);
    expect(controller.step).toBe(1);
    expect(controller.phase).toBe("paused");
    expect(rows(at).map((r) => r.values.update_skipped)).toEqual([1]);
    expect(markers(at)).toEqual([
      {
        variant: VARIANT,
        step: 1,
        label: "update skipped: non-finite gradient (‖g‖ = NaN)",
        fault: "update-skipped",
      },
    ]);
    const after = await run.engine.readPolicyState(run.policyOf(VARIANT));
    expect(after.t).toBe(before.t);
    expect(maxAbsDiff(after.params, before.params)).toBe(0);
    expect(maxAbsDiff(after.m, before.m)).toBe(0);
    expect(maxAbsDiff(after.v, before.v)).toBe(0);

    at = events.length;
    poisonNextUpdate();
    await controller.send({ type: "step" });
    expect(controller.step).toBe(2);
    expect(controller.phase).toBe("paused");
    expect(rows(at).map((r) => r.values.update_skipped)).toEqual([1]);
    const [reason] = errors(at);
    expect(reason).toMatch(
      new RegExp(
        `^${VARIANT} \\(2 steps\\): the optimizer skipped the update .*the same failure twice; the run is paused at step 2`,
      ),
    );
    expect(since(at, "status").at(-1)).toMatchObject({ phase: "paused", message: reason });

    // A good gradient goes through again.
    at = events.length;
    await controller.send({ type: "step" });
    expect(errors(at)).toEqual([]);
    expect(rows(at).map((r) => r.values.update_skipped)).toEqual([0]);
  });

  it("a step that fails the same way twice pauses with the reason; Train again does not loop", async () => {
    await controller.send({ type: "init", experiment: exp });
    let calls = 0;
    beforeScore = () => {
      calls++;
      throw new Error("the judge endpoint refused the batch");
    };
    let at = events.length;
    await controller.send({ type: "start" });
    await controller.whenIdle();
    expect(calls).toBe(2); // the step and one automatic retry
    const reason =
      "step 1 failed twice the same way (the judge endpoint refused the batch); the run is paused instead of trying it again. Reset, re-seed or change the settings to go on.";
    expect(errors(at)).toEqual([reason]);
    expect(controller.phase).toBe("paused");
    expect(controller.step).toBe(0);
    expect(since(at, "log").map((e) => e.message)).toContain(
      "step 1 failed (the judge endpoint refused the batch); trying it again",
    );

    at = events.length;
    await controller.send({ type: "start" });
    await controller.whenIdle();
    expect(calls).toBe(3); // one try, then paused again
    expect(errors(at)).toEqual([reason]);

    beforeScore = () => {};
    at = events.length;
    await controller.send({ type: "step" });
    expect(errors(at)).toEqual([]);
    expect(controller.step).toBe(1);
  });

  it("a reward worker killed mid-step is restarted and the step's row equals the undisturbed one", async () => {
    await controller.send({ type: "init", experiment: exp });
    // The worker dies with step 1's batch; the client starts another and sends it the batch.
    const dying = rewardWorker!;
    dying.behaviour = "die";
    const made = rewardWorkers;
    const at = events.length;
    await controller.send({ type: "step" });
    expect(errors(at)).toEqual([]);
    expect(dying.terminated).toBe(true);
    expect(rewardWorkers - made).toBe(1);
    expect(rows(at).map(trainValues)).toEqual(
      undisturbed.rows.filter((r) => r.kind === "train" && r.step === 1).map(trainValues),
    );
  });
});
