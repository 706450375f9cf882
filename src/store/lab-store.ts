/**
 * The one lab store (zustand, vanilla so tests and the worker bridge can use
 * it without React). Slices: config (the experiment being edited and the one
 * the trainer runs), run (events folded by `reduceEvent`), view (smoothing,
 * x-axis, inspector), runs (archived runs for the runs table).
 *
 * Rule of thumb for edits:
 * - weights and judge noise of a variant apply live: `setWeights` goes to the
 *   trainer (debounced while a slider is dragged) and applies from its next
 *   step; the trainer answers with a marker drawn on the charts;
 * - everything else (task, model size, variants, algorithm, seed) changes what
 *   is trained: it is sent with `init` when nothing has been trained yet, or on
 *   Reset ("pending changes" banner until then).
 */
import { createStore, type StoreApi } from "zustand/vanilla";
import { withPatch, type Experiment, type VariantConfig } from "../settings/experiment";
import {
  variantEntry,
  type VariantName,
  type WeightPatch,
  type WeightValue,
} from "../settings/variant-table";
import type { TrainerCommand, TrainerEvent } from "../workers/protocol";
import type { Marker, MetricRow } from "../run/run-types";
import {
  clearRun,
  initialRunData,
  makeError,
  metricsUpTo,
  reduceEvent,
  type MetricsData,
  type RunData,
} from "./run-data";
import { DEFAULT_EXPERIMENT } from "../settings/experiment";

import { presetExperiment } from "../settings/presets";
import { lessonSlice, type LessonState } from "./lesson";
import type { Recording } from "./recording";
import { HELD_CODE_MESSAGE } from "./reward-code";

type XAxisKind = "step" | "time";

/** Where commands go (the worker client, or a fake in tests). */
export interface TrainerPort {
  send(cmd: TrainerCommand): void;
}

export interface RunRecord {
  id: number;
  label: string;
  experiment: Experiment;
  lastStep: number;
  /** Last eval values per variant. */
  lastEval: Record<string, Record<string, number>>;
  metrics: MetricsData;
}

/** What the legend and the tooltip need about an overlaid run. */
export interface OverlayInfo {
  /** Unique id: "r<id>" for a run of this session, "s<key>" for a run saved in the browser. */
  id: string;
  /** Short name ("run 2", "saved …"). */
  label: string;
  experiment: Experiment;
  /** The overlaid run's markers (fork markers name its forks). */
  markers?: readonly Marker[];
}

/**
 * A run drawn over the current charts (dashed), from the runs table or the
 * browser's saved runs. `id`: "r<RunRecord.id>" or "s<SavedRun.key>".
 */
export interface OverlayRun extends OverlayInfo {
  metrics: MetricsData;
}

/** Where recordings come from (the page fetches public/recordings; tests pass their own). */
type RecordingLoader = (preset: string) => Promise<Recording>;

export interface LabState extends RunData, LessonState {
  experiment: Experiment;
  /** What the trainer was last initialized with (null before the first init). */
  sentExperiment: Experiment | null;
  urlError: string | null;
  smoothing: number;
  xAxis: XAxisKind;
  inspectorOpen: boolean;
  runs: RunRecord[];
  /** A past run shown in the charts instead of the live one (view only). */
  viewingRun: number | null;
  /** Runs overlaid on the charts, in the order they were checked. */
  overlays: OverlayRun[];
  trainer: TrainerPort | null;
  recordings: RecordingLoader | null;
  /** A written reward's code from a link, not yet allowed to run (./reward-code.ts). */
  rewardCodeHeld: boolean;
  /** The user read the held code and pressed Run: training may run it. */
  runRewardCode(): void;

