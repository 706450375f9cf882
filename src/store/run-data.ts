/**
 * What the page knows about the running experiment, and the pure reducer
 * that folds trainer events into it. No React, no DOM: tested in Node.
 *
 * Metric rows are appended in place (arrays can reach 100k rows; copying them
 * per step would be quadratic) and `metrics.version` is bumped instead, which
 * is what the throttled chart subscription watches.
 */
import type { Marker, MetricRow } from "../run/run-types";
import type { GroupView } from "../rl/step-types";
import type { TrainerEvent, TrainerPhase } from "../workers/protocol";
import type { StabilityReport } from "../experiments/stability-study";
import { failPending, tokenWeightsKey, type TokenWeightsEntry } from "./token-weights";

/** Sample groups kept per variant (history for the inspector's step slider). */
export const MAX_GROUPS_PER_VARIANT = 200;
const MAX_LOG_LINES = 300;

interface ReadyInfo {
  adapter: string;
  isFallback: boolean;
  modelSize: string;
  params: number;
  note?: string;
}

export interface LabError {
  id: number;
  message: string;
  fatal: boolean;
  /** Who reported it: the trainer (error event), the worker object, or the page. */
  source: "trainer" | "worker" | "page";
}

interface VariantRows {
  train: MetricRow[];
  eval: MetricRow[];
}

export interface MetricsData {
  byVariant: Record<string, VariantRows>;
  /** Metric keys seen so far, per row kind, in first-seen order. */
  keys: { train: string[]; eval: string[] };
  markers: Marker[];
  version: number;
}

export interface SamplesData {
  byVariant: Record<string, GroupView[]>;
  version: number;
}

export interface RunData {
  phase: TrainerPhase;
  step: number;
  statusMessage: string;
  ready: ReadyInfo | null;
  logs: string[];
  errors: LabError[];
  metrics: MetricsData;
  samples: SamplesData;
  /** Last answer to a `stability` command (the Judge stability panel); `version` counts answers. */
  stability: { result: StabilityReport | null; error: string | null; version: number };
  /**
   * The trainer's latest run snapshot (encoded, src/run/snapshot.ts) at `step`:
   * what "Save current run" and the autosave store, so the run can resume.
   * Null until the trainer posts one and after a reset.
   */
  runSnapshot: { step: number; bytes: Uint8Array } | null;
  /** The inspector's token weights per group and variant (./token-weights.ts tokenWeightsKey). */
  tokenWeights: Record<string, TokenWeightsEntry>;
}

export const emptyMetrics = (): MetricsData => ({
  byVariant: {},
  keys: { train: [], eval: [] },
  markers: [],
  version: 0,
});
const emptySamples = (): SamplesData => ({ byVariant: {}, version: 0 });

export const initialRunData = (): RunData => ({
  phase: "loading",
  step: 0,
  statusMessage: "",
  ready: null,
  logs: [],
  errors: [],
  metrics: emptyMetrics(),
  samples: emptySamples(),
  stability: { result: null, error: null, version: 0 },
  runSnapshot: null,
  tokenWeights: {},
});

let nextErrorId = 1;

export function makeError(message: string, fatal: boolean, source: LabError["source"]): LabError {
  return { id: nextErrorId++, message, fatal, source };
}

function appendLog(logs: string[], line: string): string[] {
  const out =
    logs.length >= MAX_LOG_LINES ? logs.slice(logs.length - MAX_LOG_LINES + 1) : logs.slice();
  out.push(line);
  return out;
}

/** Appends metric rows (in place) and returns a new MetricsData with a bumped version. */
export function appendMetrics(m: MetricsData, rows: readonly MetricRow[]): MetricsData {
  const byVariant = { ...m.byVariant };
  const keys = { train: m.keys.train.slice(), eval: m.keys.eval.slice() };
  for (const row of rows) {
    byVariant[row.variant] ??= { train: [], eval: [] };
    const vr = byVariant[row.variant];
    const kind = row.kind === "eval" ? "eval" : "train";
    vr[kind].push(row);
    for (const k of Object.keys(row.values)) if (!keys[kind].includes(k)) keys[kind].push(k);
  }
  return { byVariant, keys, markers: m.markers, version: m.version + 1 };
}

