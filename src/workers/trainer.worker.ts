/// <reference lib="webworker" />
/**
 * Trainer worker: a message adapter over the run controller (src/controller/run-controller.ts),
 * which owns the WebGPU device and the LabRun (all model math), with a nested
 * reward worker as its scorer (all reward math), so the page only renders.
 * Messages are the typed ones of ./protocol.ts; an unknown command type is
 * answered with an error event. The worker's own parts: reading the site's
 * files by URL, and on a CPU adapter a render window after each unit of GPU
 * work (the page draws while the GPU work waits).
 */
import { GpuContext } from "../gpu/context";
import { requestLabDevice } from "../gpu/device";
import { RunController } from "../controller/run-controller";
import type { RunSnapshot } from "../run/snapshot";
import { asTrainerCommand, type TrainerCommand, type TrainerEvent } from "./protocol";
import { createRewardWorkerScorer } from "./reward-worker-client";
import { PRM_FILE } from "../prm/file";
import { exportVariantOnnx } from "./onnx-export";
import { ortWasmPaths } from "../onnx/browser-wasm";

declare const self: DedicatedWorkerGlobalScope;

function post(ev: TrainerEvent): void {
  // A snapshot's bytes are encoded for this event only: hand them over instead of copying.
  if (ev.type === "snapshot" || ev.type === "onnx") self.postMessage(ev, [ev.bytes.buffer]);
  else if (ev.type === "stepState") postState(ev.snapshot);
  else self.postMessage(ev);
}

/**
 * The run's state after a step (the controller keeps its own copy): its
 * arrays copied here and handed over, so the page's thread receives it
 * without copying megabytes (a structured clone would copy them there).
 */
function postState(snap: RunSnapshot): void {
  const copy: RunSnapshot = {
    ...snap,
    reference: snap.reference.slice(),
    policies: snap.policies.map((p) => ({
      ...p,
      params: p.params.slice(),
      m: p.m.slice(),
      v: p.v.slice(),
    })),
  };
  const buffers = [copy.reference, ...copy.policies.flatMap((p) => [p.params, p.m, p.v])].map(
    (a) => a.buffer,
  );
  self.postMessage({ type: "stepState", snapshot: copy } satisfies TrainerEvent, buffers);
}

/** Site root the files are read from (set by the init message's `assetBase`). */
let assetBase = new URL("/", self.location.href).href;

/** Fetches a binary asset; null when it is missing (404, or an HTML fallback page from a dev server). */
async function fetchBytes(path: string): Promise<Uint8Array | null> {
  const url = new URL(path, assetBase).href;
  const res = await fetch(url);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`fetching ${url} failed: HTTP ${res.status}`);
  if ((res.headers.get("content-type") ?? "").includes("text/html")) return null;
  return new Uint8Array(await res.arrayBuffer());
}

/** Longest the controller waits for the page to draw (lab choice). */
const RENDER_WINDOW_MAX_MS = 3000;
let renderId = 0;
const renderWaiters = new Map<number, () => void>();

/**
 * On a CPU adapter, pause the GPU work until the page has drawn (or
 * RENDER_WINDOW_MAX_MS passed): the page's thread then has the cores to itself.
 */
async function renderWindow(): Promise<void> {
  if (!controller.context?.adapter.isFallback) return;
  const id = ++renderId;
  post({ type: "renderWindow", id });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      renderWaiters.delete(id);
      resolve();
    }, RENDER_WINDOW_MAX_MS);
    renderWaiters.set(id, () => {
      clearTimeout(timer);
      renderWaiters.delete(id);
      resolve();
    });
  });
}

const controller = new RunController(
  {
    createContext: async () => new GpuContext(await requestLabDevice(navigator.gpu)),
    createScorer: () =>
      createRewardWorkerScorer({
        onRestart: (message) => post({ type: "log", message }),
        prmUrl: new URL(PRM_FILE, assetBase).href,
      }),
    readAsset: fetchBytes,
    afterWork: renderWindow,
  },
  post,
);

self.onmessage = (ev: MessageEvent) => {
  let cmd: TrainerCommand;
  try {
    cmd = asTrainerCommand(ev.data);
  } catch (e) {
    post({ type: "error", message: (e as Error).message, fatal: false });
    return;
  }
  if (cmd.type === "renderDone") {
    renderWaiters.get(cmd.id)?.();
    return;
  }
  if (cmd.type === "loseDevice") {
    controller.context?.device.destroy();
    return;
  }
  if (cmd.type === "crash") {
    setTimeout(() => {
      throw new Error("trainer worker crashed (fault injection)");
    }, 0);
    return;
  }
  if (cmd.type === "exportOnnx") {
    // Threads when the page is cross-origin isolated (vite.config.ts sends the headers).
    const numThreads = self.crossOriginIsolated ? 2 : 1;
    exportVariantOnnx(controller.snapshot, cmd.variant, {
      numThreads,
      wasmPaths: ortWasmPaths(),
    }).then(
      (r) => post({ type: "onnx", ...r }),
      (e) =>
        post({
          type: "error",
          message: `Export ONNX of ${cmd.variant} failed: ${(e as Error).message}`,
          fatal: false,
        }),
    );
    return;
  }
  if (cmd.type === "init") {
    const { assetBase: base, checkpointUrl, ...init } = cmd;
    if (base) assetBase = base;
    void controller.send({ ...init, checkpoint: checkpointUrl });
    return;
  }
  void controller.send(cmd);
};

post({ type: "status", phase: "loading", step: 0 });
