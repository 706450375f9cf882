// The lesson slice of the store: the Experiment picker (a preset's experiment
// is sent at once, the live run archived), the preset in the link, and the
// playback of a shipped recording (play, pause, scrub) where the page cannot
// train.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createLabStore } from "../../src/store/lab-store";
import { editedFromPreset, presetOf } from "../../src/store/lesson";
import { checkRecording } from "../../src/store/saved-run-check";
import { presetExperiment, PICKER_PRESETS } from "../../src/settings/presets";
import { parseExperiment } from "../../src/settings/experiment";
import type { TrainerCommand } from "../../src/workers/protocol";
import { decodePreset, encodeLink, decodeExperiment } from "../../src/ui/lib/url-state";
import type { Recording } from "../../src/store/recording";

const ROOT = resolve(import.meta.dirname, "../..");
const shipped = (preset: string): Recording =>
  checkRecording(
    JSON.parse(readFileSync(resolve(ROOT, "public/recordings", `${preset}.json`), "utf8")),
    preset,
  );

describe("the Experiment picker", () => {
  it("sends the preset's experiment at once and archives a run that has data", () => {
    const sent: TrainerCommand[] = [];
    const store = createLabStore();
    store.getState().attachTrainer({ send: (c) => sent.push(c) });
    store.getState().init();
    store.getState().dispatch({
      type: "metrics",
      rows: [{ variant: "rlvr", step: 1, time: 1, kind: "train", values: { kl: 0 } }],
    });
    store.getState().pickPreset("drift");
    const init = sent.filter((c) => c.type === "init").at(-1);
    expect(init?.type === "init" && init.experiment).toEqual(presetExperiment("drift"));
    expect(store.getState().presetName).toBe("drift");
    expect(store.getState().runs).toHaveLength(1); // the run with data, archived
    expect(store.getState().metrics.byVariant).toEqual({});
  });

  it("names the preset an experiment is, and whether it was edited", () => {
    for (const n of PICKER_PRESETS) expect(presetOf(presetExperiment(n))).toBe(n);
    expect(presetOf(presetExperiment("drift", { seed: 9 }))).toBe("drift");
    const edited = parseExperiment({ ...presetExperiment("drift"), evalSize: 64 });
    expect(presetOf(edited)).toBeNull();
    expect(editedFromPreset(edited, "drift")).toBe(true);
    expect(editedFromPreset(presetExperiment("drift"), "drift")).toBe(false);
  });

  it("keeps the choice in the link; an unknown preset is named and its settings applied", () => {
    const hash = encodeLink(presetExperiment("acre-paper"), "acre-paper");
    expect(hash).toMatch(/&preset=acre-paper$/);
    expect(decodePreset(hash)).toEqual({ preset: "acre-paper", error: null });
    expect(decodeExperiment(hash)).toEqual({
      experiment: presetExperiment("acre-paper"),
      error: null,
    });
    const bad = decodePreset(`${encodeLink(presetExperiment("drift"), null)}&preset=nope`);
    expect(bad.preset).toBeNull();
    expect(bad.error).toMatch(/names the preset 'nope', which this lab does not have/);
  });
});

describe("playing a recording", () => {
  it("without a trainer, picking a preset plays its recording, paused at the first eval after step 0 when it names no openStep", async () => {
    const rec = shipped("default");
    const store = createLabStore();
    store.getState().attachRecordings(async (p) => {
      expect(p).toBe("default");
      return rec;
    });
    store.getState().setNoTraining("This browser has no WebGPU");
    store.getState().pickPreset("default");
    await expect.poll(() => store.getState().playback).not.toBeNull();
    const pb = store.getState().playback!;
    const evalSteps = [...new Set(rec.run.metrics.byVariant.rlvr.eval.map((r) => r.step))];
    expect(pb.step).toBe(evalSteps.find((s) => s > 0));
    expect(pb.playing).toBe(false);
    // Rows and groups up to that step only; the charts describe the recording's experiment.
    const s = store.getState();
    expect(Math.max(...s.metrics.byVariant.rlvr.train.map((r) => r.step))).toBe(pb.step);
    expect(
      Object.values(s.samples.byVariant)
        .flat()
        .every((g) => g.step <= pb.step),
    ).toBe(true);
    expect(s.sentExperiment).toEqual(rec.run.experiment);

    // Scrub to the end, then play again from the start; advancing stops at the last step.
    const last = pb.steps.at(-1)!;
    store.getState().setPlaybackStep(last + 100);
    expect(store.getState().playback!.step).toBe(last);
    expect(store.getState().metrics.byVariant.rlvr.eval.length).toBe(
      rec.run.metrics.byVariant.rlvr.eval.length,
    );
    store.getState().setPlaying(true);
    expect(store.getState().playback!.step).toBe(pb.steps[0]);
    for (let i = 0; i < pb.steps.length + 2; i++) store.getState().advancePlayback();
    expect(store.getState().playback).toMatchObject({ step: last, playing: false });
  });

  it("opens at the step the page's loader set (openStep), rows and groups up to it", async () => {
    const rec = shipped("default");
    const steps = [...new Set(rec.run.metrics.byVariant.rlvr.train.map((r) => r.step))];
    const mid = steps[Math.floor(steps.length / 2)];
    const store = createLabStore();
    store.getState().attachRecordings(async () => ({ ...rec, openStep: mid }));
    store.getState().setNoTraining("This browser has no WebGPU");
    store.getState().pickPreset("default");
    await expect.poll(() => store.getState().playback).not.toBeNull();
    expect(store.getState().playback).toMatchObject({ step: mid, playing: false });
    const s = store.getState();
    expect(Math.max(...s.metrics.byVariant.rlvr.train.map((r) => r.step))).toBe(mid);
    expect(
      Object.values(s.samples.byVariant)
        .flat()
        .every((g) => g.step <= mid),
    ).toBe(true);
  });

  it("overlays a recording on a live run", async () => {
    const store = createLabStore();
    store.getState().attachRecordings(async () => shipped("default"));
    await store.getState().overlayRecording("default");
    const o = store.getState().overlays;
    expect(o.map((x) => x.id)).toEqual(["rec:default"]);
    expect(Object.keys(o[0].metrics.byVariant).sort()).toEqual(["grr", "rlvr"]);
  });

  it("a recording that cannot be loaded is a page problem naming it", async () => {
    const store = createLabStore();
    store.getState().attachRecordings(async () => {
      throw new Error("recordings/drift.json: HTTP 404");
    });
    await store.getState().overlayRecording("drift");
    expect(store.getState().errors.at(-1)?.message).toBe(
      "The recording of 'drift' could not be loaded: recordings/drift.json: HTTP 404",
    );
  });
});
