/**
 * stabilitySweep (GRR §4.3.4 over judge-noise settings): what the oracle
 * auditor's noise model implies (the lab's judge until 2026-12-03, kept by
 * name; docs/reward-spec.md §2), checked on the same fixed groups.
 * - σ_b is a pointwise-only term: groupwise variance is exactly the same for
 *   every σ_b (common random numbers), pointwise grows with σ_b, by ≈ σ_b²
 *   for traces whose score is away from the clamp at 0 and 1;
 * - σ_j = 0 makes the groupwise ranking deterministic (variance exactly 0);
 * - σ_b = 0: no stability advantage left (the docs/reward-spec.md's "should vanish");
 * - a tie margin wider than any score gap ties everyone: r_rank = 0.
 */
import { describe, expect, it } from "vitest";
import { auditTrace, mulberry32 } from "../../src/rewards/index";
import { stabilityStudy, stabilitySweep } from "../../src/experiments/stability-sweep";
import { digitSumPrompt, digitTrace } from "../rewards/fixtures";
import { samplePrompts, sampleRollout } from "../rewards/policy";

const rng = mulberry32(2024);
const prompts = samplePrompts(40, rng);
const groups = prompts.map((p) => Array.from({ length: 8 }, () => sampleRollout(p, rng)));
const base = { prompts, groups, repeats: 4, seed: 11 };
/** A setting of the oracle auditor: its defaults (σ_j 0.13, σ_b 0.17, δ 0.15) where not given. */
const O = <T extends object>(s: T) => ({ name: "oracle-auditor" as const, ...s });
/** The oracle auditor's former default sweep, one knob moved at a time. */
const ORACLE_SWEEP = [
  { label: "lab default", sigmaJ: 0.13, sigmaB: 0.17, delta: 0.15 },
  { label: "σ_b = 0", sigmaJ: 0.13, sigmaB: 0, delta: 0.15 },
  { label: "σ_b = 0.05", sigmaJ: 0.13, sigmaB: 0.05, delta: 0.15 },
  { label: "σ_b = 0.3", sigmaJ: 0.13, sigmaB: 0.3, delta: 0.15 },
  { label: "σ_j = 0", sigmaJ: 0, sigmaB: 0.17, delta: 0.15 },
  { label: "σ_j = 0.05", sigmaJ: 0.05, sigmaB: 0.17, delta: 0.15 },
].map(O);

describe("stabilitySweep", () => {
  it("runs the settings in order, each with its own judge and noise", () => {
    const out = stabilitySweep({ ...base, settings: ORACLE_SWEEP });
    expect(out.map((r) => r.label)).toEqual(ORACLE_SWEEP.map((s) => s.label));
    for (const [k, r] of out.entries()) {
      const s = ORACLE_SWEEP[k];
      expect(r.judge).toEqual({
        name: "oracle-auditor",
        sigmaJ: s.sigmaJ,
        sigmaB: s.sigmaB,
        delta: s.delta,
      });
      expect(r.rollouts).toBe(320);
      expect(r.repeats).toBe(4);
      expect(r.reduction).toBeCloseTo(1 - r.groupwise / r.pointwise, 12);
    }
    // The oracle's default (σ_j 0.13, σ_b 0.17) shows the paper's direction: groupwise more
    // stable (a reduction of 0.18 on these synthetic rollouts; 0.38 on the cold start's).
    expect(out[0].reduction).toBeGreaterThan(0.1);
  });

  it("each setting equals stabilityStudy with mulberry32(seed), whatever its place in the list", () => {
    const one = O({ sigmaJ: 0.07, sigmaB: 0.12, delta: 0.1 });
    const alone = stabilityStudy({ prompts, groups, repeats: 4, judge: one, rng: mulberry32(11) });
    const [first] = stabilitySweep({ ...base, settings: [one] });
    const last = stabilitySweep({
      ...base,
      settings: [O({ sigmaJ: 0.3 }), O({ sigmaB: 0 }), one],
    })[2];
    for (const r of [first, last]) {
      expect(r.pointwise).toBe(alone.pointwise);
      expect(r.groupwise).toBe(alone.groupwise);
    }
    expect(first.label).toBe("oracle-auditor, σ_j 0.07, σ_b 0.12, δ 0.1");
  });

  it("is deterministic for a seed and changes with it", () => {
    const b = { ...base, settings: ORACLE_SWEEP };
    expect(stabilitySweep(b)).toEqual(stabilitySweep(b));
    const other = stabilitySweep({ ...b, seed: 12 });
    expect(other[0].pointwise).not.toBe(stabilitySweep(b)[0].pointwise);
  });

  it("σ_b changes only the pointwise variance, and it grows with σ_b", () => {
    const out = stabilitySweep({
      ...base,
      settings: [0, 0.05, 0.1, 0.2, 0.4].map((sigmaB) => O({ sigmaB })),
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
    const [noCalib] = stabilitySweep({ ...base, settings: [O({ sigmaB: 0 })] });
    expect(noCalib.pointwise).toBeGreaterThan(0); // σ_j alone still moves the scores
    expect(noCalib.reduction).toBeLessThan(0);
  });

  it("σ_j = 0: groupwise ranks are deterministic (variance 0) while σ_b still moves pointwise scores", () => {
    const [r] = stabilitySweep({ ...base, settings: [O({ sigmaJ: 0, sigmaB: 0.1 })] });
    expect(r.groupwise).toBe(0);
    expect(r.pointwise).toBeGreaterThan(0.003);
    expect(r.reduction).toBe(1);
  });

  it("σ_j = σ_b = 0: both variances are exactly 0, even with δ = 0 (reduction 0, not NaN)", () => {
    const out = stabilitySweep({
      ...base,
      settings: [O({ sigmaJ: 0, sigmaB: 0 }), O({ sigmaJ: 0, sigmaB: 0, delta: 0 })],
    });
    for (const r of out) expect([r.pointwise, r.groupwise, r.reduction]).toEqual([0, 0, 0]);
  });

  it("a tie margin wider than any noisy score gap puts everyone in one tier: groupwise variance 0", () => {
    const [wide, none] = stabilitySweep({ ...base, settings: [O({ delta: 2 }), O({ delta: 0 })] });
    expect(wide.groupwise).toBe(0);
    // δ = 0 splits equally good traces by perception noise alone: the least stable ranking.
    expect(none.groupwise).toBeGreaterThan(
      stabilitySweep({ ...base, settings: [O({})] })[0].groupwise,
    );
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
    const settings = [0.05, 0.1].map((sigmaB) => O({ sigmaJ: 0, sigmaB }));
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
    expect(() => stabilitySweep({ ...base, settings: [O({ sigmaB: -0.1 })] })).toThrow(
      /auditor\.sigmaB/,
    );
    expect(() => stabilitySweep({ ...base, settings: [O({ sigmaJ: Number.NaN })] })).toThrow(
      /auditor\.sigmaJ/,
    );
    expect(() => stabilitySweep({ ...base, settings: [O({ delta: -1 })] })).toThrow(
      /auditor\.delta/,
    );
    expect(() => stabilitySweep({ ...base, settings: [{ name: "gpt" as never }] })).toThrow(
      /judge\.name: unknown judge 'gpt'/,
    );
    expect(() => stabilitySweep({ ...base, repeats: 1 })).toThrow(/repeats/);
    expect(() => stabilitySweep({ ...base, groups: groups.slice(1) })).toThrow(/groups/);
  });
});
