// The page's record of token-weights answers (src/store/token-weights.ts via
// the run-data reducer): an answer is kept under its group and variant, an
// error naming the command answers the pending requests, any other error
// does not, and a reset drops them all.
import { describe, expect, it } from "vitest";
import { clearRun, initialRunData, reduceEvent } from "../../src/store/run-data";
import { tokenWeightsKey, type TokenWeightsAnswer } from "../../src/store/token-weights";

const answer: TokenWeightsAnswer = {
  type: "tokenWeights",
  variant: "scs",
  step: 1,
  promptId: "p7",
  seed: 31,
  estimator: "rloo",
  beta: 0,
  clipEps: 0.2,
  rollouts: [
    {
      tokens: ["<think>", "9"],
      logprob: [-0.1, -0.2],
      refLogprob: [-0.1, -0.3],
      ratio: [1, 1],
      advantage: -0.5,
      pgCoef: [-0.25, -0.25],
      klCoef: [0, 0],
      coef: [-0.25, -0.25],
      clipped: [false, false],
    },
  ],
};

describe("token weights in the store", () => {
  it("keys an answer by variant, step, prompt and seed", () => {
    expect(tokenWeightsKey({ variant: "scs", step: 1, promptId: "p7", seed: 31 })).not.toBe(
      tokenWeightsKey({ variant: "scs", step: 1, promptId: "p7" }),
    );
    const d = reduceEvent(initialRunData(), answer);
    expect(d.tokenWeights[tokenWeightsKey(answer)]).toBe(answer);
    expect(clearRun(d).tokenWeights).toEqual({});
  });

  it("an error naming a pending request answers it; another error, or one naming another request, does not", () => {
    const key = tokenWeightsKey({ variant: "rlvr", step: 2, promptId: "p1" });
    const otherKey = tokenWeightsKey({ variant: "rlvr", step: 2, promptId: "p10" });
    const pending = {
      ...initialRunData(),
      tokenWeights: { [key]: { pending: true as const }, [otherKey]: { pending: true as const } },
    };
    const other = reduceEvent(pending, { type: "error", message: "judge timed out", fatal: false });
    expect(other.tokenWeights[key]).toEqual({ pending: true });
    const failed = reduceEvent(pending, {
      type: "error",
      message: "tokenWeights rlvr step 2 prompt p1: the group is no longer kept",
      fatal: false,
    });
    expect(failed.tokenWeights[key]).toEqual({
      error: "tokenWeights rlvr step 2 prompt p1: the group is no longer kept",
    });
    expect(failed.tokenWeights[otherKey]).toEqual({ pending: true });
    expect(failed.errors.length).toBe(1);
  });
});
