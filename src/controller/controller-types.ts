/**
 * The run controller's interface (src/controller/run-controller.ts): its phases,
 * the typed commands it takes, the typed events it answers with, and what
 * it needs from the host it runs in (the trainer worker, or Node). The
 * worker's message protocol (src/workers/protocol.ts) carries these.
 */
import type { GpuContext } from "../gpu/context";
import type { Experiment, VariantConfig, VariantWeights } from "../settings/experiment";
import type { RewardScorer } from "../rl/reward-contract";
import type { Marker, MetricRow } from "../run/run-types";
import type { GroupView } from "../rl/step-types";
import type { RunSnapshot } from "../run/snapshot";
import type { StabilityPolicy, StabilityReport } from "../experiments/stability-study";
import type { EstimatorName } from "../settings/estimator-table";
import type { RolloutTokenWeights } from "../rl/token-weights";

/** Where the controller is: what the page's controls and status line show. */
export type TrainerPhase = "loading" | "idle" | "sft" | "rl" | "paused" | "done" | "error";

/** Commands of the controller. */
export type ControllerCommand =
  /**
   * Builds the run of `experiment`: device (first time), data, cold start
   * (src/run/cold-start.ts), variants; then evaluates the cold start. Answered
   * by `ready` and the step-0 eval rows, or an error.
   */
  | {
      type: "init";
      experiment: Experiment;
      /** Where the cold start is read (RunControllerHost.readAsset) instead of the shipped file. */
      checkpoint?: string;
      /**
       * A run snapshot (encodeSnapshot bytes, e.g. a saved run's) to continue
       * instead of starting at step 0: its experiment, cold start, step and
       * every policy's state replace `experiment`'s (which only has to parse).
       * Answered by `ready`, a "resumed" marker per variant and a paused status.
       */
      resume?: Uint8Array;
      /** Keep the default model size on a CPU adapter (resolveColdStart `keepModelSize`). */
      keepModelSize?: boolean;
      /** Read no cold start: the run starts with SFT from scratch (on the first Train or Step). */
      fromScratch?: boolean;
      /** SFT's intermediate eval interval in steps (0: only the final eval; default max(10, sftSteps / 10)). */
      sftEvalEvery?: number;
      /** With `resume`: evaluate the cold start again (its step-0 eval rows), as a fresh run does. */
      evalColdStart?: boolean;
      /**
       * When the cold start's held-out eval (the step-0 rows) runs: "init"
       * (default) before `ready` goes idle; "after-first-step" right after
       * the first RL step, so that Train pressed at once gives its first
       * step without waiting for the eval (the page; the eval reads the
       * frozen reference, so its figures are the same either way).
       */
      startEval?: "init" | "after-first-step";
    }
  /** Trains until paused or `algorithm.steps` is reached (SFT first when there is no cold start). */
  | { type: "start" }
  /** Stops training (and SFT) at the next step boundary. */
  | { type: "pause" }
  /** One RL step of every variant and fork (SFT first when there is no cold start), then paused. */
  | { type: "step" }
  /** Every variant back to the cold-start weights at step 0; forks dropped. */
  | { type: "reset" }
  /** A new seed for prompts, sampling and judge noise, then Reset. */
  | { type: "reseed"; seed: number }
  /** SFT from a fresh random init; its result becomes the cold start. */
  | { type: "runSft" }
  /** A variant's reward weights / judge noise from the next step on; answered by a marker. */
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
   * start), then the judge-noise sweep (src/experiments/stability-study.ts). Pauses
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
  /**
   * The weight the update gave each response token of a kept sample group
   * (`variant` a series key: variant name or fork key; `seed` in a
   * multi-seed run), src/rl/token-weights.ts. Runs at a step boundary (one
   * reference forward of the group). Answered by a `tokenWeights` event, or
   * an `error` event naming why (no such group kept, unknown variant).
   */
  | { type: "tokenWeights"; variant: string; step: number; promptId: string; seed?: number };

/** Events of the controller. */
export type ControllerEvent =
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
   * The run's latest snapshot at `step` (encodeSnapshot bytes, src/run/snapshot.ts),
   * posted when training stops and at most every PERSIST_INTERVAL_MS while it runs.
   */
  | { type: "snapshot"; step: number; bytes: Uint8Array }
  /**
   * The run at the step boundary just reached, as it is (not encoded, no
   * checksum: a structured copy), after every RL step and whenever the run
   * with a cold start is built or reshaped (init, resume, reset, re-seed,
   * fork, SFT's end). The page keeps the latest in memory only, to start a
   * new trainer worker from it if this one dies (at most the step in flight
   * is lost). Not posted while the run has no cold start yet.
   */
  | { type: "stepState"; snapshot: RunSnapshot }
  /** Answer to a `stability` command: the report, or null and the reason it could not run. */
  | { type: "stability"; result: StabilityReport | null; error?: string }
  /**
   * Answer to `tokenWeights`: per rollout and response token, coef = the
   * weight the backward pass gives ∂loss/∂logπ(t), negated (positive:
   * reinforced), = pgCoef (clipped surrogate) + klCoef (k3 KL term; 0 where
   * the estimator folds KL into the reward), in the loss's normalisation.
   * The update is on-policy: ratio 1 and nothing clipped at the update.
   * `beta` is the variant's β.
   */
  | {
      type: "tokenWeights";
      variant: string;
      step: number;
      promptId: string;
      seed?: number;
      estimator: EstimatorName;
      beta: number;
      clipEps: number;
      rollouts: RolloutTokenWeights[];
    };

/** What the controller gets from where it runs (the worker, or Node). */
export interface RunControllerHost {
  /** The GPU context; called at the first init, and again after a lost device. */
  createContext(): Promise<GpuContext>;
  /** The reward side; called once, at the first init. */
  createScorer(): RewardScorer;
  /**
   * A file of the site (public/: `data/mnist-subset.bin`, `checkpoints/…`),
   * by path relative to the site root or by URL; null when it is missing.
   */
  readAsset(path: string): Promise<Uint8Array | null>;
  /** Awaited after each unit of GPU work, once its output is emitted (the worker lets the page draw). */
  afterWork?(): Promise<void>;
}
