/**
 * Spec of the advantage kernel (shaders/advantages/advantages.wgsl): every
 * estimator of docs/reward-spec.md §1 for a whole batch of groups in one
 * dispatch of one workgroup. Launcher: ./launch.ts (AdvantageKernel). CPU
 * reference: groupAdvantages in src/kernels/advantages/reference.ts, which is also the RL
 * step's CPU estimator and stays with the RL code (lab choice).
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import code from "../../../shaders/advantages/advantages.wgsl?raw";

/** The two variants of the one source (shaders/advantages/advantages.wgsl). */
function makeAdvantages(variant: "GROUP" | "BATCH") {
  return defineKernel({
    name: `advantages.${variant.toLowerCase()}`,
    source: code,
    blocks: [variant],
    uniforms: {
      numGroups: "u32",
      groupSize: "u32",
      estimator: "u32", // index in KERNEL_ESTIMATORS (launch.ts)
      sampleStd: "u32", // 1: divide by n−1 ("sample"), 0: by n ("population")
      eps: "f32", // ε_A added to the std
      clipLimit: "f32", // grpo-stable clip (3, StructReward eq. 11)
      skipStd: "f32", // grpo-stable: σ below this skips the group (1e-4)
    },
    bindings: {
      rewards: ["read", "f32"], // [numGroups·groupSize], 0 where unscorable
      valid: ["read", "u32"], // [numGroups·groupSize], 1 = scorable
      adv: ["read_write", "f32"], // [numGroups·groupSize]
      // [numGroups] (mean, std, validCount, flags); flags bit 0 = zero std (fewer
      // than 2 valid rewards or all equal), bit 1 = skipped by grpo-stable's σ test
      groupStats: ["read_write", "vec4f"],
      // [1] batch (mean, std, validCount, 1 if zero std) of the whitened values; zeros for group methods
      batchStats: ["read_write", "vec4f"],
    },
    workgroupSize: 64,
    grid: { kind: "fixed", workgroups: () => 1 },
  });
}

/**
 * Advantages of numGroups·groupSize rollouts and their group statistics for
 * the group estimators (grpo, grpo-stable, rloo): phase A only, no barrier
 * (lab choice: on SwiftShader it builds in about a third of the time of
 * advantagesBatchSpec, and the default run builds it before its first step).
 */
export const advantagesGroupSpec = makeAdvantages("GROUP");

/** As advantagesGroupSpec for every estimator, with the batch statistics and whitening of the batch ones. */
export const advantagesBatchSpec = makeAdvantages("BATCH");

/** Every advantage kernel (spec tests). */
export const ADVANTAGES_SPECS: KernelSpec[] = [advantagesGroupSpec, advantagesBatchSpec];
