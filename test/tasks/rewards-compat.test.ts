/**
 * Cross-checks the SFT targets against the reward library: its parser must
 * read every target as well-formed with the right final answer, every target
 * must score fmt = right = rule = cons = 1 (docs/reward-spec.md §3), and the rubric
 * auditor must find every step's arithmetic valid (incl. three-term steps).
 */
import { describe, expect, it } from "vitest";
import {
  createTaskGenerator,
  Rng,
  type LabTaskPrompt,
  type TaskConfig,
} from "../../src/tasks/index";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";

import * as rewards from "../../src/rewards/index";
import { auditTrace } from "../../src/rewards/auditor-judge";

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
const prompts: LabTaskPrompt[] = configs.flatMap((c, i) =>
  createTaskGenerator(c, { mnist }).sampleBatch(40, new Rng(100 + i)),
);

describe("SFT targets against the reward library", () => {
  it("parseTrace reads every target as formatOk with the ground-truth final answer and one step per reference step", () => {
    for (const p of prompts) {
      const t = rewards.parseTrace({ text: p.sftTarget });
      expect(t.formatOk, p.sftTarget).toBe(true);
      expect(t.thinkBlocks.length).toBe(1);
      expect(t.finalAnswer).toBe(p.answer.letter ?? p.answer.content);
      expect(t.steps.map((s) => s.index)).toEqual(p.referenceSteps.map((_, i) => i + 1));
      expect(t.steps.map((s) => s.boxed)).toEqual(p.referenceSteps.map((s) => s.value));
    }
  });

  it("structReward scores every target fmt = right = rule = cons = 1", () => {
    for (const p of prompts) {
      const r = rewards.structReward({
        text: p.sftTarget,
        referenceSteps: p.referenceSteps,
        gold: p.answer.letter ?? p.answer.content,
        options: p.options ?? undefined,
      });
      expect({ id: p.id, fmt: r.fmt, right: r.right, rule: r.rule, cons: r.cons }).toEqual({
        id: p.id,
        fmt: 1,
        right: 1,
        rule: 1,
        cons: 1,
      });
    }
  });

  it("the rubric auditor scores every target 1 (steps, arithmetic, agreement, completeness)", () => {
    for (const p of prompts) {
      const a = auditTrace({ prompt: p, text: p.sftTarget });
      expect({ id: p.id, score: a.score, arithmetic: a.arithmetic }).toEqual({
        id: p.id,
        score: 1,
        arithmetic: 1,
      });
    }
  });
});
