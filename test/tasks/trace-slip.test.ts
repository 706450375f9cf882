// The trace-slip knob (TaskConfig.traceSlipRate): SFT targets whose last step
// concludes a near miss while the final box keeps the answer. Targets without
// slips are unchanged, slips come at the configured rate, and the eval metrics
// read a slipped target as correct but inconsistent (CBIR), as the papers define it.
import { describe, expect, it } from "vitest";
import { createTaskGenerator } from "../../src/tasks/generator";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";
import { Rng } from "../../src/tasks/rng";
import { buildModelTokens } from "../../src/tasks/tokenizer";
import { resolveTaskConfig } from "../../src/tasks/config";
import { evalMetrics } from "../../src/rl/eval-metrics";
import { parseTrace } from "../../src/rewards/index";
import { parseExperiment } from "../../src/settings/experiment";
import { taskGeneratorFor } from "../../src/run/lab-run";
import { checkpointPath } from "../../src/settings/checkpoints";

const mnist = loadMnistSubsetNode();
const batch = (cfg: object, n = 2000) =>
  createTaskGenerator({ multipleChoice: false, ...cfg }, { mnist }).sampleBatch(n, new Rng(7));

describe("trace slips", () => {
  it("leaves every other draw unchanged: questions, images and unslipped targets", () => {
    const a = batch({ hintRate: 1, hintAccuracy: 1 }, 200);
    const b = batch({ hintRate: 1, hintAccuracy: 1, traceSlipRate: 0.3 }, 200);
    expect(b.map((p) => [p.question, p.meta.digitIndices, p.meta.hint])).toEqual(
      a.map((p) => [p.question, p.meta.digitIndices, p.meta.hint]),
    );
    b.forEach((p, i) => {
      if (!p.meta.traceSlip) expect(p.sftTarget).toBe(a[i].sftTarget);
    });
  });

  it("slips the last step only, by a near miss, at the configured rate", () => {
    const ps = batch({ traceSlipRate: 0.3 });
    const slipped = ps.filter((p) => p.meta.traceSlip);
    expect(slipped.length / ps.length).toBeGreaterThan(0.27);
    expect(slipped.length / ps.length).toBeLessThan(0.33);
    for (const p of slipped) {
      const t = parseTrace({ text: p.sftTarget });
      const n = p.referenceSteps.length;
      expect(t.steps.length).toBe(n);
      // Reading steps keep the true values; the last one is off by 1..10; the answer stays.
      for (let i = 0; i < n - 1; i++) expect(t.steps[i].boxed).toBe(p.referenceSteps[i].value);
      const miss = Number(t.steps[n - 1].boxed);
      const truth = Number(p.referenceSteps[n - 1].value);
      expect(miss).not.toBe(truth);
      expect(Math.abs(miss - truth)).toBeLessThanOrEqual(10);
      expect(t.finalAnswer).toBe(p.answer.content);
      expect(() => buildModelTokens(p)).not.toThrow();
    }
  });

  it("a slipped target is correct but inconsistent: IncR and CBIR count it", () => {
    const ps = batch({ traceSlipRate: 0.5 }, 64);
    const share = ps.filter((p) => p.meta.traceSlip).length / ps.length;
    expect(share).toBeGreaterThan(0);
    const m = evalMetrics(
      ps,
      ps.map((p) => p.sftTarget),
    );
    expect(m.acc).toBe(1);
    expect(m.incR).toBeCloseTo(share, 12);
    expect(m.cbir).toBeCloseTo(share, 12);
    expect(m.rcAcc).toBeCloseTo(1 - share, 12);
  });

  it("reaches the generator from the experiment (the lab's SFT uses it)", () => {
    const exp = parseExperiment({ task: { traceSlipRate: 0.5 }, variants: [{ name: "rlvr" }] });
    const ps = taskGeneratorFor(exp, mnist).sampleBatch(200, new Rng(3));
    const share = ps.filter((p) => p.meta.traceSlip).length / ps.length;
    expect(share).toBeGreaterThan(0.4);
    expect(share).toBeLessThan(0.6);
  });

  it("rejects a rate outside [0, 1], naming the field", () => {
    expect(() => resolveTaskConfig({ traceSlipRate: 2 })).toThrow(/TaskConfig\.traceSlipRate/);
  });
});

