/**
 * A stand-in for the reward worker (src/workers/reward.worker.ts) in Node,
 * where there are no Web Workers: it answers a `score` message with
 * scoreBatch, as the real one does, or dies, hangs, or reports the scorer's
 * error, as a test asks.
 */
import { scoreBatch, type ScoreRequest } from "../../src/rl/reward-contract";

/**
 * How a fake worker treats a batch: answer, die (an `error` event), hang,
 * refuse (an error reply), or stray (a reply of a type the protocol does not have).
 */
export type FakeBehaviour = "answer" | "die" | "hang" | "refuse" | "stray";

/** The parts of a Worker the reward worker client uses. */
export class FakeRewardWorker {
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: { message: string; preventDefault(): void }) => void) | null = null;
  onmessageerror: (() => void) | null = null;
  terminated = false;

  /**
   * @param behaviour what this worker does with each batch (may be changed between batches).
   * @param beforeScore runs before an answer; a throw becomes an error reply (the scorer's own error).
   */
  constructor(
    public behaviour: FakeBehaviour,
    private readonly beforeScore: (req: ScoreRequest) => void = () => {},
  ) {}

  postMessage(msg: { type: string; id: number; request: ScoreRequest }): void {
    setTimeout(() => {
      if (this.terminated) return;
      if (this.behaviour === "die")
        this.onerror?.({ message: "out of memory", preventDefault: () => {} });
      else if (this.behaviour === "stray")
        this.onmessage?.({ data: { type: "progress", id: msg.id, done: 0.5 } });
      else if (this.behaviour === "refuse")
        this.onmessage?.({ data: { type: "error", id: msg.id, message: "unknown weight 'mu'" } });
      else if (this.behaviour === "answer") {
        try {
          this.beforeScore(msg.request);
          this.onmessage?.({
            data: { type: "scored", id: msg.id, response: scoreBatch(msg.request) },
          });
        } catch (e) {
          this.onmessage?.({ data: { type: "error", id: msg.id, message: (e as Error).message } });
        }
      }
    }, 1);
  }

  terminate(): void {
    this.terminated = true;
  }
}
