/**
 * Typed messages between the trainer and the reward worker, beside the
 * trainer worker's (./protocol.ts): the client (./reward-worker-client.ts)
 * sends RewardWorkerCommands, the worker (./reward.worker.ts) answers with
 * RewardWorkerEvents. Every message has a `type`; a receiver narrows it
 * with asRewardWorkerCommand / asRewardWorkerEvent and reports an unknown
 * type as an error naming it (never ignores it).
 */
import type { ScoreRequest, ScoreResponse } from "../rl/reward-contract";

/** What the trainer sends the reward worker. */
export type RewardWorkerCommand =
  /** Where the learned PRM file is (absolute URL); sent once, first, when the page has one. */
  | { type: "init"; prmUrl: string }
  /** Score one batch; answered by `scored` or `error` with the same id. */
  | { type: "score"; id: number; request: ScoreRequest };

/** What the reward worker answers. */
export type RewardWorkerEvent =
  | { type: "scored"; id: number; response: ScoreResponse }
  /** The scorer's own error for request `id`, or (id -1) a message the worker could not take. */
  | { type: "error"; id: number; message: string };

/** The `id` of a message, or -1 when it has none (to answer a message that could not be narrowed). */
export function messageId(msg: unknown): number {
  const id = (msg as { id?: unknown } | null)?.id;
  return typeof id === "number" ? id : -1;
}

/** `msg` as a record with a string `type`, or an error naming what it has instead. */
function typed(msg: unknown, what: string): Record<string, unknown> & { type: string } {
  const type = (msg as { type?: unknown } | null)?.type;
  if (typeof type !== "string") throw new Error(`${what} without a type: ${JSON.stringify(type)}`);
  return msg as Record<string, unknown> & { type: string };
}

/** Throws naming `field` of a `type` message unless `ok`. */
function need(ok: boolean, what: string, type: string, field: string, expected: string): void {
  if (!ok) throw new Error(`${what} '${type}': ${field} must be ${expected}`);
}

/**
 * Narrows an incoming message to a RewardWorkerCommand (the worker's side).
 * Checks the type and the fields' kinds; the ScoreRequest's content is the
 * trainer's own, parsed where its settings entered (not checked again).
 * @throws Error naming an unknown or missing type, or a field of the wrong kind.
 */
export function asRewardWorkerCommand(msg: unknown): RewardWorkerCommand {
  const what = "reward worker command";
  const m = typed(msg, what);
  switch (m.type) {
    case "init":
      need(typeof m.prmUrl === "string", what, m.type, "prmUrl", "a string");
      return m as RewardWorkerCommand;
    case "score":
      need(typeof m.id === "number", what, m.type, "id", "a number");
      need(
        typeof m.request === "object" && m.request !== null,
        what,
        m.type,
        "request",
        "an object",
      );
      return m as RewardWorkerCommand;
    default:
      throw new Error(`unknown ${what} type ${JSON.stringify(m.type)}`);
  }
}

/**
 * Narrows an incoming message to a RewardWorkerEvent (the client's side).
 * @throws Error naming an unknown or missing type, or a field of the wrong kind.
 */
export function asRewardWorkerEvent(msg: unknown): RewardWorkerEvent {
  const what = "reward worker event";
  const m = typed(msg, what);
  switch (m.type) {
    case "scored":
      need(typeof m.id === "number", what, m.type, "id", "a number");
      need(
        typeof m.response === "object" && m.response !== null,
        what,
        m.type,
        "response",
        "an object",
      );
      return m as RewardWorkerEvent;
    case "error":
      need(typeof m.id === "number", what, m.type, "id", "a number");
      need(typeof m.message === "string", what, m.type, "message", "a string");
      return m as RewardWorkerEvent;
    default:
      throw new Error(`unknown ${what} type ${JSON.stringify(m.type)}`);
  }
}
