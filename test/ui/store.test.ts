import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLabStore, WEIGHT_DEBOUNCE_MS } from "../../src/store/lab-store";
import { MAX_GROUPS_PER_VARIANT, initialRunData, reduceEvent } from "../../src/store/run-data";
import type { GroupView, TrainerCommand, TrainerEvent } from "../../src/workers/protocol";
import { handleWorkerMessage, describeWorkerError } from "../../src/ui/worker-client";

function group(variant: string, step: number): GroupView {
  return {
    variant,
    step,
    promptId: `p${step}`,
    question: "What is the sum of the digits?",
    options: { A: "7", B: "8", C: "9", D: "10" },
    answer: "B",
    image: { data: new Float32Array(4), height: 2, width: 2, channels: 1 },
    rollouts: [],
  };
}

function setup() {
  const sent: TrainerCommand[] = [];
  const store = createLabStore();
  store.getState().attachTrainer({ send: (c) => sent.push(c) });
  return { store, sent, types: () => sent.map((c) => c.type) };
}

describe("event reducer", () => {
  it("folds ready, status, metrics, marker, log and error events", () => {
    let d = initialRunData();
    const evs: TrainerEvent[] = [
      { type: "ready", adapter: "SwiftShader", isFallback: true, modelSize: "small", params: 1234 },
      { type: "status", phase: "rl", step: 3, message: "go" },
      {
        type: "metrics",
        rows: [{ variant: "grr", step: 3, time: 1, kind: "eval", values: { rcAcc: 0.5 } }],
      },
      {
        type: "metrics",
        rows: [
          { variant: "grr", step: 3, time: 1, kind: "train", values: { kl: 0.1, reward_mean: 1 } },
        ],
      },
      { type: "marker", marker: { variant: "grr", step: 3, label: "λ 1 → 0.5" } },
      { type: "log", message: "hello" },
      { type: "error", message: "boom", fatal: false },
    ];
    for (const e of evs) d = reduceEvent(d, e);
    expect(d.ready).toMatchObject({ adapter: "SwiftShader", isFallback: true, modelSize: "small" });
    expect(d.phase).toBe("rl");
    expect(d.step).toBe(3);
    expect(d.metrics.keys).toEqual({ eval: ["rcAcc"], train: ["kl", "reward_mean"] });
    expect(d.metrics.byVariant.grr.train).toHaveLength(1);
    expect(d.metrics.markers).toHaveLength(1);
    expect(d.errors.map((e) => e.message)).toEqual(["boom"]);
    expect(d.phase).toBe("rl"); // non-fatal error keeps the phase
    d = reduceEvent(d, { type: "error", message: "dead", fatal: true });
    expect(d.phase).toBe("error");
  });

  it("keeps at most the last 200 sample groups per variant", () => {
    let d = initialRunData();
    for (let s = 0; s < 250; s++)
      d = reduceEvent(d, { type: "samples", groups: [group("grr", s), group("rlvr", s)] });
    expect(d.samples.byVariant.grr).toHaveLength(MAX_GROUPS_PER_VARIANT);
    expect(d.samples.byVariant.grr[0].step).toBe(50);
    expect(d.samples.byVariant.rlvr.at(-1)!.step).toBe(249);
  });
});

describe("worker messages", () => {
  it("turns an unknown event type into a visible error instead of ignoring it", () => {
    const errors: string[] = [];
    const events: TrainerEvent[] = [];
    const sink = {
      dispatch: (e: TrainerEvent) => events.push(e),
      reportError: (m: string) => errors.push(m),
    };
    handleWorkerMessage({ type: "progress", step: 1 }, sink);
    handleWorkerMessage(null, sink);
    handleWorkerMessage({ type: "log", message: "ok" }, sink);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/"progress"/);
    expect(events).toEqual([{ type: "log", message: "ok" }]);
  });
  it("describes a worker error with its location", () => {
    expect(
      describeWorkerError({ message: "SyntaxError", filename: "trainer.worker.js", lineno: 3 }),
    ).toMatch(/SyntaxError \(trainer\.worker\.js:3\)/);
    expect(describeWorkerError({})).toMatch(/could not be loaded/);
  });
});