/** Appends sample groups, keeping the last MAX_GROUPS_PER_VARIANT per variant. */
function appendSamples(
  s: SamplesData,
  groups: readonly GroupView[],
  cap = MAX_GROUPS_PER_VARIANT,
): SamplesData {
  const byVariant = { ...s.byVariant };
  for (const g of groups) {
    const list = (byVariant[g.variant] ?? []).concat(g);
    byVariant[g.variant] = list;
    if (list.length > cap) byVariant[g.variant] = list.slice(list.length - cap);
  }
  return { byVariant, version: s.version + 1 };
}

/** Folds one trainer event into the run data. */
export function reduceEvent(d: RunData, ev: TrainerEvent): RunData {
  switch (ev.type) {
    case "ready": {
      const { adapter, isFallback, modelSize, params, note } = ev;
      return {
        ...d,
        ready: { adapter, isFallback, modelSize, params, note },
        logs: appendLog(
          d.logs,
          `ready: ${adapter}${isFallback ? " (fallback adapter)" : ""}, model ${modelSize}, ${params} parameters`,
        ),
      };
    }
    case "status":
      return { ...d, phase: ev.phase, step: ev.step, statusMessage: ev.message ?? "" };
    case "metrics":
      return { ...d, metrics: appendMetrics(d.metrics, ev.rows) };
    case "samples":
      return { ...d, samples: appendSamples(d.samples, ev.groups) };
    case "marker":
      return {
        ...d,
        metrics: {
          ...d.metrics,
          markers: d.metrics.markers.concat(ev.marker),
          version: d.metrics.version + 1,
        },
        logs: appendLog(d.logs, `step ${ev.marker.step}: ${ev.marker.variant}: ${ev.marker.label}`),
      };
    case "log":
      return { ...d, logs: appendLog(d.logs, ev.message) };
    case "error":
      return {
        ...d,
        phase: ev.fatal ? "error" : d.phase,
        errors: d.errors.concat(makeError(ev.message, ev.fatal, "trainer")),
        logs: appendLog(d.logs, `error: ${ev.message}`),
        tokenWeights: failPending(d.tokenWeights, ev.message),
      };
    case "stability":
      return {
        ...d,
        stability: { result: ev.result, error: ev.error ?? null, version: d.stability.version + 1 },
      };
    case "snapshot":
      return { ...d, runSnapshot: { step: ev.step, bytes: ev.bytes } };
    case "tokenWeights":
      return { ...d, tokenWeights: { ...d.tokenWeights, [tokenWeightsKey(ev)]: ev } };
    case "stepState":
      // Kept by the worker client (a new worker starts from it), not in the run data.
      return d;
    case "onnx":
      return {
        ...d,
        logs: appendLog(
          d.logs,
          `exported ${ev.variant} (seed ${ev.seed}, step ${ev.step}) as ONNX: ${ev.bytes.length} bytes; loaded and run in onnxruntime-web (${ev.probe.numThreads} thread${ev.probe.numThreads > 1 ? "s" : ""})`,
        ),
      };
    default: {
      const unknown = (ev as { type?: unknown }).type;
      return {
        ...d,
        errors: d.errors.concat(
          makeError(`Unknown trainer event type: ${JSON.stringify(unknown)}`, false, "page"),
        ),
      };
    }
  }
}

/** The run data after a reset / re-seed / re-init: no curves, no samples, same adapter and log. */
export function clearRun(d: RunData): RunData {
  return {
    ...d,
    step: 0,
    statusMessage: "",
    metrics: emptyMetrics(),
    samples: emptySamples(),
    runSnapshot: null,
    tokenWeights: {},
  };
}

/**
 * A run's metrics cut at `step`: rows and markers after it dropped, keys
 * recomputed (what a run resumed from the snapshot of `step` continues).
 */
export function metricsUpTo(m: MetricsData, step: number): MetricsData {
  const cut = appendMetrics(
    emptyMetrics(),
    Object.values(m.byVariant).flatMap((rows) =>
      [...rows.train, ...rows.eval].filter((r) => r.step <= step),
    ),
  );
  return {
    ...cut,
    markers: m.markers.filter((k) => k.step <= step),
    version: m.version + 1,
  };
}
