/**
 * Typed messages between the page (main thread) and the trainer worker.
 * Every message has a `type`; a receiver answers an unknown type with an
 * `error` event naming it (never ignores it).
 */
import type { Experiment, VariantWeights, VariantConfig } from "../rl/experiment";
import type { StabilityPolicy, StabilityReport } from "../rl/stability-run";

/** Metric values of one step (or one eval) of one variant. */
export type MetricValues = Record<string, number>;

/** One point of a chart: a variant's metrics at a step. */
export interface MetricRow {
  variant: string;
  step: number;
  /** Seconds since the run started (wall-time x-axis). */
  time: number;
  kind: "train" | "eval";
  values: MetricValues;
  /**
   * Seed of the run this row came from, when the experiment runs several
   * seeds (Experiment.seeds); absent for a single-seed run. Charts average
   * rows of the same variant and step over seeds (mean line, 95 % band).
   */
  seed?: number;
}

/** One rollout as the inspector shows it. */
export interface RolloutView {
  text: string;
  total: number;
  components: Record<string, number>;
  verifierPassed: boolean;
  /** Consistency judgment of the trace vs its answer (GRR §4.1). */
  judgment: "consistent" | "inconsistent" | "na";
  /** Judge tier/rank (GRR) when the variant has a groupwise judge. */
  rank?: number | null;
  advantage: number;
  unscorable?: boolean;
}

/** A group of rollouts for one prompt, kept per step (history). */
export interface GroupView {
  variant: string;
  step: number;
  promptId: string;
  question: string;
  options: Record<string, string> | null;
  answer: string;
  image: { data: Float32Array; height: number; width: number; channels: number };
  rollouts: RolloutView[];
  judgeReply?: string;
  /** Seed of the run the group came from in a multi-seed experiment (MetricRow.seed). */
  seed?: number;
}

/** A mid-run change, drawn as a marker on the charts. */
export interface Marker {
  variant: string;
  step: number;
  label: string;
  /**
   * Set on the marker of a fork (LabRun.fork): `variant` is then the fork key
   * (`<parent>@fork<step>`, src/rl/fork-key.ts), `step` the fork step, and
   * `changes` the weights / judge settings that differ from the parent's.
   */
  fork?: { parent: string; changes: Record<string, number | string> };
}

export type TrainerPhase = "loading" | "idle" | "sft" | "rl" | "paused" | "done" | "error";

/** Commands the page sends to the trainer worker. */
export type TrainerCommand =
  | {
      type: "init";
      experiment: Experiment;
      /** Absolute URL of the site root (public/ files: data, checkpoints); default: the worker's origin. */
      assetBase?: string;
      /** Override of the cold-start checkpoint URL. */
      checkpointUrl?: string;
    }
  | { type: "start" }
  | { type: "pause" }
  | { type: "step" }
  | { type: "reset" }
  | { type: "reseed"; seed: number }
  | { type: "runSft" }
  | {
      type: "setWeights";
      variant: string;
      weights: VariantWeights;
      judge?: Partial<VariantConfig["judge"]>;
    }
  /**
   * Fork `variant` (a variant name or a fork key) at the current step into a
   * new branch with these weights / judge settings (LabRun.fork); answered by
   * a fork marker and the branch's first eval row, or an error event.
   */
  | {
      type: "fork";
      variant: string;
      weights: VariantWeights;
      judge?: Partial<VariantConfig["judge"]>;
    }
  /**
   * Judge stability (GRR §4.3.4) on the current run: `groupSize` rollouts of
   * `prompts` training prompts from `policy` (default "reference", the cold
   * start), then the judge-noise sweep (src/rl/stability-run.ts). Pauses
   * training at the step boundary while it runs, then resumes. Answered by a
   * `stability` event (result or error).
   */
  | {
      type: "stability";
      policy?: StabilityPolicy;
      prompts?: number;
      groupSize?: number;
      repeats?: number;
      seed?: number;
    }
  /** Answer to a `renderWindow` event: the page has drawn what it had. */
  | { type: "renderDone"; id: number };

/** Events the trainer worker sends to the page. */
export type TrainerEvent =
  | {
      type: "ready";
      adapter: string;
      isFallback: boolean;
      modelSize: string;
      params: number;
      note?: string;
    }
  | { type: "status"; phase: TrainerPhase; step: number; message?: string }
  | { type: "metrics"; rows: MetricRow[] }
  | { type: "samples"; groups: GroupView[] }
  | { type: "marker"; marker: Marker }
  | { type: "log"; message: string }
  | { type: "error"; message: string; fatal: boolean }
  /**
   * On a CPU adapter the GPU work and the page share the same cores: after
   * each step the trainer pauses and asks the page to draw now; it resumes on
   * `renderDone` (or after a timeout), so drawing never competes with training.
   */
  | { type: "renderWindow"; id: number }
  /** Answer to a `stability` command: the report, or null and the reason it could not run. */
  | { type: "stability"; result: StabilityReport | null; error?: string };

const COMMAND_TYPES = new Set([
  "init",
  "start",
  "pause",
  "step",
  "reset",
  "reseed",
  "runSft",
  "setWeights",
  "fork",
  "stability",
  "renderDone",
]);
const EVENT_TYPES = new Set([
  "ready",
  "status",
  "metrics",
  "samples",
  "marker",
  "log",
  "error",
  "renderWindow",
  "stability",
]);

/**
 * Narrows an incoming message to a TrainerCommand.
 * @throws Error naming the unknown or missing type.
 */
export function asTrainerCommand(msg: unknown): TrainerCommand {
  const type = (msg as { type?: unknown } | null)?.type;
  if (typeof type !== "string" || !COMMAND_TYPES.has(type)) {
    throw new Error(`Unknown trainer command type: ${JSON.stringify(type)}`);
  }
  return msg as TrainerCommand;
}

/**
 * Narrows an incoming message to a TrainerEvent.
 * @throws Error naming the unknown or missing type.
 */
export function asTrainerEvent(msg: unknown): TrainerEvent {
  const type = (msg as { type?: unknown } | null)?.type;
  if (typeof type !== "string" || !EVENT_TYPES.has(type)) {
    throw new Error(`Unknown trainer event type: ${JSON.stringify(type)}`);
  }
  return msg as TrainerEvent;
}
