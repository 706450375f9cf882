/// <reference lib="webworker" />
/**
 * Reward worker: scores rollouts with the pure-TypeScript reward library and
 * the learned PRM (docs/reward-spec.md §2), off the page's thread and beside
 * the trainer's GPU loop.
 * In:  { type: "init", prmUrl }  (where the PRM file is; sent once, first)
 *      { type: "score", id, request: ScoreRequest }
 * Out: { type: "scored", id, response } | { type: "error", id, message }
 * The PRM is fetched and opened on the first batch of a variant that reads it;
 * a missing, corrupt or wrong-shaped file fails those batches with an error
 * naming the file (src/prm/file.ts), and every other variant's batch is
 * scored as before.
 */
import { ortWasmPaths } from "../onnx/browser-wasm";
import { cachedPrm, openPrm } from "../prm/file";
import { scoreRequest, type ScoreRequest } from "../rl/reward-contract";
import type { PrmProvider } from "../prm/scorer";

declare const self: DedicatedWorkerGlobalScope;

let prm: PrmProvider | undefined;

/** The PRM file at `url`: null when missing (404, or a dev server's HTML fallback page). */
async function fetchPrm(url: string): Promise<Uint8Array | null> {
  const res = await fetch(url);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  if ((res.headers.get("content-type") ?? "").includes("text/html")) return null;
  return new Uint8Array(await res.arrayBuffer());
}

/**
 * onnxruntime-web threads for the PRM: half the cores, at most 4, when the
 * page is cross-origin isolated (threads need SharedArrayBuffer), else 1.
 * Lab choice: the other half stays with the GPU loop, which on a CPU
 * adapter runs on the same cores.
 */
function prmThreads(): number {
  if (!self.crossOriginIsolated) return 1;
  return Math.min(4, Math.max(1, Math.floor((navigator.hardwareConcurrency || 2) / 2)));
}

self.onmessage = async (ev: MessageEvent) => {
  const msg = ev.data as {
    type?: string;
    id?: number;
    request?: ScoreRequest;
    prmUrl?: string;
  };
  if (msg?.type === "init" && typeof msg.prmUrl === "string") {
    const url = msg.prmUrl;
    prm = cachedPrm(
      url,
      () => fetchPrm(url),
      (bytes) => openPrm(bytes, { wasmPaths: ortWasmPaths(), numThreads: prmThreads() }),
    );
    return;
  }
  if (msg?.type !== "score") {
    self.postMessage({
      type: "error",
      id: msg?.id ?? -1,
      message: `reward worker: unknown message type ${JSON.stringify(msg?.type)}`,
    });
    return;
  }
  try {
    self.postMessage({
      type: "scored",
      id: msg.id,
      response: await scoreRequest(msg.request!, prm),
    });
  } catch (e) {
    self.postMessage({ type: "error", id: msg.id, message: (e as Error).message });
  }
};
