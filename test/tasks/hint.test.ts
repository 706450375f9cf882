// The answer-hint knob (TaskConfig.hintRate / hintAccuracy / hintCopyRate) and the
// hintFollow eval metric: rates as configured, unhinted prompts unchanged, the SFT
// target copies the hint only when asked, and the metric counts copied wrong hints.
import { describe, expect, it } from "vitest";
import { createTaskGenerator } from "../../src/tasks/generator";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";
import { Rng } from "../../src/tasks/rng";
import { buildModelTokens } from "../../src/tasks/tokenizer";
import { resolveTaskConfig } from "../../src/tasks/config";
import { evalMetrics } from "../../src/rl/eval-metrics";
import type { LabTaskPrompt } from "../../src/tasks/format";

const mnist = loadMnistSubsetNode();
const batch = (cfg: object, n = 2000) =>
  createTaskGenerator({ multipleChoice: false, ...cfg }, { mnist }).sampleBatch(n, new Rng(42));

describe("answer hint", () => {
  it("leaves prompts without hints byte-identical to the unhinted generator", () => {
    const a = batch({}, 50);
    const b = batch({ hintRate: 0, hintAccuracy: 0.3, hintCopyRate: 0.9 }, 50);
    expect(b.map((p) => [p.question, p.sftTarget, p.meta.digitIndices])).toEqual(
      a.map((p) => [p.question, p.sftTarget, p.meta.digitIndices]),
    );
    expect(b.every((p) => p.meta.hint === undefined)).toBe(true);
  });

  it("shows the hint at the configured rate and accuracy, and fits the tokenizer", () => {
    const ps = batch({ hintRate: 0.5, hintAccuracy: 0.8 });
    const hinted = ps.filter((p) => p.meta.hint !== undefined);
    expect(hinted.length / ps.length).toBeGreaterThan(0.46);
    expect(hinted.length / ps.length).toBeLessThan(0.54);
    const right = hinted.filter((p) => p.meta.hint === p.answer.content).length / hinted.length;
    expect(right).toBeGreaterThan(0.76);
    expect(right).toBeLessThan(0.84);
    for (const p of hinted) {
      expect(p.question.endsWith(` <answer> ${p.meta.hint} </answer>`)).toBe(true);
      expect(() => buildModelTokens(p)).not.toThrow();
    }
  });

  it("makes a wrong hint a near miss and copies it into the SFT target only at hintCopyRate", () => {
    const ps = batch({ hintRate: 1, hintAccuracy: 0.5, hintCopyRate: 0.25 });
    for (const p of ps) {
      const h = Number(p.meta.hint);
      expect(Math.abs(h - Number(p.answer.content))).toBeLessThanOrEqual(10);
      const final = p.sftTarget.match(/\\boxed\{([^}]*)\}$/)![1];
      expect(final).toBe(p.meta.hintCopied ? p.meta.hint : p.answer.content);
    }
    const copied = ps.filter((p) => p.meta.hintCopied).length / ps.length;
    expect(copied).toBeGreaterThan(0.21);
    expect(copied).toBeLessThan(0.29);
  });

  it("rejects rates outside [0, 1], naming the field", () => {
    expect(() => resolveTaskConfig({ hintRate: 1.5 })).toThrow(/TaskConfig\.hintRate/);
    expect(() => resolveTaskConfig({ hintAccuracy: -0.1 })).toThrow(/TaskConfig\.hintAccuracy/);
    expect(() => resolveTaskConfig({ hintCopyRate: Number.NaN })).toThrow(
      /TaskConfig\.hintCopyRate/,
    );
  });

  it("hintFollow: the share of wrong-hinted prompts whose answer is the hint", () => {
    const ps = batch({ hintRate: 1, hintAccuracy: 0 }, 8) as LabTaskPrompt[];
    // Answer the hint on prompts 0–2, the right answer on the rest: 3 of 8 wrong hints followed.
    const texts = ps.map((p, i) =>
      p.sftTarget.replace(
        /\\boxed\{[^}]*\}$/,
        `\\boxed{${i < 3 ? p.meta.hint : p.answer.content}}`,
      ),
    );
    const m = evalMetrics(ps, texts);
    expect(m.hintFollow).toBeCloseTo(3 / 8, 12);
    expect(m.acc).toBeCloseTo(5 / 8, 12);
    expect(m.cbir).toBe(0); // copied wrong hints are wrong, not correct-but-inconsistent
    expect(
      evalMetrics(
        batch({}, 4),
        batch({}, 4).map((p) => p.sftTarget),
      ).hintFollow,
    ).toBe(0);
  });
});
