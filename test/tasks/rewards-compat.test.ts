/**
 * Cross-checks the SFT targets against the reward library (src/rewards,
 * written concurrently by others): its parser must read every target as
 * well-formed with the right final answer, and — once `structReward` exists —
 * every target must score fmt = right = rule = cons = 1 (reward-spec §3).
 */
import { describe, expect, it } from "vitest";
import { createTaskGenerator, Rng, type LabTaskPrompt, type TaskConfig } from "../../src/tasks/index";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let rewards: Record<string, any> = {};
try {
  rewards = await import("../../src/rewards/index");
} catch {
  rewards = {};
}

const mnist = loadMnistSubsetNode();
const configs: Partial<TaskConfig>[] = [
  { family: "digits" },
  { family: "digits", numDigits: 3, multipleChoice: false },
  { family: "digits", digitOps: ["product"], numOptions: 5 },
  ...([1, 2, 3, 4] as const).flatMap((numSteps) => [
    { family: "shapes" as const, numSteps },
    { family: "bars" as const, numSteps, multipleChoice: false },
  ]),
];
const prompts: LabTaskPrompt[] = configs.flatMap((c, i) => createTaskGenerator(c, { mnist }).sampleBatch(40, new Rng(100 + i)));

describe("SFT targets against the reward library", () => {
  it.skipIf(typeof rewards.parseTrace !== "function")("parseTrace reads every target as formatOk with the ground-truth final answer and one step per reference step", () => {
    for (const p of prompts) {
      const t = rewards.parseTrace({ text: p.sftTarget });
      expect(t.formatOk, p.sftTarget).toBe(true);
      expect(t.thinkBlocks.length).toBe(1);
      expect(t.finalAnswer).toBe(p.answer.letter ?? p.answer.content);
      expect(t.steps.map((s: { index: number }) => s.index)).toEqual(p.referenceSteps.map((_, i) => i + 1));
      expect(t.steps.map((s: { boxed: string }) => s.boxed)).toEqual(p.referenceSteps.map((s) => s.value));
    }
  });

  it.skipIf(typeof rewards.structReward !== "function")("structReward scores every target fmt = right = rule = cons = 1", () => {
    for (const p of prompts) {
      const r = rewards.structReward({ text: p.sftTarget, referenceSteps: p.referenceSteps, gold: p.answer, options: p.options });
      expect({ id: p.id, fmt: r.fmt, right: r.right, rule: r.rule, cons: r.cons }).toEqual({ id: p.id, fmt: 1, right: 1, rule: 1, cons: 1 });
    }
  });
});
