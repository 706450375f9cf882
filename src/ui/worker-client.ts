/**
 * The page's side of the trainer worker: creates the worker, posts
 * TrainerCommands, and dispatches TrainerEvents into the store. Nothing else
 * talks to the worker. An unknown event type, a worker `error` (e.g. the
 * module failed to load) and a `messageerror` are all shown as errors.
 */
import { asTrainerEvent, type TrainerCommand, type TrainerEvent } from "../workers/protocol";
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
  try {
    worker = new Worker(new URL("../workers/trainer.worker.ts", import.meta.url), {
      type: "module",
    });
  } catch (e) {
    sink.reportError(
      `Could not start the trainer worker: ${e instanceof Error ? e.message : String(e)}`,
      true,
      "worker",
    );
  }
  if (worker) {
    worker.addEventListener("message", (e: MessageEvent) => handleWorkerMessage(e.data, sink));
    worker.addEventListener("error", (e: ErrorEvent) => {
      e.preventDefault();
      sink.reportError(describeWorkerError(e), true, "worker");
    });
    worker.addEventListener("messageerror", () =>
      sink.reportError(
        "A message from the trainer worker could not be deserialized (messageerror).",
        false,
        "worker",
      ),
    );
  }
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
      worker.postMessage(
        cmd.type === "init" && !cmd.assetBase
          ? { ...cmd, assetBase: new URL(import.meta.env.BASE_URL, location.href).href }
          : cmd,
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
