/**
 * GRR §4.3.4 stability study with the oracle auditor (the lab's judge until
 * 2026-12-03, docs/reward-spec.md §2): the
 * groupwise advantage comes from the per-call calibration offset σ_b, so it
 * vanishes when σ_b = 0.
 */
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../src/rewards/index";
import { stabilityStudy } from "../../src/experiments/stability-sweep";
import { samplePrompts, sampleRollout } from "../rewards/policy";

const rng = mulberry32(2024);
const prompts = samplePrompts(100, rng);
const groups = prompts.map((p) => Array.from({ length: 8 }, () => sampleRollout(p, rng)));

describe("stability study (GRR §4.3.4)", () => {
  it("σ_b = 0: pointwise and groupwise variances are close (no stability advantage)", () => {
    const r = stabilityStudy({
      prompts,
      groups,
      repeats: 4,
      judge: { name: "oracle-auditor", sigmaJ: 0.05, sigmaB: 0, delta: 0.15 },
      rng: mulberry32(11),
    });
    expect(r.rollouts).toBe(800);
    expect(r.pointwise).toBeCloseTo(0.00138, 4);
    expect(r.groupwise).toBeCloseTo(0.00236, 4);
    const ratio = r.groupwise / r.pointwise;
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
    expect(r.groupwise - r.pointwise).toBeLessThan(0.002);
  });

  it("σ_b = 0.1: groupwise variance is clearly lower (paper: 0.026 → 0.016, −37.6 %)", () => {
    const r = stabilityStudy({
      prompts,
      groups,
      repeats: 4,
      judge: { name: "oracle-auditor", sigmaJ: 0.05, sigmaB: 0.1, delta: 0.15 },
      rng: mulberry32(11),
    });
    expect(r.pointwise).toBeCloseTo(0.00659, 4);
    expect(r.groupwise).toBeCloseTo(0.00236, 4);
    expect(r.reduction).toBeGreaterThan(0.5);
  });

  it("a noise-free judge assigns the same reward every time", () => {
    const r = stabilityStudy({
      prompts: prompts.slice(0, 10),
      groups: groups.slice(0, 10),
      judge: { sigmaJ: 0, sigmaB: 0 },
      rng: mulberry32(1),
    });
    expect(r.pointwise).toBe(0);
    expect(r.groupwise).toBe(0);
  });

  it("invalid settings throw naming the field", () => {
    expect(() => stabilityStudy({ prompts, groups, repeats: 1, rng: mulberry32(1) })).toThrow(
      /repeats/,
    );
    expect(() => stabilityStudy({ prompts, groups: groups.slice(1), rng: mulberry32(1) })).toThrow(
      /groups/,
    );
    expect(() =>
      stabilityStudy({
        prompts,
        groups,
        judge: { name: "oracle-auditor", delta: -1 },
        rng: mulberry32(1),
      }),
    ).toThrow(/delta/);
  });
});
