/**
 * The lesson slice of the lab store: the Experiment picker's preset, the
 * view of a first-time visitor (guided view, presentation size, settings
 * drawer, zoom of the rate charts), the links from a callout to a chart and
 * a rollout, and the playback of a recorded run (./recording.ts) in the same
 * charts, inspector and guided view where the page cannot train.
 * No React, no DOM: tested in Node.
 */
import type { Experiment } from "../settings/experiment";
import { presetEntry, presetExperiment, PICKER_PRESETS } from "../settings/presets";
import type { GroupView } from "../rl/step-types";
import { metricsUpTo, type MetricsData, type RunData, type SamplesData } from "./run-data";
import type { Recording } from "./recording";

/** A rollout the inspector is asked to show (a callout's example). */
interface RolloutFocus {
  variant: string;
  step: number;
  promptId: string;
  seed?: number;
  index: number;
}

/** A recorded run being played in place of a live run. */
interface Playback {
  recording: Recording;
  /** Every step the recording has a row at, ascending. */
  steps: number[];
  /** The step shown (rows and groups up to it). */
  step: number;
  playing: boolean;
}

export interface LessonState {
  /** The picker's preset (src/settings/presets.ts), or null for an experiment of no preset. */
  presetName: string | null;
  guideOpen: boolean;
  presentation: boolean;
  settingsOpen: boolean;
  /** False: rate charts on [0, 1]; true: fitted to the data. */
  zoomToData: boolean;
  /** The last rollout a callout asked for; `n` counts requests (the same rollout twice scrolls twice). */
  rolloutFocus: (RolloutFocus & { n: number }) | null;
  /** The last chart a callout asked for. */
  chartFocus: { chart: string; n: number } | null;
  /** Why the page cannot train (no WebGPU, no adapter); null when it can. */
  noTraining: string | null;
  playback: Playback | null;

  setGuideOpen(v: boolean): void;
  setPresentation(v: boolean): void;
  setSettingsOpen(v: boolean): void;
  setZoomToData(v: boolean): void;
  focusRollout(f: RolloutFocus): void;
  focusChart(chart: string): void;
  /** The page cannot train: say why, and play recordings instead. */
  setNoTraining(reason: string): void;
  /** Shows a recording in place of the live run, paused at its `openStep` (absent: its first eval step after 0). */
  playRecording(rec: Recording): void;
  /** Shows the recording up to `step` (clamped to its steps). */
  setPlaybackStep(step: number): void;
  setPlaying(v: boolean): void;
  /** One recorded step on; stops at the last. */
  advancePlayback(): void;
}

/** The picker's preset whose experiment equals `exp` (seed aside), or null. */
export function presetOf(exp: Experiment): string | null {
  const key = (e: Experiment) => JSON.stringify({ ...e, seed: 0, seeds: undefined });
  const k = key(exp);
  return PICKER_PRESETS.find((n) => key(presetExperiment(n)) === k) ?? null;
}

/** True when `exp` is no longer preset `name`'s experiment (seed and seeds aside). */
export function editedFromPreset(exp: Experiment, name: string): boolean {
  const key = (e: Experiment) => JSON.stringify({ ...e, seed: 0, seeds: undefined });
  return key(exp) !== key(presetExperiment(name));
}

/** The held-out metrics the overview charts for `preset` (custom experiments: RC-Acc, IncR, Acc, and OSCR on multiple choice). */
export function overviewMetrics(preset: string | null, exp: Experiment): string[] {
  if (preset) return [...presetEntry(preset).overview];
  return exp.task.multipleChoice ? ["rcAcc", "incR", "acc", "oscr"] : ["rcAcc", "incR", "acc"];
}

/** Steps with a row in a recording, ascending. */
function recordedSteps(m: MetricsData): number[] {
  const s = new Set<number>();
  for (const rows of Object.values(m.byVariant))
    for (const r of [...rows.train, ...rows.eval]) s.add(r.step);
  return [...s].sort((a, b) => a - b);
}