describe("store actions → trainer commands", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("init sends the experiment; Train then sends only start", () => {
    const { store, sent, types } = setup();
    store.getState().init();
    store.getState().train();
    expect(types()).toEqual(["init", "start"]);
    expect(sent[0]).toMatchObject({ type: "init", experiment: { seed: 1 } });
    // The cold start's eval after the first RL step: Train pressed at once steps at once.
    expect(sent[0]).toMatchObject({ startEval: "after-first-step" });
  });

  it("Train after a structural edit before any step re-inits first", () => {
    const { store, types } = setup();
    store.getState().init();
    store.getState().updateExperiment((e) => ({ ...e, task: { ...e.task, family: "bars" } }));
    store.getState().train();
    expect(types()).toEqual(["init", "init", "start"]);
  });

  it("Train after a structural edit re-inits when only the cold-start eval has arrived", () => {
    const { store, types } = setup();
    store.getState().init();
    store.getState().dispatch({
      type: "metrics",
      rows: [{ variant: "rlvr", step: 0, time: 1, kind: "eval", values: { acc: 0.8 } }],
    });
    store.getState().updateExperiment((e) => ({ ...e, task: { ...e.task, multipleChoice: true } }));
    store.getState().train();
    expect(types()).toEqual(["init", "init", "start"]);
  });

  it("Train after a structural edit mid-run keeps the run (the edit waits for Apply or Reset)", () => {
    const { store, types } = setup();
    store.getState().init();
    store.getState().dispatch({
      type: "metrics",
      rows: [{ variant: "rlvr", step: 1, time: 1, kind: "train", values: { reward_mean: 0.5 } }],
    });
    store.getState().updateExperiment((e) => ({ ...e, task: { ...e.task, multipleChoice: true } }));
    store.getState().train();
    expect(types()).toEqual(["init", "start"]);
  });

  it("weight edits are sent live as one debounced setWeights, not as init", () => {
    const { store, sent, types } = setup();
    store.getState().init();
    store.getState().dispatch({ type: "status", phase: "rl", step: 5 });
    for (const l of [0.9, 0.8, 0.7]) store.getState().setVariantWeights("grr", { lambda: l });
    store.getState().setVariantWeights("grr", {}, { sigmaJ: 0.3 });
    expect(types()).toEqual(["init"]);
    vi.advanceTimersByTime(WEIGHT_DEBOUNCE_MS + 1);
    expect(types()).toEqual(["init", "setWeights"]);
    expect(sent[1]).toMatchObject({
      type: "setWeights",
      variant: "grr",
      weights: { lambda: 0.7 },
      judge: { sigmaJ: 0.3 },
    });
    // Weights are not a structural change: Reset sends reset, not init.
    store.getState().reset();
    expect(types().at(-1)).toBe("reset");
  });

  it("Reset keeps the seed, archives the run into the runs table and clears the curves", () => {
    const { store, types } = setup();
    store.getState().init();
    store.getState().dispatch({
      type: "metrics",
      rows: [{ variant: "grr", step: 1, time: 1, kind: "eval", values: { rcAcc: 0.4 } }],
    });
    store.getState().dispatch({ type: "status", phase: "paused", step: 1 });
    store.getState().reset();
    const s = store.getState();
    expect(types()).toEqual(["init", "reset"]);
    expect(s.runs).toHaveLength(1);
    expect(s.runs[0].lastEval.grr.rcAcc).toBe(0.4);
    expect(s.metrics.keys.eval).toEqual([]);
    expect(s.step).toBe(0);
    expect(s.experiment.seed).toBe(1);
  });

  it("Reset after a structural edit mid-run sends init with the new settings", () => {
    const { store, sent } = setup();
    store.getState().init();
    store.getState().dispatch({ type: "status", phase: "paused", step: 4 });
    store
      .getState()
      .updateExperiment((e) => ({ ...e, algorithm: { ...e.algorithm, estimator: "rloo" } }));
    store.getState().train(); // continues the current run: no re-init mid-run
    expect(sent.map((c) => c.type)).toEqual(["init", "start"]);
    store.getState().reset();
    expect(sent.at(-1)).toMatchObject({
      type: "init",
      experiment: { algorithm: { estimator: "rloo" } },
    });
  });

  it("Re-seed sends reseed with the new seed and updates the experiment", () => {
    const { store, sent } = setup();
    store.getState().init();
    store.getState().reseed(77);
    expect(sent.at(-1)).toEqual({ type: "reseed", seed: 77 });
    expect(store.getState().experiment.seed).toBe(77);
    expect(store.getState().sentExperiment!.seed).toBe(77);
  });

  it("reports a command sent without a trainer as an error", () => {
    const store = createLabStore();
    store.getState().train();
    expect(store.getState().errors[0].message).toMatch(/not connected/);
  });
});

describe("runs table", () => {
  it("snapshots the live run and adds a loaded run with a fresh id", () => {
    const { store } = setup();
    expect(store.getState().snapshot()).toBeNull();
    store.getState().init();
    store.getState().dispatch({
      type: "metrics",
      rows: [{ variant: "rlvr", step: 2, time: 1, kind: "eval", values: { acc: 0.3 } }],
    });
    const snap = store.getState().snapshot()!;
    expect(snap.lastEval.rlvr.acc).toBe(0.3);
    const id = store.getState().addRun({ ...snap, label: "saved" });
    store.getState().viewRun(id);
    expect(store.getState().runs.map((r) => r.id)).toEqual([id]);
    expect(store.getState().viewingRun).toBe(id);
  });
});
