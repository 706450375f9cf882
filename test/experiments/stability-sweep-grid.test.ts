/**
 * stabilitySweep (GRR §4.3.4 over judge-noise settings): what the rubric
 * auditor's noise model implies, checked on the same fixed groups.
 * - σ_b is a pointwise-only term: groupwise variance is exactly the same for
 *   every σ_b (common random numbers), pointwise grows with σ_b, by ≈ σ_b²
 *   for traces whose score is away from the clamp at 0 and 1;
 * - σ_j = 0 makes the groupwise ranking deterministic (variance exactly 0);
 * - σ_b = 0: no stability advantage left (the docs/reward-spec.md's "should vanish");
 * - a tie margin wider than any score gap ties everyone: r_rank = 0.
 */
import { describe, expect, it } from "vitest";
import { auditTrace, mulberry32 } from "../../src/rewards/index";
import {
  DEFAULT_SWEEP_SETTINGS,
  stabilityStudy,
  stabilitySweep,
} from "../../src/experiments/stability-sweep";
import { digitSumPrompt, digitTrace } from "../rewards/fixtures";
import { samplePrompts, sampleRollout } from "../rewards/policy";

const rng = mulberry32(2024);
const prompts = samplePrompts(40, rng);
const groups = prompts.map((p) => Array.from({ length: 8 }, () => sampleRollout(p, rng)));
const base = { prompts, groups, repeats: 4, seed: 11 };

