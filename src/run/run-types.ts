/**
 * What a run produces, as the trainer, the page, the CLI and the store see
 * it: metric rows, chart markers, and where they go (RunSink). The RL step's
 * own output (metric values, rollout groups for the inspector) is defined
 * with the step (src/rl/step-types.ts); the worker's message protocol
 * (src/workers/protocol.ts) carries both.
 */
import type { GroupView, MetricValues } from "../rl/step-types";

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

/** A mid-run change, drawn as a marker on the charts. */
export interface Marker {
  variant: string;
  step: number;
  label: string;
  /**
   * Set on the marker of a fork (LabRun.fork): `variant` is then the fork key
   * (`<parent>@fork<step>`, src/settings/fork-key.ts), `step` the fork step, and
   * `changes` the weights / judge settings that differ from the parent's.
   */
  fork?: { parent: string; changes: Record<string, number | string> };
  /**
   * Set on the marker of a fault the run got over (drawn ⚠): "device-lost"
   * (the GPU device was lost; the run went on from the snapshot of the step
   * before, on a new device) or "update-skipped" (AdamW skipped the variant's
   * update: a NaN/Inf gradient) or "variant-stopped" (the variant's reward
   * could not be computed for good, e.g. its PRM file is missing; `label`
   * says why, and the other variants went on) or "worker-restarted" (the
   * page's trainer worker died; a new one went on from the state of the step
   * before, src/ui/worker-client.ts).
   */
  fault?: "device-lost" | "update-skipped" | "variant-stopped" | "worker-restarted";
}

/** Where a run's outputs go (the worker posts them; the CLI prints and writes files). */
export interface RunSink {
  metrics(rows: MetricRow[]): void;
  samples(groups: GroupView[]): void;
  marker(m: Marker): void;
  log(message: string): void;
}

/** What `runSteps` calls at each step boundary (every hook optional). */
export interface StepHooks {
  /** Asked before every step; true ends the loop there (nothing of the next step is done). */
  shouldStop?: () => boolean;
  /** Awaited before every step (the controller holds the step's output back from here). */
  beforeStep?: () => void | Promise<void>;
  /** Awaited after every step with its phase and number (SFT step, or RL step `LabRun.step`). */
  afterStep?: (done: { phase: "sft" | "rl"; step: number }) => void | Promise<void>;
}
