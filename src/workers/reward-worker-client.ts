/**
 * RewardScorer backed by the reward worker (browser). Requests are matched to
 * replies by id. A worker that crashes (an `error` event, a message that
 * cannot be read, an unknown reply, or no answer within the timeout) is
 * terminated, and every request it held is sent again to a fresh worker, up
 * to REWARD_WORKER_RETRIES restarts per request; then the request fails with
 * a message that says so. Scoring is deterministic for a request (its seed),
 * so a retried request gets the rewards the first worker would have given.
 * An error the scorer itself reports (an `error` reply for the request: bad
 * weights, an unknown variant) is not a crash and is not retried.
 */
import type { RewardScorer, ScoreRequest, ScoreResponse } from "../rl/reward-contract";
import {
  asRewardWorkerEvent,
  type RewardWorkerCommand,
  type RewardWorkerEvent,
} from "./reward-protocol";

/** How long one batch may take before the reward worker counts as stuck (lab choice). */
const REWARD_TIMEOUT_MS = 120_000;
/** Fresh workers one request may be sent to after the first crashes (lab choice). */
export const REWARD_WORKER_RETRIES = 2;

/** The worker died (or stopped answering) while it held the request. */
class RewardWorkerCrash extends Error {}

/** Options of createRewardWorkerScorer; the defaults are the page's. */
export interface RewardWorkerOptions {
  /** Starts a reward worker (default: src/workers/reward.worker.ts as a module worker). */
  makeWorker?: () => Worker;
  /** Restarts per request before it fails (default REWARD_WORKER_RETRIES). */
  retries?: number;
  /** No answer after this many ms counts as a crash (default REWARD_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Told about each restart (the trainer logs it), with the crash message. */
  onRestart?: (message: string) => void;
  /** Absolute URL of the learned PRM file, sent to every worker started (absent: the worker has no PRM). */
  prmUrl?: string;
}

const defaultWorker = () =>
  new Worker(new URL("./reward.worker.ts", import.meta.url), { type: "module" });

/**
 * Starts a reward worker and returns a scorer that talks to it (see the file
 * comment for crashes and retries).
 * @returns a scorer whose `score` rejects with the scorer's own error, or,
 *   after `retries` restarts, with "the reward worker crashed N times …".
 */
export function createRewardWorkerScorer(opts: RewardWorkerOptions = {}): RewardScorer {
  const makeWorker = opts.makeWorker ?? defaultWorker;
  const retries = opts.retries ?? REWARD_WORKER_RETRIES;
  const timeoutMs = opts.timeoutMs ?? REWARD_TIMEOUT_MS;
  const start = () => startScorer(makeWorker, timeoutMs, opts.prmUrl);
  let scorer = start();
  let disposed = false;
  return {
    async score(request) {
      for (let attempt = 0; ; attempt++) {
        if (disposed) throw new Error("reward worker stopped");
        if (scorer.dead) {
          scorer = start();
        }
        try {
          return await scorer.score(request);
        } catch (e) {
          if (!(e instanceof RewardWorkerCrash) || disposed) throw e;
          if (attempt >= retries)
            throw new Error(
              `the reward worker crashed ${attempt + 1} times scoring ${request.variant.name} (restarted ${attempt} times; last: ${e.message})`,
            );
          opts.onRestart?.(`${e.message}; restarting it and scoring the batch again`);
        }
      }
    },
    dispose() {
      disposed = true;
      scorer.dispose();
    },
  };
}

function startScorer(
  makeWorker: () => Worker,
  timeoutMs: number,
  prmUrl: string | undefined,
): RewardScorer & { dead: boolean; dispose(): void } {
  const worker = makeWorker();
  const send = (cmd: RewardWorkerCommand) => worker.postMessage(cmd);
  if (prmUrl !== undefined) send({ type: "init", prmUrl });
  const pending = new Map<
    number,
    { resolve: (r: ScoreResponse) => void; reject: (e: Error) => void }
  >();
  let nextId = 1;
  let dead = false;
  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const die = (message: string) => {
    if (dead) return;
    dead = true;
    failAll(new RewardWorkerCrash(message));
    worker.terminate();
  };
  worker.onmessage = (ev: MessageEvent) => {
    let msg: RewardWorkerEvent;
    try {
      msg = asRewardWorkerEvent(ev.data);
    } catch (e) {
      // A message this client cannot read (an unknown type, named): the worker is not to be trusted.
      die(`reward worker sent ${(e as Error).message}`);
      return;
    }
    const p = pending.get(msg.id);
    if (msg.type === "scored" && p) {
      pending.delete(msg.id);
      p.resolve(msg.response);
    } else if (msg.type === "error" && p) {
      pending.delete(msg.id);
      p.reject(new Error(msg.message));
    } else if (msg.type === "error") {
      die(`reward worker error: ${msg.message}`);
    } else {
      die(`reward worker answered request ${msg.id}, which it does not hold`);
    }
  };
  worker.onerror = (ev) => {
    ev.preventDefault?.();
    die(`reward worker failed: ${ev.message || "it crashed without a message"}`);
  };
  worker.onmessageerror = () => die("reward worker: a message could not be deserialized");
  return {
    get dead() {
      return dead;
    },
    score(request: ScoreRequest) {
      if (dead) return Promise.reject(new RewardWorkerCrash("reward worker is not running"));
      return new Promise<ScoreResponse>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(
          () => die(`reward worker gave no answer in ${timeoutMs / 1000} s`),
          timeoutMs,
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
        send({ type: "score", id, request });
      });
    },
    dispose() {
      dead = true;
      failAll(new Error("reward worker stopped"));
      worker.terminate();
    },
  };
}