describe("what a slipped trace boxes (TaskConfig.traceSlipBox)", () => {
  const thinkPart = (t: string) => t.slice(0, t.lastIndexOf("</think>"));

  it("boxes the hint or the slipped value instead of the answer, leaving every other target unchanged", () => {
    const base = { hintRate: 1, hintAccuracy: 0.5, traceSlipRate: 0.4 };
    const a = batch(base, 500);
    const hint = batch({ ...base, traceSlipBox: "hint" }, 500);
    const stepBox = batch({ ...base, traceSlipBox: "step" }, 500);
    let slipped = 0;
    a.forEach((p, i) => {
      for (const b of [hint[i], stepBox[i]]) {
        expect(b.question).toBe(p.question);
        expect(b.meta.traceSlip).toBe(p.meta.traceSlip);
        if (!p.meta.traceSlip) expect(b.sftTarget).toBe(p.sftTarget);
        else expect(thinkPart(b.sftTarget)).toBe(thinkPart(p.sftTarget));
      }
      if (!p.meta.traceSlip) return;
      slipped++;
      const t = parseTrace({ text: stepBox[i].sftTarget });
      // `step`: consistent with the slipped step, hence wrong.
      expect(t.finalAnswer).toBe(t.steps[t.steps.length - 1].boxed);
      expect(t.finalAnswer).not.toBe(p.answer.content);
      // `hint`: the leaked hint, right or wrong.
      expect(parseTrace({ text: hint[i].sftTarget }).finalAnswer).toBe(p.meta.hint);
      expect(parseTrace({ text: p.sftTarget }).finalAnswer).toBe(p.answer.content);
    });
    expect(slipped).toBeGreaterThan(150);
  });

  it("reads a slip boxed by its step as consistent but wrong (outside IncR)", () => {
    const ps = batch({ traceSlipRate: 1, traceSlipBox: "step" }, 64);
    const m = evalMetrics(
      ps,
      ps.map((p) => p.sftTarget),
    );
    expect(m.acc).toBe(0);
    expect(m.incR).toBe(0);
  });

  it("keeps the answer without a hint, and the letter in multiple choice", () => {
    for (const p of batch({ traceSlipRate: 1, traceSlipBox: "hint" }, 50))
      expect(parseTrace({ text: p.sftTarget }).finalAnswer).toBe(p.answer.content);
    const mc = createTaskGenerator(
      { multipleChoice: true, traceSlipRate: 1, traceSlipBox: "step" },
      { mnist },
    ).sampleBatch(50, new Rng(2));
    for (const p of mc) expect(parseTrace({ text: p.sftTarget }).finalAnswer).toBe(p.answer.letter);
  });

  it("names the cold start by the rate and the box, and rejects an unknown box", () => {
    const exp = parseExperiment({
      modelSize: "small",
      task: { traceSlipRate: 0.3, traceSlipBox: "hint" },
      variants: [{ name: "rlvr" }],
    });
    expect(checkpointPath(exp)).toBe("checkpoints/sft-digits2-open-hint-slip30-hintbox-small.ckpt");
    const plain = parseExperiment({ modelSize: "small", variants: [{ name: "rlvr" }] });
    expect(checkpointPath({ ...plain, task: { ...plain.task, traceSlipBox: "answer" } })).toBe(
      "checkpoints/sft-digits2-open-hint-slip30-small.ckpt",
    );
    expect(() => resolveTaskConfig({ traceSlipBox: "nope" as unknown as "hint" })).toThrow(
      /TaskConfig\.traceSlipBox/,
    );
  });
});
