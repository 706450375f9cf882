/// <reference lib="webworker" />
/**
 * Reward worker: scores rollouts with the pure-TypeScript reward library, off
 * the page's thread and beside the trainer's GPU loop.
 * In:  { type: "score", id, request: ScoreRequest }
 * Out: { type: "scored", id, response } | { type: "error", id, message }
 */
import { scoreBatch, type ScoreRequest } from "../rl/reward-client";

declare const self: DedicatedWorkerGlobalScope;

self.onmessage = (ev: MessageEvent) => {
  const msg = ev.data as { type?: string; id?: number; request?: ScoreRequest };
  if (msg?.type !== "score") {
    self.postMessage({
      type: "error",
      id: msg?.id ?? -1,
      message: `reward worker: unknown message type ${JSON.stringify(msg?.type)}`,
    });
    return;
  }
  try {
    self.postMessage({ type: "scored", id: msg.id, response: scoreBatch(msg.request!) });
  } catch (e) {
    self.postMessage({ type: "error", id: msg.id, message: (e as Error).message });
  }
};
