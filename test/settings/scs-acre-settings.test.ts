// SCS's k and m per estimator (SCS Tab. 6–9), following the estimator unless
// changed; the SCS and ACRE presets and the cold starts they name (each one
// shipped, so the page's picker and `lab --preset` start from it).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { findVariant, parseExperiment, VariantSchema } from "../../src/settings/experiment";
import { applyVariantSetting } from "../../src/settings/variant-settings";
import { retargetWeights, scsPaperSettings } from "../../src/settings/variant-table";
import { checkpointPath } from "../../src/settings/checkpoints";
import {
  PICKER_PRESETS,
  PRESET_NAMES,
  presetColdStart,
  presetExperiment,
} from "../../src/settings/presets";

const ROOT = resolve(import.meta.dirname, "../..");
const scs = (estimator?: string, weights: Record<string, unknown> = {}) =>
  VariantSchema.parse({ name: "scs", ...(estimator ? { estimator } : {}), weights });

describe("SCS's k and m per estimator (SCS Tab. 6–9)", () => {
  it("RLOO 0.8/4, GRPO 0.4/8, REINFORCE++-baseline 0.8/4, REINFORCE++ 0.8/8; RLOO by default", () => {
    const km = (e?: string) => {
      const w = findVariant({ variants: [scs(e)] }, "scs")!.weights;
      return [w.k, w.m];
    };
    expect(km()).toEqual([0.8, 4]);
    expect(scs().estimator).toBe("rloo");
    expect(km("rloo")).toEqual([0.8, 4]);
    expect(km("grpo")).toEqual([0.4, 8]);
    expect(km("reinforce++-baseline")).toEqual([0.8, 4]);
    expect(km("reinforce++")).toEqual([0.8, 8]);
    expect(km("grpo-stable")).toEqual([0.8, 4]);
    expect(scsPaperSettings("grpo")).toEqual({ k: 0.4, m: 8 });
    // A value given stays.
    expect(scs("grpo", { k: 0.6 }).weights).toMatchObject({ k: 0.6, m: 8 });
  });

  it("a new estimator moves k and m while they are the old one's; a changed value stays", () => {
    const [v] = parseExperiment({ variants: [{ name: "scs" }] }).variants;
    const [g] = applyVariantSetting([v], "scs.estimator=grpo");
    expect(g).toMatchObject({ estimator: "grpo", weights: { k: 0.4, m: 8 } });
    const [changed] = applyVariantSetting([v], "scs.k=0.6");
    const [g2] = applyVariantSetting([changed], "scs.estimator=grpo");
    expect(g2.weights).toMatchObject({ k: 0.6, m: 8 });
    expect(retargetWeights("scs", { k: 0.4, m: 8, c: 1 }, "grpo", "reinforce++")).toEqual({
      k: 0.8,
      m: 8,
      c: 1,
    });
    // Variants without estimator-dependent weights are left as they are.
    expect(retargetWeights("grr", { lambda: 1 }, "grpo", "rloo")).toEqual({ lambda: 1 });
    expect(() => applyVariantSetting([v], "scs.estimator=ppo")).toThrow(/scs\.estimator/);
  });
});

describe("the SCS and ACRE presets", () => {
  it("scs-paper: RLOO vs RLOO + SCS at Tab. 6's k, m on the SCS scenario; the ablation arms", () => {
    const e = presetExperiment("scs-paper");
    expect(e.variants.map((v) => [v.name, v.estimator])).toEqual([
      ["rlvr", "rloo"],
      ["scs", "rloo"],
    ]);
    expect(e.variants[1].weights).toMatchObject({ k: 0.8, m: 4, sigmaMin: 0.01, sigmaMax: 0.4 });
    expect(e.task).toMatchObject({
      multipleChoice: true,
      hintRate: 0,
      traceSlipRate: 0,
      distractorRule: "off-misread",
      misreadRate: 0.4,
    });
    expect(presetExperiment("scs-tr-only").variants[1].weights).toMatchObject({
      k: 0.8,
      sigmaMin: 0,
      sigmaMax: 0,
    });
    // Perturbation only: the same cut at the same k, noisy images, greedy continuations (§4.3).
    expect(presetExperiment("scs-vp-only").variants[1].weights).toMatchObject({
      k: 0.8,
      sigmaMax: 0.4,
      resample: "greedy",
    });
    expect(presetExperiment("scs-paper").variants[1].weights).toMatchObject({ resample: "sample" });
    expect(presetColdStart("scs-paper")).toBe("checkpoints/sft-digits2-mc-misread40-small.ckpt");
  });

  it("the page's SCS entry is scs-faint, where the premise held; scs-paper stays for the claims only", () => {
    expect(PICKER_PRESETS.filter((n) => n.startsWith("scs"))).toEqual(["scs-faint"]);
    expect(PRESET_NAMES).toContain("scs-paper");
    expect(presetExperiment("scs-faint").variants.map((v) => v.name)).toEqual([
      "scs-baseline",
      "scs",
    ]);
    expect(presetExperiment("scs-faint").task.faintContrast).toBe(0.3);
  });

  it("acre-paper: GRPO vs ACRE on the index-bound cold start", () => {
    const e = presetExperiment("acre-paper");
    expect(e.variants.map((v) => [v.name, v.estimator])).toEqual([
      ["rlvr", "grpo"],
      ["acre", "grpo"],
    ]);
    expect(e.task).toMatchObject({ multipleChoice: true, indexBindingRate: 0.8, misreadRate: 0 });
    expect(presetColdStart("acre-paper")).toBe("checkpoints/sft-digits2-mc-bind80-small.ckpt");
  });

  it("every preset's cold start is shipped under public/ at the small size (the CPU adapter's)", () => {
    for (const name of PRESET_NAMES) {
      const file = resolve(ROOT, "public", presetColdStart(name, "small"));
      expect(existsSync(file), `${name}: ${file}`).toBe(true);
    }
  });

  it("cold-start names carry the misread and binding rates, not the skew or distractor rule", () => {
    const name = (task: Record<string, unknown>) =>
      checkpointPath(
        parseExperiment({
          modelSize: "small",
          task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0, ...task },
        }),
      );
    expect(name({})).toBe("checkpoints/sft-digits2-mc-small.ckpt");
    expect(name({ misreadRate: 0.25 })).toBe("checkpoints/sft-digits2-mc-misread25-small.ckpt");
    expect(name({ indexBindingRate: 0.5 })).toBe("checkpoints/sft-digits2-mc-bind50-small.ckpt");
    expect(name({ optionSkew: 0.5, distractorRule: "off-misread" })).toBe(
      "checkpoints/sft-digits2-mc-small.ckpt",
    );
  });
});