  attachTrainer(port: TrainerPort | null): void;
  attachRecordings(loader: RecordingLoader | null): void;
  /**
   * The Experiment picker: preset `name`'s experiment becomes the one edited
   * and run. Where the page trains, the live run (if any) is archived and the
   * trainer initialized with it at once; where it cannot, the preset's
   * recording is played.
   */
  pickPreset(name: string): void;
  /** Loads preset `name`'s recording and overlays it on the charts (id "rec:<name>"). */
  overlayRecording(name: string): Promise<void>;
  dispatch(ev: TrainerEvent): void;
  reportError(message: string, fatal: boolean, source?: "worker" | "page"): void;
  dismissError(id: number): void;
  /** Structural edit of the experiment (task, model, variants, algorithm, seed). */
  updateExperiment(fn: (e: Experiment) => Experiment): void;
  /**
   * Live edit of a variant's weights / judge noise: some of variant N's
   * weights (WeightPatch<N>, as its sliders write them); sent to the trainer
   * as `setWeights`, whose entry checks them.
   */
  setVariantWeights<N extends VariantName>(
    variant: N,
    weights: WeightPatch<N>,
    judge?: Partial<VariantConfig["judge"]>,
  ): void;
  /** Flushes pending debounced setWeights now (used on Train/Step and in tests). */
  flushWeights(): void;
  init(): void;
  train(): void;
  pause(): void;
  stepOnce(): void;
  reset(): void;
  reseed(seed?: number): void;
  runSft(): void;
  setSmoothing(v: number): void;
  setXAxis(v: XAxisKind): void;
  setInspectorOpen(v: boolean): void;
  viewRun(id: number | null): void;
  /** Overlays a run on the charts (an overlay with the same id is replaced). */
  addOverlay(run: OverlayRun): void;
  /** Removes an overlay by id (no-op when absent). */
  removeOverlay(id: string): void;
  /**
   * Forks a variant of the running experiment at the trainer's current step
   * into a branch with these weights / judge noise (trainer command `fork`;
   * the branch's rows arrive as `<variant>@fork<step>`).
   */
  fork(
    variant: string,
    weights: Readonly<Record<string, WeightValue>>,
    judge?: Partial<VariantConfig["judge"]>,
  ): void;
  /** Asks the trainer worker for `variant`'s current policy as ONNX (answered by an `onnx` event, which the page downloads). */
  exportOnnx(variant: string): void;
  /**
   * Continues a saved run: the live run is archived, the saved one's
   * settings and its metrics up to the snapshot's step become the live run,
   * and the trainer is initialized from the snapshot (`init` with `resume`);
   * Train then goes on from step `snapshotStep` + 1.
   */
  resumeRun(saved: ResumableRun): void;
  /** Adds a run (e.g. loaded from IndexedDB) to the runs table; returns its id. */
  addRun(run: Omit<RunRecord, "id">): number;
  /** The live run as a record (null before anything was trained). */
  snapshot(): Omit<RunRecord, "id"> | null;
}

/** What `resumeRun` needs of a saved run. */
interface ResumableRun {
  experiment: Experiment;
  metrics: MetricsData;
  /** The run snapshot (encodeSnapshot bytes) and its step. */
  snapshot: Uint8Array;
  snapshotStep: number;
}

export const RUNNING_PHASES = new Set(["rl", "sft"]);
export const WEIGHT_DEBOUNCE_MS = 200;

/** Experiment without the live-editable parts (weights, judge), for "is a re-init needed?". */
function structural(e: Experiment): string {
  return JSON.stringify({
    ...e,
    variants: e.variants.map(({ weights: _w, judge: _j, ...rest }) => rest),
  });
}

/** Whether two configs of one variant have the same weights (a written reward: the same code). */
function sameWeights(a: VariantConfig, b: VariantConfig): boolean {
  return JSON.stringify(a.weights) === JSON.stringify(b.weights);
}

/** True when the edited experiment differs from the running one in something only `init` can apply. */
export function needsInit(s: Pick<LabState, "experiment" | "sentExperiment">): boolean {
  return s.sentExperiment === null || structural(s.experiment) !== structural(s.sentExperiment);
}

/**
 * Whether anything has been trained in the current run: an RL step, or any
 * SFT / training row. The cold-start evaluation (eval rows at step 0) does not
 * count, so a settings change before the first step still applies on Train.
 */
export function hasRunData(s: Pick<LabState, "step" | "metrics">): boolean {
  if (s.step > 0) return true;
  return Object.values(s.metrics.byVariant).some(
    (rows) => rows.train.length > 0 || rows.eval.some((r) => r.step > 0),
  );
}

function lastEvalOf(m: MetricsData): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [v, rows] of Object.entries(m.byVariant)) {
    const last: MetricRow | undefined = rows.eval[rows.eval.length - 1];
    if (last) out[v] = { ...last.values };
  }
  return out;
}

