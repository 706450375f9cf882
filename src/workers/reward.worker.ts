/// <reference lib="webworker" />
/**
 * Reward worker: scores rollouts with the pure-TypeScript reward library and
 * the learned PRM (docs/reward-spec.md §2), off the page's thread and beside
 * the trainer's GPU loop.
 * Messages: ./reward-protocol.ts (RewardWorkerCommand in, RewardWorkerEvent
 * out); a message of an unknown type is answered with an error event naming it.
 * The PRM is fetched and opened on the first batch of a variant that reads it;
 * a missing, corrupt or wrong-shaped file fails those batches with an error
 * naming the file (src/prm/file.ts), and every other variant's batch is
 * scored as before. A written reward ("Your reward") runs in the QuickJS
 * sandbox (src/rewards/sandbox.ts), loaded from its served wasm file on the
 * first batch that needs it.
 */
import { ortWasmPaths } from "../onnx/browser-wasm";
import { cachedPrm, openPrm } from "../prm/file";
import { scoreRequest } from "../rl/reward-contract";
import type { PrmProvider } from "../prm/scorer";
import {
  asRewardWorkerCommand,
  messageId,
  type RewardWorkerCommand,
  type RewardWorkerEvent,
} from "./reward-protocol";
import { loadBrowserSandbox } from "./quickjs-wasm";

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

const post = (ev: RewardWorkerEvent) => self.postMessage(ev);

self.onmessage = async (ev: MessageEvent) => {
  let msg: RewardWorkerCommand;
  try {
    msg = asRewardWorkerCommand(ev.data);
  } catch (e) {
    post({
      type: "error",
      id: messageId(ev.data),
      message: `reward worker: ${(e as Error).message}`,
    });
    return;
  }
  if (msg.type === "init") {
    const url = msg.prmUrl;
    prm = cachedPrm(
      url,
      () => fetchPrm(url),
      (bytes) => openPrm(bytes, { wasmPaths: ortWasmPaths(), numThreads: prmThreads() }),
    );
    return;
  }
  try {
    post({
      type: "scored",
      id: msg.id,
      response: await scoreRequest(msg.request, prm, loadBrowserSandbox),
    });
  } catch (e) {
    post({ type: "error", id: msg.id, message: (e as Error).message });
  }
};
