/**
 * rolloutGroups / stabilityReport on the small model from the shipped
 * open-ended cold start, on Node's WebGPU (SwiftShader on a CPU): fixed groups
 * [P][G] of decoded texts, deterministic for a seed, sampled from the policy
 * asked for; then the judge-noise sweep on them.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { useGpu } from "../support/gpu";
import { parseExperiment } from "../../src/settings/experiment";
import { inProcessScorer } from "../../src/rl/reward-contract";
import { LabRun } from "../../src/run/lab-run";
import { rolloutGroups, stabilityReport } from "../../src/experiments/stability-study";
import { DEFAULT_SWEEP_SETTINGS } from "../../src/experiments/stability-sweep";
import { parseTrace } from "../../src/rewards/trace";
import { consoleSink, loadShippedCheckpoint, mnistFor } from "../../src/cli/node-run";

const exp = parseExperiment({
  modelSize: "small",
  task: { hintRate: 0, traceSlipRate: 0 },
  variants: [{ name: "rlvr" }],
  evalSize: 4,
});

describe("rolloutGroups on the GPU (small model, shipped cold start)", () => {
  const gpu = useGpu();
  let run: LabRun;
  beforeAll(async () => {
    const ckpt = loadShippedCheckpoint(exp);
    if (!ckpt) throw new Error("the shipped open-ended small checkpoint is missing");
    run = new LabRun(gpu.ctx, exp, consoleSink(undefined, true), inProcessScorer, mnistFor(exp), {
      config: ckpt.config,
      params: ckpt.params,
    });
  });

  it("samples 2 prompts × 4 rollouts that decode to traces, the same for the same seed", async () => {
    const a = await rolloutGroups(run, { prompts: 2, groupSize: 4, seed: 7 });
    expect(a.prompts).toHaveLength(2);
    expect(a.groups).toHaveLength(2);
    for (const [p, g] of a.groups.entries()) {
      expect(g).toHaveLength(4);
      expect(a.prompts[p].id).toMatch(/^digits\/train\//);
      for (const text of g) {
        expect(typeof text).toBe("string");
        expect(text.length).toBeGreaterThan(0);
        expect(text).not.toMatch(/undefined|<pad>|<eos>/i);
        // The SFT'd model writes the lab's trace format: at least one step.
        expect(parseTrace({ text }).stepCount, text).toBeGreaterThan(0);
      }
    }
    const b = await rolloutGroups(run, { prompts: 2, groupSize: 4, seed: 7 });
    expect(b.groups).toEqual(a.groups);
    expect(b.prompts.map((p) => p.question + p.answer.content)).toEqual(
      a.prompts.map((p) => p.question + p.answer.content),
    );
    const c = await rolloutGroups(run, { prompts: 2, groupSize: 4, seed: 8 });
    expect(c.groups).not.toEqual(a.groups);
  });

  it("policy: a variant at step 0 samples what the reference does; other parameters sample something else", async () => {
    const ref = await rolloutGroups(run, {
      prompts: 2,
      groupSize: 4,
      seed: 3,
      policy: "reference",
    });
    const rlvr = await rolloutGroups(run, { prompts: 2, groupSize: 4, seed: 3, policy: "rlvr" });
    expect(rlvr.groups).toEqual(ref.groups);
    // The variant path uses the variant's parameters (here: the cold start, halved).
    const params = await run.variantParams("rlvr");
    const spy = vi.spyOn(run, "variantParams").mockResolvedValue(params.map((x) => x * 0.5));
    try {
      const other = await rolloutGroups(run, { prompts: 2, groupSize: 4, seed: 3, policy: "rlvr" });
      expect(spy).toHaveBeenCalledWith("rlvr");
      expect(other.groups).not.toEqual(ref.groups);
    } finally {
      spy.mockRestore();
    }
  });

  it("rejects bad options naming the field", async () => {
    await expect(
      rolloutGroups(run, { prompts: 2, groupSize: 4, seed: 1, policy: "grr" }),
    ).rejects.toThrow(/policy 'grr'/);
    await expect(rolloutGroups(run, { prompts: 2, groupSize: 1, seed: 1 })).rejects.toThrow(
      /groupSize/,
    );
    await expect(rolloutGroups(run, { prompts: 0, groupSize: 4, seed: 1 })).rejects.toThrow(
      /prompts/,
    );
    await expect(rolloutGroups(run, { prompts: 2, groupSize: 4, seed: -1 })).rejects.toThrow(
      /seed/,
    );
    await expect(
      rolloutGroups(run, { prompts: 2, groupSize: 4, seed: 1, temperature: 0 }),
    ).rejects.toThrow(/temperature/);
  });

  it("stabilityReport: the sweep on those groups, every figure finite", async () => {
    const r = await stabilityReport(run, { prompts: 2, groupSize: 4, repeats: 2, seed: 7 });
    expect([r.prompts, r.groupSize, r.repeats, r.seed, r.policy, r.step]).toEqual([
      2,
      4,
      2,
      7,
      "reference",
      0,
    ]);
    expect(r.passRate).toBeGreaterThanOrEqual(0);
    expect(r.passRate).toBeLessThanOrEqual(1);
    expect(r.settings.map((s) => s.label)).toEqual(DEFAULT_SWEEP_SETTINGS.map((s) => s.label));
    for (const s of r.settings) {
      expect(s.rollouts).toBe(8);
      for (const v of [s.pointwise, s.groupwise, s.reduction])
        expect(Number.isFinite(v)).toBe(true);
      expect(s.pointwise).toBeGreaterThanOrEqual(0);
      expect(s.groupwise).toBeGreaterThanOrEqual(0);
    }
    // The default judge has σ_b 0, so its "σ_j = 0" setting is noise-free: nothing varies.
    const noNoise = r.settings.at(-1)!;
    expect([noNoise.judge.sigmaJ, noNoise.judge.sigmaB]).toEqual([0, 0]);
    expect([noNoise.pointwise, noNoise.groupwise]).toEqual([0, 0]);
  });
});