export function createLabStore(
  initial: {
    experiment?: Experiment;
    urlError?: string | null;
    presetName?: string | null;
    firstVisit?: boolean;
  } = {},
): StoreApi<LabState> {
  let nextRunId = 1;
  const pendingWeights = new Map<VariantName, ReturnType<typeof setTimeout>>();

  return createStore<LabState>()((set, get) => {
    const send = (cmd: TrainerCommand) => {
      const t = get().trainer;
      if (!t) {
        get().reportError(
          `The trainer is not connected; '${cmd.type}' was not sent.`,
          false,
          "page",
        );
        return;
      }
      t.send(cmd);
    };

    const sendWeightsNow = (variant: VariantName) => {
      pendingWeights.delete(variant);
      const v = get().experiment.variants.find((x) => x.name === variant);
      if (!v) return;
      send({
        type: "setWeights",
        variant: v.name,
        weights: { ...v.weights },
        judge: { ...v.judge },
      });
      const sent = get().sentExperiment;
      if (sent) {
        set({
          sentExperiment: {
            ...sent,
            // Only the weights and judge settings: a structural edit not yet sent stays pending.
            variants: sent.variants.map((x) =>
              x.name === variant ? withPatch(x, { weights: v.weights, judge: v.judge }) : x,
            ),
          },
        });
      }
    };

    /** Archives the current run (if it has data) into the runs table and clears the live data. */
    const archiveAndClear = () => {
      const s = get();
      if (hasRunData(s) && s.sentExperiment) {
        const id = nextRunId++;
        const rec: RunRecord = {
          id,
          label: `run ${id}`,
          experiment: s.sentExperiment,
          lastStep: s.step,
          lastEval: lastEvalOf(s.metrics),
          metrics: s.metrics,
        };
        set({ runs: s.runs.concat(rec) });
      }
      set((st) => ({ ...clearRun(st), viewingRun: null }));
    };

    const sendInit = () => {
      get().flushWeights();
      const experiment = get().experiment;
      set({ sentExperiment: experiment });
      // The cold start's step-0 eval after the first RL step: Train pressed at once steps at once.
      send({ type: "init", experiment, startEval: "after-first-step" });
    };

    const lesson = lessonSlice<LabState>(set, get, initial.firstVisit ?? true);
    const loadRecording = async (name: string): Promise<Recording | null> => {
      const load = get().recordings;
      if (!load) {
        get().reportError("No recordings can be loaded here.", false, "page");
        return null;
      }
      try {
        return await load(name);
      } catch (e) {
        get().reportError(
          `The recording of '${name}' could not be loaded: ${e instanceof Error ? e.message : String(e)}`,
          false,
          "page",
        );
        return null;
      }
    };

    return {
      ...initialRunData(),
      ...lesson,
      presetName: initial.presetName ?? null,
      experiment: initial.experiment ?? DEFAULT_EXPERIMENT,
      sentExperiment: null,
      urlError: initial.urlError ?? null,
      smoothing: 0.6,
      xAxis: "step",
      inspectorOpen: false,
      runs: [],
      viewingRun: null,
      overlays: [],
      trainer: null,
      recordings: null,
      rewardCodeHeld: false,
      runRewardCode: () => {
        set({ rewardCodeHeld: false });
        // Code held while a run was live goes to the trainer now, as a typed edit would.
        const sent = get().sentExperiment;
        for (const v of get().experiment.variants) {
          const was = sent?.variants.find((x) => x.name === v.name);
          if (was && variantEntry(v.name).sandboxed === true && !sameWeights(was, v))
            sendWeightsNow(v.name);
        }
      },

      attachTrainer: (port) => set({ trainer: port }),
      attachRecordings: (loader) => set({ recordings: loader }),
      pickPreset: (name) => {
        const experiment = presetExperiment(name);
        set({ presetName: name });
        if (get().noTraining) {
          set({ experiment });
          void loadRecording(name).then((rec) => {
            // A later pick may have overtaken this one.
            if (rec && get().presetName === name) get().playRecording(rec);
          });
          return;
        }
        get().flushWeights();
        // A run in progress stops at its step boundary before the new one starts.
        if (RUNNING_PHASES.has(get().phase)) send({ type: "pause" });
        archiveAndClear();
        set({ experiment });
        sendInit();
      },
      overlayRecording: async (name) => {
        const rec = await loadRecording(name);
        if (!rec) return;
        get().addOverlay({
          id: `rec:${name}`,
          label: `recording of ${name}`,
          experiment: rec.run.experiment,
          markers: rec.run.metrics.markers,
          metrics: rec.run.metrics,
        });
      },
      dispatch: (ev) => set((s) => reduceEvent(s, ev)),
      reportError: (message, fatal, source = "page") =>
        set((s) => ({
          errors: s.errors.concat(makeError(message, fatal, source)),
          phase: fatal ? "error" : s.phase,
        })),
      dismissError: (id) => set((s) => ({ errors: s.errors.filter((e) => e.id !== id) })),

      updateExperiment: (fn) => set((s) => ({ experiment: fn(s.experiment) })),

      setVariantWeights: (variant, weights, judge) => {
        set((s) => ({
          experiment: {
            ...s.experiment,
            variants: s.experiment.variants.map((v) =>
              v.name === variant ? withPatch(v, { weights, judge }) : v,
            ),
          },
        }));
        // Not initialized yet: the next init carries the weights.
        if (!get().sentExperiment?.variants.some((v) => v.name === variant)) return;
        // A link's code waits for Run (./reward-code.ts); runRewardCode sends it then.
        if (get().rewardCodeHeld && variantEntry(variant).sandboxed === true) return;
        const t = pendingWeights.get(variant);
        if (t) clearTimeout(t);
        pendingWeights.set(
          variant,
          setTimeout(() => sendWeightsNow(variant), WEIGHT_DEBOUNCE_MS),
        );
      },
      flushWeights: () => {
        for (const [variant, t] of [...pendingWeights]) {
          clearTimeout(t);
          sendWeightsNow(variant);
        }
      },

      init: () => sendInit(),
      train: () => {
        const s = get();
        if (s.rewardCodeHeld) return s.reportError(HELD_CODE_MESSAGE, false, "page");
        if (needsInit(s) && !hasRunData(s)) sendInit();
        get().flushWeights();
        set({ viewingRun: null });
        send({ type: "start" });
      },
      pause: () => send({ type: "pause" }),
      stepOnce: () => {
        const s = get();
        if (s.rewardCodeHeld) return s.reportError(HELD_CODE_MESSAGE, false, "page");
        if (needsInit(s) && !hasRunData(s)) sendInit();
        get().flushWeights();
        set({ viewingRun: null });
        send({ type: "step" });
      },
      reset: () => {
        archiveAndClear();
        if (needsInit(get())) sendInit();
        else send({ type: "reset" });
      },
      reseed: (seed) => {
        const newSeed = seed ?? Math.floor(Math.random() * 2 ** 31 - 1);
        const many = get().experiment.seeds;
        if (many) {
          // Several seeds: a fresh set of as many seeds (the trainer re-initializes with them).
          const fresh = new Set<number>(seed !== undefined ? [seed] : []);
          while (fresh.size < many.length) fresh.add(Math.floor(Math.random() * (2 ** 31 - 1)));
          archiveAndClear();
          set((s) => ({ experiment: { ...s.experiment, seeds: [...fresh] } }));
          sendInit();
          return;
        }
        archiveAndClear();
        set((s) => ({ experiment: { ...s.experiment, seed: newSeed } }));
        if (
          needsInit({
            experiment: get().experiment,
            sentExperiment: get().sentExperiment && { ...get().sentExperiment!, seed: newSeed },
          })
        ) {
          sendInit();
        } else {
          set((s) => ({
            sentExperiment: s.sentExperiment && { ...s.sentExperiment, seed: newSeed },
          }));
          send({ type: "reseed", seed: newSeed });
        }
      },
      runSft: () => {
        if (needsInit(get()) && !hasRunData(get())) sendInit();
        send({ type: "runSft" });
      },

      setSmoothing: (v) => set({ smoothing: Math.min(Math.max(v, 0), 0.99) }),
      setXAxis: (v) => set({ xAxis: v }),
      setInspectorOpen: (v) => set({ inspectorOpen: v }),
      viewRun: (id) => set({ viewingRun: id }),
      addOverlay: (run) =>
        set((s) => ({ overlays: s.overlays.filter((o) => o.id !== run.id).concat(run) })),
      removeOverlay: (id) => set((s) => ({ overlays: s.overlays.filter((o) => o.id !== id) })),
      fork: (variant, weights, judge) => {
        if (!get().sentExperiment) {
          get().reportError("Nothing to fork yet: press Train or Step first.", false, "page");
          return;
        }
        get().flushWeights();
        send({ type: "fork", variant, weights: { ...weights }, judge: judge && { ...judge } });
      },
      exportOnnx: (variant) => {
        if (!get().sentExperiment) {
          get().reportError("Nothing to export yet: press Train or Step first.", false, "page");
          return;
        }
        send({ type: "exportOnnx", variant });
      },
      resumeRun: (saved) => {
        get().flushWeights();
        archiveAndClear();
        set({
          experiment: saved.experiment,
          sentExperiment: saved.experiment,
          metrics: metricsUpTo(saved.metrics, saved.snapshotStep),
          step: saved.snapshotStep,
          runSnapshot: { step: saved.snapshotStep, bytes: saved.snapshot },
          viewingRun: null,
        });
        send({ type: "init", experiment: saved.experiment, resume: saved.snapshot });
      },
      addRun: (run) => {
        const id = nextRunId++;
        set((s) => ({ runs: s.runs.concat({ ...run, id }) }));
        return id;
      },
      snapshot: () => {
        const s = get();
        if (!hasRunData(s) || !s.sentExperiment) return null;
        return {
          label: "live run",
          experiment: s.sentExperiment,
          lastStep: s.step,
          lastEval: lastEvalOf(s.metrics),
          metrics: s.metrics,
        };
      },
    };
  });
}
