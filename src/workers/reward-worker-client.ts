/**
 * RewardScorer backed by the reward worker (browser). Requests are matched to
 * replies by id; a worker error rejects every pending request with its message.
 */
import type { RewardScorer, ScoreRequest, ScoreResponse } from "../rl/reward-client";

/** How long one batch may take before the reward worker counts as stuck (lab choice). */
const REWARD_TIMEOUT_MS = 120_000;

/**
 * Starts a reward worker and returns a scorer that talks to it. A crashed
 * worker is replaced by a fresh one on the next request; a request that gets
 * no answer within REWARD_TIMEOUT_MS is rejected (the trainer then reports it).
 */
export function createRewardWorkerScorer(): RewardScorer {
  let scorer = startScorer();
  return {
    score(request) {
      if (scorer.dead) scorer = startScorer();
      return scorer.score(request);
    },
    dispose() {
      scorer.dispose();
    },
  };
}

function startScorer(): RewardScorer & { dead: boolean; dispose(): void } {
  const worker = new Worker(new URL("./reward.worker.ts", import.meta.url), { type: "module" });
  const pending = new Map<
    number,
    { resolve: (r: ScoreResponse) => void; reject: (e: Error) => void }
  >();
  let nextId = 1;
  let dead = false;
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
  const die = (message: string) => {
    dead = true;
    failAll(message);
    worker.terminate();
  };
  worker.onerror = (ev) => die(`reward worker failed: ${ev.message}`);
  worker.onmessageerror = () => die("reward worker: a message could not be deserialized");
  return {
    get dead() {
      return dead;
    },
    score(request: ScoreRequest) {
      return new Promise<ScoreResponse>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(
          () => die(`reward worker gave no answer in ${REWARD_TIMEOUT_MS / 1000} s`),
          REWARD_TIMEOUT_MS,
        );
        pending.set(id, {
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        worker.postMessage({ type: "score", id, request });
      });
    },
    dispose() {
      dead = true;
      failAll("reward worker stopped");
      worker.terminate();
    },
  };
}
