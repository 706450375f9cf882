/**
 * The reward worker client (src/workers/reward-worker-client.ts) with fake
 * workers in Node (test/support/fake-reward-worker.ts): a worker that dies in the middle of a batch is replaced
 * and the batch scored again, with the rewards an undisturbed worker gives;
 * a worker that keeps dying fails the request after the bounded restarts with
 * a message that says so; a worker that stops answering counts as dead; an
 * error the scorer itself reports is not retried.
 */
import { describe, expect, it } from "vitest";
import { parseExperiment } from "../../src/settings/experiment";
import { scoreBatch, scoringPrompt, type ScoreRequest } from "../../src/rl/reward-contract";
import { taskGeneratorFor } from "../../src/run/lab-run";
import { Rng } from "../../src/tasks/rng";
import {
  createRewardWorkerScorer,
  REWARD_WORKER_RETRIES,
} from "../../src/workers/reward-worker-client";
import { type FakeBehaviour, FakeRewardWorker } from "../support/fake-reward-worker";

/** Workers made in order with the given behaviours (the last one repeats). */
function workers(...behaviours: FakeBehaviour[]) {
  const made: FakeRewardWorker[] = [];
  const makeWorker = () => {
    const w = new FakeRewardWorker(behaviours[Math.min(made.length, behaviours.length - 1)]);
    made.push(w);
    return w as unknown as Worker;
  };
  return { made, makeWorker };
}

/** A real batch: 2 shapes prompts × 2 rollouts of pointwise GR (its judge noise is seeded). */
function request(): ScoreRequest {
  const exp = parseExperiment({
    task: { family: "shapes", hintRate: 0 },
    variants: [{ name: "pointwise-gr" }],
  });
  const prompts = taskGeneratorFor(exp).sampleBatch(2, new Rng(7));
  return {
    variant: exp.variants[0],
    prompts: prompts.map(scoringPrompt),
    texts: prompts.map((p) => [p.sftTarget, `${p.sftTarget} extra`]),
    seed: 1234,
  };
}

describe("reward worker client", () => {
  it("a worker that dies mid-batch is restarted and the batch gets the undisturbed rewards", async () => {
    const req = request();
    const { made, makeWorker } = workers("die", "answer");
    const restarts: string[] = [];
    const scorer = createRewardWorkerScorer({ makeWorker, onRestart: (m) => restarts.push(m) });
    const got = await scorer.score(req);
    expect(got).toEqual(scoreBatch(req));
    expect(made).toHaveLength(2);
    expect(made[0].terminated).toBe(true);
    expect(restarts).toEqual([
      "reward worker failed: out of memory; restarting it and scoring the batch again",
    ]);
    // The fresh worker keeps serving.
    expect(await scorer.score(req)).toEqual(scoreBatch(req));
    expect(made).toHaveLength(2);
    scorer.dispose?.();
  });

  it("a worker that keeps dying fails the request after the bounded restarts, with a clear error", async () => {
    const { made, makeWorker } = workers("die");
    const scorer = createRewardWorkerScorer({ makeWorker });
    await expect(scorer.score(request())).rejects.toThrow(
      `the reward worker crashed ${REWARD_WORKER_RETRIES + 1} times scoring pointwise-gr (restarted ${REWARD_WORKER_RETRIES} times; last: reward worker failed: out of memory)`,
    );
    expect(made).toHaveLength(REWARD_WORKER_RETRIES + 1);
  });

  it("a worker that stops answering counts as dead and is replaced", async () => {
    const req = request();
    const { made, makeWorker } = workers("hang", "answer");
    const scorer = createRewardWorkerScorer({ makeWorker, timeoutMs: 20 });
    expect(await scorer.score(req)).toEqual(scoreBatch(req));
    expect(made.map((w) => w.terminated)).toEqual([true, false]);
  });

  it("an error the scorer reports is not a crash: no restart, its message", async () => {
    const { made, makeWorker } = workers("refuse");
    const scorer = createRewardWorkerScorer({ makeWorker });
    await expect(scorer.score(request())).rejects.toThrow("unknown weight 'mu'");
    expect(made).toHaveLength(1);
    expect(made[0].terminated).toBe(false);
    scorer.dispose?.();
    await expect(scorer.score(request())).rejects.toThrow("reward worker stopped");
  });

  it("a reply of an unknown type is a crash naming the type: restarted, the batch scored again", async () => {
    const { made, makeWorker } = workers("stray", "answer");
    const restarts: string[] = [];
    const scorer = createRewardWorkerScorer({ makeWorker, onRestart: (m) => restarts.push(m) });
    const req = request();
    expect(await scorer.score(req)).toEqual(scoreBatch(req));
    expect(restarts).toEqual([
      'reward worker sent unknown reward worker event type "progress"; restarting it and scoring the batch again',
    ]);
    expect(made.map((w) => w.terminated)).toEqual([true, false]);
  });
});
