/**
 * The page's side of the trainer worker: creates the worker, posts
 * TrainerCommands, and dispatches TrainerEvents into the store. Nothing else
 * talks to the worker. An unknown event type, a worker `error` (e.g. the
 * module failed to load) and a `messageerror` are all shown as errors.
 *
 * A worker that dies (an uncaught `error` once the run has a state) is
 * replaced: the client keeps the run's state at its last step boundary (the
 * `stepState` events), starts a new worker, resumes it from that state
 * (`init` with `resume`) and, when training was running, starts it again;
 * the rows after that step are dropped from the charts (the new worker
 * trains the step again) and every variant gets a ⚠ "worker-restarted"
 * marker. At most MAX_WORKER_RESTARTS times per page; then the error is
 * fatal, as before. `globalThis.__rewardLabFaults` injects the two faults the
 * page gets over (a lost device, a dying worker) for the e2e test.
 */
import { asTrainerEvent, type TrainerCommand, type TrainerEvent } from "../workers/protocol";
import { encodeSnapshot, type RunSnapshot } from "../run/snapshot";
import { metricsUpTo } from "../store/run-data";
import type { StoreApi } from "zustand/vanilla";
import type { LabState, TrainerPort } from "../store/lab-store";
import { drawNow } from "./lib/render-gate";
import { downloadBytes } from "./lib/download";

export interface EventSink {
  dispatch(ev: TrainerEvent): void;
  /** The trainer paused for the page to draw; answer with renderDone(id). */
  renderWindow?(id: number): void;
  reportError(message: string, fatal: boolean, source?: "worker" | "page"): void;
}

/** Validates one message from the worker and hands it to the sink (tested in Node). */
export function handleWorkerMessage(data: unknown, sink: EventSink): void {
  let ev: TrainerEvent;
  try {
    ev = asTrainerEvent(data);
  } catch (e) {
    sink.reportError(
      `The trainer sent a message the page does not understand: ${e instanceof Error ? e.message : String(e)}`,
      false,
      "page",
    );
    return;
  }
  if (ev.type === "renderWindow") {
    sink.renderWindow?.(ev.id);
    return;
  }
  sink.dispatch(ev);
}

/** Text for a worker ErrorEvent (the module failed to load, or an uncaught exception). */
export function describeWorkerError(e: {
  message?: string;
  filename?: string;
  lineno?: number;
}): string {
  const where = e.filename ? ` (${e.filename}${e.lineno ? `:${e.lineno}` : ""})` : "";
  return `The trainer worker failed: ${e.message || "it could not be loaded or crashed without a message"}${where}`;
}

export interface TrainerClient extends TrainerPort {
  terminate(): void;
}

/** New workers one page starts after a worker died (lab choice: a worker that keeps dying is not a passing fault). */
const MAX_WORKER_RESTARTS = 3;

/** Starts the trainer worker and wires it to the store. */
export function connectTrainer(store: StoreApi<LabState>): TrainerClient {
  const sink: EventSink = {
    dispatch: (ev) => {
      if (ev.type === "onnx")
        downloadBytes(
          `${ev.variant}-seed${ev.seed}-step${ev.step}.onnx`,
          ev.bytes,
          "application/octet-stream",
        );
      store.getState().dispatch(ev);
    },
    reportError: (m, f, s) => store.getState().reportError(m, f, s),
    renderWindow: (id) => {
      void drawNow().then(() =>
        worker?.postMessage({ type: "renderDone", id } satisfies TrainerCommand),
      );
    },
  };
  let worker: Worker | null = null;
  /** The run's state at its last step boundary (`stepState`), for a new worker. */
  let lastState: RunSnapshot | null = null;
  let restarts = 0;
  const assetBase = () => new URL(import.meta.env.BASE_URL, location.href).href;

  /** A worker that died: a new one, resumed from the last state (see the file comment). */
  const restart = (reason: string) => {
    const state = lastState;
    worker?.terminate();
    worker = null;
    if (!state || restarts >= MAX_WORKER_RESTARTS) {
      sink.reportError(reason, true, "worker");
      return;
    }
    restarts++;
    const st = store.getState();
    const wasTraining = st.phase === "rl" || st.phase === "sft";
    const label = `the trainer worker stopped (${reason}): went on from the state of step ${state.step} in a new worker`;
    store.setState((s) => ({ metrics: metricsUpTo(s.metrics, state.step) }));
    for (const variant of new Set(state.policies.map((p) => p.key)))
      sink.dispatch({
        type: "marker",
        marker: { variant, step: state.step + 1, label, fault: "worker-restarted" },
      });
    worker = spawn();
    if (!worker) return;
    worker.postMessage({
      type: "init",
      experiment: state.experiment,
      resume: encodeSnapshot(state),
      assetBase: assetBase(),
    } satisfies TrainerCommand);
    if (wasTraining) worker.postMessage({ type: "start" } satisfies TrainerCommand);
  };

  const spawn = (): Worker | null => {
    let w: Worker;
    try {
      w = new Worker(new URL("../workers/trainer.worker.ts", import.meta.url), {
        type: "module",
      });
    } catch (e) {
      sink.reportError(
        `Could not start the trainer worker: ${e instanceof Error ? e.message : String(e)}`,
        true,
        "worker",
      );
      return null;
    }
    w.addEventListener("message", (e: MessageEvent) => {
      if (w !== worker) return; // a replaced worker's last words
      const data = e.data as { type?: unknown; snapshot?: RunSnapshot };
      if (data?.type === "stepState") {
        lastState = data.snapshot ?? null;
        return;
      }
      handleWorkerMessage(e.data, sink);
    });
    w.addEventListener("error", (e: ErrorEvent) => {
      e.preventDefault();
      if (w !== worker) return;
      restart(describeWorkerError(e));
    });
    w.addEventListener("messageerror", () =>
      sink.reportError(
        "A message from the trainer worker could not be deserialized (messageerror).",
        false,
        "worker",
      ),
    );
    return w;
  };
  worker = spawn();
  (globalThis as unknown as { __rewardLabFaults?: Record<string, () => void> }).__rewardLabFaults =
    {
      loseDevice: () => worker?.postMessage({ type: "loseDevice" } satisfies TrainerCommand),
      crashTrainer: () => worker?.postMessage({ type: "crash" } satisfies TrainerCommand),
    };
  const client: TrainerClient = {
    send(cmd: TrainerCommand) {
      if (!worker) {
        sink.reportError(
          `The trainer worker is not running; '${cmd.type}' was not sent.`,
          false,
          "page",
        );
        return;
      }
      // The worker resolves data and checkpoints against the site root (public/).
      if (cmd.type === "init") lastState = null; // a new run: the old one's state must not come back
      worker.postMessage(
        cmd.type === "init" && !cmd.assetBase ? { ...cmd, assetBase: assetBase() } : cmd,
      );
    },
    terminate() {
      worker?.terminate();
      worker = null;
    },
  };
  store.getState().attachTrainer(client);
  return client;
}
