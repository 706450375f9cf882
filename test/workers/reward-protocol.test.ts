/** The reward worker's messages: narrowed by type, an unknown type refused by name. */
import { describe, expect, it } from "vitest";
import {
  asRewardWorkerCommand,
  asRewardWorkerEvent,
  messageId,
} from "../../src/workers/reward-protocol";

describe("reward worker messages", () => {
  it("narrows the commands and events it knows", () => {
    expect(asRewardWorkerCommand({ type: "init", prmUrl: "/prm.onnx" })).toEqual({
      type: "init",
      prmUrl: "/prm.onnx",
    });
    const score = { type: "score", id: 3, request: { texts: [] } };
    expect(asRewardWorkerCommand(score)).toBe(score);
    const scored = { type: "scored", id: 3, response: { groups: [] } };
    expect(asRewardWorkerEvent(scored)).toBe(scored);
    const error = { type: "error", id: 3, message: "bad" };
    expect(asRewardWorkerEvent(error)).toBe(error);
  });

  it("refuses an unknown or missing type, naming it", () => {
    expect(() => asRewardWorkerCommand({ type: "rescore", id: 1 })).toThrow(
      'unknown reward worker command type "rescore"',
    );
    expect(() => asRewardWorkerEvent({ type: "progress", id: 1 })).toThrow(
      'unknown reward worker event type "progress"',
    );
    expect(() => asRewardWorkerCommand({ id: 1 })).toThrow(
      "reward worker command without a type: undefined",
    );
    expect(() => asRewardWorkerEvent(null)).toThrow("reward worker event without a type");
  });

  it("refuses a known type with a field of the wrong kind, naming the field", () => {
    expect(() => asRewardWorkerCommand({ type: "score", id: "3", request: {} })).toThrow(
      "reward worker command 'score': id must be a number",
    );
    expect(() => asRewardWorkerCommand({ type: "init" })).toThrow(
      "reward worker command 'init': prmUrl must be a string",
    );
    expect(() => asRewardWorkerEvent({ type: "error", id: 2 })).toThrow(
      "reward worker event 'error': message must be a string",
    );
  });

  it("answers a message it cannot narrow under the message's own id, else -1", () => {
    expect(messageId({ type: "rescore", id: 7 })).toBe(7);
    expect(messageId({ type: "rescore" })).toBe(-1);
    expect(messageId(undefined)).toBe(-1);
  });
});