describe("stabilitySweep", () => {
  it("runs the default settings in order: lab default first, then σ_b = 0, σ_b 0.05 / 0.3, σ_j 0 / 0.05", () => {
    expect(DEFAULT_SWEEP_SETTINGS.map((s) => [s.sigmaJ, s.sigmaB, s.delta])).toEqual([
      [0.13, 0.17, 0.15],
      [0.13, 0, 0.15],
      [0.13, 0.05, 0.15],
      [0.13, 0.3, 0.15],
      [0, 0.17, 0.15],
      [0.05, 0.17, 0.15],
    ]);
    const out = stabilitySweep(base);
    expect(out.map((r) => r.label)).toEqual(DEFAULT_SWEEP_SETTINGS.map((s) => s.label));
    for (const [k, r] of out.entries()) {
      const s = DEFAULT_SWEEP_SETTINGS[k];
      expect(r.judge).toEqual({ sigmaJ: s.sigmaJ, sigmaB: s.sigmaB, delta: s.delta });
      expect(r.rollouts).toBe(320);
      expect(r.repeats).toBe(4);
      expect(r.reduction).toBeCloseTo(1 - r.groupwise / r.pointwise, 12);
    }
    // The lab default (σ_j 0.13, σ_b 0.17) shows the paper's direction: groupwise more
    // stable (a reduction of 0.18 on these synthetic rollouts; 0.38 on the cold start's).
    expect(out[0].reduction).toBeGreaterThan(0.1);
  });

  it("each setting equals stabilityStudy with mulberry32(seed), whatever its place in the list", () => {
    const one = { sigmaJ: 0.07, sigmaB: 0.12, delta: 0.1 };
    const alone = stabilityStudy({ prompts, groups, repeats: 4, judge: one, rng: mulberry32(11) });
    const [first] = stabilitySweep({ ...base, settings: [one] });
    const last = stabilitySweep({ ...base, settings: [{ sigmaJ: 0.3 }, { sigmaB: 0 }, one] })[2];
    for (const r of [first, last]) {
      expect(r.pointwise).toBe(alone.pointwise);
      expect(r.groupwise).toBe(alone.groupwise);
    }
    expect(first.label).toBe("σ_j 0.07, σ_b 0.12, δ 0.1");
  });

  it("is deterministic for a seed and changes with it", () => {
    expect(stabilitySweep(base)).toEqual(stabilitySweep(base));
    const other = stabilitySweep({ ...base, seed: 12 });
    expect(other[0].pointwise).not.toBe(stabilitySweep(base)[0].pointwise);
  });

  it("σ_b changes only the pointwise variance, and it grows with σ_b", () => {
    const out = stabilitySweep({
      ...base,
      settings: [0, 0.05, 0.1, 0.2, 0.4].map((sigmaB) => ({ sigmaB })),
    });
    for (const r of out) expect(r.groupwise).toBe(out[0].groupwise);
    expect(out[0].groupwise).toBeGreaterThan(0);
    for (let k = 1; k < out.length; k++)
      expect(out[k].pointwise).toBeGreaterThan(out[k - 1].pointwise);
    // And the reduction with it: 1 − g/p rises as p does.
    for (let k = 1; k < out.length; k++)
      expect(out[k].reduction).toBeGreaterThan(out[k - 1].reduction);
  });

  it("σ_b = 0: the stability advantage vanishes (pointwise is then no less stable than the ranking)", () => {
    const [noCalib] = stabilitySweep({ ...base, settings: [{ sigmaB: 0 }] });
    expect(noCalib.pointwise).toBeGreaterThan(0); // σ_j alone still moves the scores
    expect(noCalib.reduction).toBeLessThan(0);
  });

  it("σ_j = 0: groupwise ranks are deterministic (variance 0) while σ_b still moves pointwise scores", () => {
    const [r] = stabilitySweep({ ...base, settings: [{ sigmaJ: 0, sigmaB: 0.1 }] });
    expect(r.groupwise).toBe(0);
    expect(r.pointwise).toBeGreaterThan(0.003);
    expect(r.reduction).toBe(1);
  });

  it("σ_j = σ_b = 0: both variances are exactly 0, even with δ = 0 (reduction 0, not NaN)", () => {
    const out = stabilitySweep({
      ...base,
      settings: [
        { sigmaJ: 0, sigmaB: 0 },
        { sigmaJ: 0, sigmaB: 0, delta: 0 },
      ],
    });
    for (const r of out) expect([r.pointwise, r.groupwise, r.reduction]).toEqual([0, 0, 0]);
  });

  it("a tie margin wider than any noisy score gap puts everyone in one tier: groupwise variance 0", () => {
    const [wide, none] = stabilitySweep({ ...base, settings: [{ delta: 2 }, { delta: 0 }] });
    expect(wide.groupwise).toBe(0);
    // δ = 0 splits equally good traces by perception noise alone: the least stable ranking.
    expect(none.groupwise).toBeGreaterThan(stabilitySweep(base)[0].groupwise);
  });

  it("pointwise variance ≈ σ_b² for traces scored away from the clamp (σ_j = 0, 400 repeats)", () => {
    const prompt = digitSumPrompt({ digits: [3, 4], multipleChoice: false });
    const texts = [
      digitTrace([3, 5], 8, "8"),
      digitTrace([3, 4], 8, "7"),
      digitTrace([2, 5], 7, "7"),
    ];
    for (const text of texts) {
      const s = auditTrace({ prompt, text }).score;
      expect(s).toBeGreaterThanOrEqual(0.39);
      expect(s).toBeLessThanOrEqual(0.61);
    }
    const settings = [0.05, 0.1].map((sigmaB) => ({ sigmaJ: 0, sigmaB }));
    const out = stabilitySweep({
      prompts: Array(10).fill(prompt),
      groups: Array(10).fill(texts),
      repeats: 400,
      seed: 3,
      settings,
    });
    for (const r of out) {
      expect(r.pointwise / (r.judge.sigmaB * r.judge.sigmaB)).toBeGreaterThan(0.9);
      expect(r.pointwise / (r.judge.sigmaB * r.judge.sigmaB)).toBeLessThan(1.1);
      expect(r.groupwise).toBe(0);
    }
  });

  it("throws naming the field for bad settings, seeds and repeats", () => {
    expect(() => stabilitySweep({ ...base, settings: [] })).toThrow(/settings/);
    expect(() => stabilitySweep({ ...base, seed: -1 })).toThrow(/seed/);
    expect(() => stabilitySweep({ ...base, seed: 1.5 })).toThrow(/seed/);
    expect(() => stabilitySweep({ ...base, settings: [{ sigmaB: -0.1 }] })).toThrow(
      /auditor\.sigmaB/,
    );
    expect(() => stabilitySweep({ ...base, settings: [{ sigmaJ: Number.NaN }] })).toThrow(
      /auditor\.sigmaJ/,
    );
    expect(() => stabilitySweep({ ...base, settings: [{ delta: -1 }] })).toThrow(/auditor\.delta/);
    expect(() => stabilitySweep({ ...base, repeats: 1 })).toThrow(/repeats/);
    expect(() => stabilitySweep({ ...base, groups: groups.slice(1) })).toThrow(/groups/);
  });
});