/** The run data a recording shows at `step`: its rows and markers up to it, its groups up to it. */
function playbackData(
  rec: Recording,
  step: number,
  prevVersion: number,
): Pick<RunData, "metrics" | "samples" | "step"> {
  const metrics = metricsUpTo(rec.run.metrics, step);
  metrics.version = prevVersion + 1;
  const byVariant: Record<string, GroupView[]> = {};
  for (const g of rec.samples) {
    if (g.step > step) continue;
    byVariant[g.variant] ??= [];
    byVariant[g.variant].push(g);
  }
  const samples: SamplesData = { byVariant, version: prevVersion + 1 };
  return { metrics, samples, step };
}

type Set_<S> = (partial: Partial<S> | ((s: S) => Partial<S>)) => void;

/**
 * The slice's initial state and actions.
 * @param firstVisit whether this browser has not shown the lab before (guided view open).
 */
export function lessonSlice<
  S extends LessonState & RunData & { sentExperiment: Experiment | null; experiment: Experiment },
>(set: Set_<S>, get: () => S, firstVisit: boolean): LessonState {
  let requests = 0;
  const showStep = (step: number) => {
    const pb = get().playback;
    if (!pb) return;
    const steps = pb.steps;
    const clamped = steps.length ? steps.reduce((best, s) => (s <= step ? s : best), steps[0]) : 0;
    set({
      ...playbackData(pb.recording, clamped, get().metrics.version),
      playback: { ...pb, step: clamped },
    } as Partial<S>);
  };
  return {
    presetName: null,
    guideOpen: firstVisit,
    presentation: false,
    settingsOpen: false,
    zoomToData: false,
    rolloutFocus: null,
    chartFocus: null,
    noTraining: null,
    playback: null,

    setGuideOpen: (v) => set({ guideOpen: v } as Partial<S>),
    setPresentation: (v) => set({ presentation: v } as Partial<S>),
    setSettingsOpen: (v) => set({ settingsOpen: v } as Partial<S>),
    setZoomToData: (v) => set({ zoomToData: v } as Partial<S>),
    focusRollout: (f) =>
      set({ rolloutFocus: { ...f, n: ++requests }, inspectorOpen: true } as unknown as Partial<S>),
    focusChart: (chart) => set({ chartFocus: { chart, n: ++requests } } as Partial<S>),
    setNoTraining: (reason) => set({ noTraining: reason, phase: "idle" } as Partial<S>),
    playRecording: (rec) => {
      const steps = recordedSteps(rec.run.metrics);
      const firstEval = Math.min(
        ...Object.values(rec.run.metrics.byVariant).flatMap((r) =>
          r.eval.filter((x) => x.step > 0).map((x) => x.step),
        ),
        steps[steps.length - 1] ?? 0,
      );
      set({
        playback: { recording: rec, steps, step: 0, playing: false },
        // What the charts and the guided view describe; the edited experiment stays the preset's.
        sentExperiment: rec.run.experiment,
        presetName: rec.preset,
      } as Partial<S>);
      showStep(rec.openStep ?? (Number.isFinite(firstEval) ? firstEval : 0));
    },
    setPlaybackStep: (step) => showStep(step),
    setPlaying: (v) => {
      const pb = get().playback;
      if (!pb) return;
      // Play from the start again once the end was reached.
      const atEnd = pb.step >= (pb.steps[pb.steps.length - 1] ?? 0);
      if (v && atEnd) showStep(pb.steps[0] ?? 0);
      set({ playback: { ...get().playback!, playing: v } } as Partial<S>);
    },
    advancePlayback: () => {
      const pb = get().playback;
      if (!pb) return;
      const next = pb.steps.find((s) => s > pb.step);
      if (next === undefined) {
        set({ playback: { ...pb, playing: false } } as Partial<S>);
        return;
      }
      showStep(next);
    },
  };
}
