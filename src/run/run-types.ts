/**
 * What a run produces, as the trainer, the page, the CLI and the store see
 * it: metric rows, rollout groups for the inspector, chart markers. Defined
 * here, with the run that makes them; the worker's message protocol
 * (src/workers/protocol.ts) carries them.
 */

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
interface RolloutView {
  text: string;
  total: number;
  components: Record<string, number>;
  verifierPassed: boolean;
  /** Consistency judgment of the trace vs its answer (GRR §4.1). */
  judgment: "consistent" | "inconsistent" | "na";
  /**
   * A lucky guess: the answer is right but the reasoning is not the reference
   * solution's (ACRE §1 WR–CA, SCS Tab. 3; src/rl/eval-metrics.ts isLuckyGuess).
   * Absent in groups kept before it was recorded.
   */
  luckyGuess?: boolean;
  /** Judge tier/rank (GRR) when the variant has a groupwise judge. */
  rank?: number | null;
  advantage: number;
  unscorable?: boolean;
  /**
   * SCS: where the rollout was cut (response tokens kept, and their text) and
   * each continuation's final answer (null: none parsed) and image-noise σ.
   */
  scs?: {
    keptTokens: number;
    keptText: string;
    continuations: { answer: string | null; sigma: number }[];
  };
  /**
   * ACRE: the options of the second ask, the answer given after the kept
   * trace (null: no `</think>` in the rollout, or no answer parsed), and the
   * rollout's own answer (null: none parsed), read with the group's options.
   */
  reask?: { options: Record<string, string>; answer: string | null; firstAnswer?: string | null };
  /** PRM: the learned PRM's score of each step, in [0, 1] (its smallest token probability over steps 1..k). */
  stepScores?: number[];
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
   * (`<parent>@fork<step>`, src/run/fork-key.ts), `step` the fork step, and
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
