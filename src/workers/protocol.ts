/**
 * Typed messages between the page (main thread) and the trainer worker: the
 * run controller's commands and events (src/controller/controller-types.ts) plus the worker's own
 * (file locations at init, render windows). Every message has a `type`; a
 * receiver answers an unknown type with an `error` event naming it (never
 * ignores it). The run types the events carry live in src/run/run-types.ts and src/rl/step-types.ts.
 */
import type { ControllerCommand, ControllerEvent } from "../controller/controller-types";

export type { GroupView } from "../rl/step-types";
export type { TrainerPhase } from "../controller/run-controller";

/** The init message: the trainer's init, with where the worker reads the site's files. */
type InitMessage = Omit<Extract<ControllerCommand, { type: "init" }>, "checkpoint"> & {
  /** Absolute URL of the site root (public/ files: data, checkpoints); default: the worker's origin. */
  assetBase?: string;
  /** Override of the cold-start checkpoint URL (the trainer's `checkpoint`). */
  checkpointUrl?: string;
};

/**
 * Commands the page sends to the trainer worker: the trainer's commands
 * (src/controller/controller-types.ts), with the init message's file locations, and the
 * answer to a render window.
 */
export type TrainerCommand =
  | Exclude<ControllerCommand, { type: "init" }>
  | InitMessage
  /** Answer to a `renderWindow` event: the page has drawn what it had. */
  | { type: "renderDone"; id: number }
  /**
   * Export `variant`'s current policy (the run's snapshot at the last step
   * boundary) as ONNX, in the worker (src/workers/onnx-export.ts); answered by
   * an `onnx` event or an error event.
   */
  | { type: "exportOnnx"; variant: string }
  /**
   * Fault injection (the page's `__rewardLabFaults`, the e2e test): destroy
   * the GPU device now, as a driver reset would; the run goes on from its
   * snapshot on a new device (src/controller/run-training.ts).
   */
  | { type: "loseDevice" }
  /**
   * Fault injection: an uncaught error in the worker, as a crash; the page
   * starts a new worker from the last step's state (src/ui/worker-client.ts).
   */
  | { type: "crash" };

/** Events the trainer worker sends to the page: the trainer's events and render windows. */
export type TrainerEvent =
  | ControllerEvent
  /**
   * On a CPU adapter the GPU work and the page share the same cores: after
   * each step the trainer pauses and asks the page to draw now; it resumes on
   * `renderDone` (or after a timeout), so drawing never competes with training.
   */
  | { type: "renderWindow"; id: number }
  /** Answer to `exportOnnx`: the .onnx file of a variant's policy (the page downloads it). */
  | {
      type: "onnx";
      variant: string;
      seed: number;
      step: number;
      bytes: Uint8Array;
      probe: { numThreads: number; maxAbsLogit: number };
    };

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
  "tokenWeights",
  "renderDone",
  "exportOnnx",
  "loseDevice",
  "crash",
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
  "tokenWeights",
  "snapshot",
  "stepState",
  "onnx",
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
