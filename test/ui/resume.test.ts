/**
 * The page's side of resuming (no DOM, no IndexedDB): snapshot events land in
 * the store, the autosave writes them with the run's metrics, a saved run
 * with a snapshot passes the saved-run check and resumes (the live run
 * archived, its rows cut at the snapshot's step, `init` sent with `resume`),
 * and fault markers keep their kind through the check.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_EXPERIMENT } from "../../src/settings/experiment";
import type { MetricRow } from "../../src/run/run-types";
import { startAutosave, type AutosaveRecord } from "../../src/store/autosave";
import { createLabStore } from "../../src/store/lab-store";
import { metricsUpTo } from "../../src/store/run-data";
import { checkSavedRun, checkSavedRunSummary } from "../../src/store/saved-run-check";
import type { TrainerCommand } from "../../src/workers/protocol";

const row = (step: number, kind: "train" | "eval"): MetricRow => ({
  variant: "rlvr",
  step,
  time: step,
  kind,
  values: kind === "eval" ? { acc: step / 10 } : { loss: 1 / step },
});

function setup() {
  const sent: TrainerCommand[] = [];
  const store = createLabStore();
  store.getState().attachTrainer({ send: (c) => sent.push(c) });
  store.getState().init();
  return { store, sent };
}

describe("resuming saved runs", () => {
  it("cuts a run's metrics at a step (rows and markers after it dropped)", () => {
    const { store } = setup();
    store.getState().dispatch({
      type: "metrics",
      rows: [row(1, "train"), row(2, "train"), row(2, "eval"), row(3, "train")],
    });
    store.getState().dispatch({
      type: "marker",
      marker: { variant: "rlvr", step: 3, label: "GPU device lost", fault: "device-lost" },
    });
    const cut = metricsUpTo(store.getState().metrics, 2);
    expect(cut.byVariant.rlvr.train.map((r) => r.step)).toEqual([1, 2]);
    expect(cut.byVariant.rlvr.eval.map((r) => r.step)).toEqual([2]);
    expect(cut.keys).toEqual({ train: ["loss"], eval: ["acc"] });
    expect(cut.markers).toEqual([]);
  });

  it("autosaves each snapshot with the run's settings and metrics", async () => {
    const { store } = setup();
    const saved: AutosaveRecord[] = [];
    const stop = startAutosave(store, async (rec) => {
      saved.push(rec);
    });
    const bytes = new Uint8Array([1, 2, 3]);
    // Nothing trained yet: nothing to save.
    store.getState().dispatch({ type: "snapshot", step: 0, bytes });
    store.getState().dispatch({ type: "metrics", rows: [row(1, "train"), row(1, "eval")] });
    store.getState().dispatch({ type: "status", phase: "paused", step: 1 });
    store.getState().dispatch({ type: "snapshot", step: 1, bytes });
    await new Promise((r) => setTimeout(r, 0));
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({
      lastStep: 1,
      snapshotStep: 1,
      snapshot: bytes,
      lastEval: { rlvr: { acc: 0.1 } },
      experiment: store.getState().sentExperiment,
    });
    expect(saved[0].name).toMatch(/^autosave · seed \d+ · .* · step 1$/);
    stop();

    // A failing write is shown once while it keeps failing the same way.
    const stop2 = startAutosave(store, () =>
      Promise.reject(new Error("IndexedDB is not available")),
    );
    store.getState().dispatch({ type: "snapshot", step: 1, bytes: new Uint8Array(1) });
    store.getState().dispatch({ type: "snapshot", step: 1, bytes: new Uint8Array(2) });
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getState().errors.map((e) => e.message)).toEqual([
      "Autosave failed: IndexedDB is not available",
    ]);
    stop2();
  });

  it("resumes a checked saved run: live run archived, rows cut at the snapshot, init with resume", () => {
    const { store, sent } = setup();
    store.getState().dispatch({ type: "metrics", rows: [row(1, "train")] });
    store.getState().dispatch({ type: "status", phase: "paused", step: 1 });
    const snapshot = new Uint8Array([9, 9, 9]);
    const record = {
      key: "k1",
      name: "seed 1 · rlvr · step 3",
      savedAt: 1,
      experiment: structuredClone(DEFAULT_EXPERIMENT),
      lastStep: 3,
      lastEval: {},
      metrics: {
        byVariant: {
          rlvr: {
            train: [row(1, "train"), row(2, "train"), row(3, "train")],
            eval: [row(2, "eval")],
          },
        },
        keys: { train: ["loss"], eval: ["acc"] },
        markers: [{ variant: "rlvr", step: 2, label: "update skipped", fault: "update-skipped" }],
        version: 4,
      },
      snapshot,
      snapshotStep: 2,
    };
    expect(
      checkSavedRunSummary({ ...record, metrics: undefined, snapshot: undefined }),
    ).toMatchObject({
      snapshotStep: 2,
    });
    const r = checkSavedRun(record);
    expect(r.snapshot).toBe(snapshot);
    expect(r.metrics.markers[0].fault).toBe("update-skipped");
    expect(() => checkSavedRun({ ...record, snapshot: "AAAA" })).toThrow(
      /snapshot: expected bytes/,
    );
    expect(() => checkSavedRun({ ...record, snapshotStep: undefined })).toThrow(
      /snapshot and snapshotStep go together/,
    );

    store.getState().resumeRun({
      experiment: r.experiment,
      metrics: r.metrics,
      snapshot: r.snapshot!,
      snapshotStep: r.snapshotStep!,
    });
    const s = store.getState();
    expect(s.runs.map((x) => x.lastStep)).toEqual([1]); // the live run, archived
    expect(s.step).toBe(2);
    expect(s.metrics.byVariant.rlvr.train.map((x) => x.step)).toEqual([1, 2]);
    expect(s.runSnapshot).toEqual({ step: 2, bytes: snapshot });
    expect(sent.at(-1)).toEqual({ type: "init", experiment: r.experiment, resume: snapshot });
    // Train goes on from the snapshot: no re-init.
    s.train();
    expect(sent.at(-1)).toEqual({ type: "start" });
  });
});
