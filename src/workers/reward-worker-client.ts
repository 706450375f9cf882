/**
 * RewardScorer backed by the reward worker (browser). Requests are matched to
 * replies by id; a worker error rejects every pending request with its message.
 */
import type { RewardScorer, ScoreRequest, ScoreResponse } from "../rl/reward-client";

/** Starts a reward worker and returns a scorer that talks to it. */
export function createRewardWorkerScorer(): RewardScorer {
  const worker = new Worker(new URL("./reward.worker.ts", import.meta.url), { type: "module" });
  const pending = new Map<number, { resolve: (r: ScoreResponse) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const failAll = (message: string) => {
    for (const p of pending.values()) p.reject(new Error(message));
    pending.clear();
  };
  worker.onmessage = (ev: MessageEvent) => {
    const msg = ev.data as { type: string; id: number; response?: ScoreResponse; message?: string };
    const p = pending.get(msg.id);
    if (msg.type === "scored" && p) {
      pending.delete(msg.id);
      p.resolve(msg.response!);
    } else if (msg.type === "error") {
      if (p) {
        pending.delete(msg.id);
        p.reject(new Error(msg.message));
      } else failAll(msg.message ?? "reward worker error");
    } else {
      failAll(`reward worker sent an unknown message type ${JSON.stringify(msg.type)}`);
    }
  };
  worker.onerror = (ev) => failAll(`reward worker failed: ${ev.message}`);
  return {
    score(request: ScoreRequest) {
      return new Promise<ScoreResponse>((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ type: "score", id, request });
      });
    },
    dispose() {
      failAll("reward worker stopped");
      worker.terminate();
    },
  };
}
