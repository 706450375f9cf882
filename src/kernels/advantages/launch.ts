/**
 * Advantage estimation on the GPU (docs/reward-spec.md §1): one dispatch of
 * one workgroup for a whole batch of groups and every estimator (grpo,
 * grpo-stable, rloo, reinforce++, reinforce++-baseline); the group ones run
 * the kernel's barrier-free variant, the batch ones the full one (built when
 * first asked for).
 *
 * Spec: ./spec.ts (WGSL in shaders/advantages/). The CPU reference is
 * `groupAdvantages` in src/kernels/advantages/reference.ts (f64; the checker
 * test/gpu/advantages/advantages.test.ts compares against it). The kernel's output buffer `advantages` is meant to be
 * read directly by the policy-loss kernel, so the trainer never reads it back;
 * `groupStats` gives the per-group zero-std flags for `frac_reward_zero_std`.
 *
 * Unscorable rollouts (NaN, ±Infinity, null, undefined rewards) never reach
 * the GPU as NaN: `setRewards` writes 0 and a validity flag 0, and the kernel
 * gives them advantage 0 and leaves them out of every statistic.
 */
import type { GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import { GRPO_STABLE } from "./reference";
import type { EstimatorName, StdKind } from "../../settings/estimator-table";
import { advantagesBatchSpec, advantagesGroupSpec } from "./spec";

export type { EstimatorName, StdKind };

/** Estimators of docs/reward-spec.md §1, in the kernel's estimator-code order (shaders/advantages/advantages.wgsl). */
export const KERNEL_ESTIMATORS: readonly EstimatorName[] = [
  "grpo",
  "grpo-stable",
  "rloo",
  "reinforce++",
  "reinforce++-baseline",
];

/** The first batch estimator's code (reinforce++): from here on the kernel whitens over the batch. */
const BATCH_ESTIMATOR_CODE = 3;

/** Bits of the per-group flags (groupStats[g·4 + 3]). */
const GROUP_FLAG_ZERO_STD = 1;
const GROUP_FLAG_SKIPPED = 2;

/** Estimator options; defaults as verl (docs/reward-spec.md §1, lab choice): sample std, ε_A = 1e-6. */
export interface AdvantageOptions {
  estimator: EstimatorName;
  /** ε_A added to the std (finite, ≥ 0). Ignored by rloo; grpo-stable always uses 1e-8 (StructReward eq. 11), as the CPU reference. */
  eps?: number;
  /** "sample" divides by n − 1, "population" by n. */
  std?: StdKind;
}

/** Per-group statistics read back from the GPU. */
export interface GroupStatsResult {
  /** [numGroups] mean of the valid rewards (0 when none). */
  mean: Float32Array;
  /** [numGroups] std of the valid rewards (0 when fewer than 2). */
  std: Float32Array;
  /** [numGroups] number of valid rewards. */
  count: Float32Array;
  /** [numGroups] true when the group's valid rewards are all equal or fewer than 2. */
  zeroStd: boolean[];
  /** [numGroups] true when grpo-stable skipped the group (σ < 1e-4 or zero std). */
  skipped: boolean[];
}

/** Returns true for a reward the lab can score (a finite number). */
function isScorable(r: number | null | undefined): r is number {
  return typeof r === "number" && Number.isFinite(r);
}

/**
 * Validates estimator arguments like the CPU reference does.
 * @throws Error naming the bad argument (groupSize, rewards length, estimator, std, eps).
 */
function validateAdvantageArgs(
  numRollouts: number,
  groupSize: number,
  opts: AdvantageOptions,
): void {
  if (!Number.isInteger(groupSize) || groupSize < 1)
    throw new Error(`groupSize must be an integer ≥ 1, got ${groupSize}`);
  if (numRollouts % groupSize !== 0)
    throw new Error(
      `rewards.length (${numRollouts}) must be a multiple of groupSize (${groupSize})`,
    );
  if (!KERNEL_ESTIMATORS.includes(opts.estimator))
    throw new Error(
      `estimator must be one of ${KERNEL_ESTIMATORS.join(", ")}, got ${String(opts.estimator)}`,
    );
  const std = opts.std ?? "sample";
  if (std !== "sample" && std !== "population")
    throw new Error(`std must be "sample" or "population", got ${String(std)}`);
  const eps = opts.eps ?? 1e-6;
  if (typeof eps !== "number" || !Number.isFinite(eps) || eps < 0)
    throw new Error(`eps must be a finite number ≥ 0, got ${String(eps)}`);
}

/**
 * The advantage kernel for a fixed batch shape, with its buffers and prepared
 * dispatch built once. Per step: `setRewards`, optionally `setOptions`, `run`.
 *
 * Buffers (f32 unless stated):
 *   rewards    [numGroups·groupSize]   written by setRewards (0 where unscorable)
 *   valid      [numGroups·groupSize]   u32, 1 = scorable
 *   advantages [numGroups·groupSize]   output (or the caller's `out` buffer)
 *   groupStats [numGroups, 4]          (mean, std, validCount, flags)
 *   batchStats [4]                     (mean, std, validCount, zeroStd) of the whitened values (reinforce++ methods)
 */
export class AdvantageKernel {
  readonly numGroups: number;
  readonly groupSize: number;
  readonly numRollouts: number;
  readonly rewards: GPUBuffer;
  readonly valid: GPUBuffer;
  readonly advantages: GPUBuffer;
  readonly groupStats: GPUBuffer;
  readonly batchStats: GPUBuffer;
  /** The dispatch of each kernel variant, made when an estimator first needs it. */
  private readonly calls: Partial<
    Record<"group" | "batch", SpecCall<typeof advantagesGroupSpec.uniforms>>
  > = {};
  private readonly hostRewards: Float32Array;
  private readonly hostValid: Uint32Array;
  private opts: Required<AdvantageOptions> = { estimator: "grpo", eps: 1e-6, std: "sample" };

  /**
   * @param out optional caller-owned output buffer of ≥ numGroups·groupSize f32.
   * @throws Error when numGroups or groupSize is not a positive integer.
   */
  constructor(
    private readonly ctx: GpuContext,
    shape: { numGroups: number; groupSize: number },
    options: AdvantageOptions = { estimator: "grpo" },
    out?: GPUBuffer,
  ) {
    const { numGroups, groupSize } = shape;
    if (!Number.isInteger(numGroups) || numGroups < 1)
      throw new Error(`numGroups must be an integer ≥ 1, got ${numGroups}`);
    validateAdvantageArgs(numGroups * groupSize, groupSize, options);
    this.numGroups = numGroups;
    this.groupSize = groupSize;
    this.numRollouts = numGroups * groupSize;
    const n = this.numRollouts;
    this.rewards = ctx.createBuffer("adv.rewards", n * 4);
    this.valid = ctx.createBuffer("adv.valid", n * 4);
    this.advantages = out ?? ctx.createBuffer("adv.out", n * 4);
    this.groupStats = ctx.createBuffer("adv.groupStats", numGroups * 16);
    this.batchStats = ctx.createBuffer("adv.batchStats", 16);
    this.hostRewards = new Float32Array(n);
    this.hostValid = new Uint32Array(n);
    this.setOptions(options);
  }

  /** Current estimator options (defaults filled in). */
  get options(): Readonly<Required<AdvantageOptions>> {
    return this.opts;
  }

  /**
   * Changes estimator, std kind or ε_A for the next `run` (no allocation).
   * @throws Error naming a bad estimator, std or eps.
   */
  setOptions(options: AdvantageOptions): void {
    validateAdvantageArgs(this.numRollouts, this.groupSize, options);
    this.opts = {
      estimator: options.estimator,
      eps: options.eps ?? 1e-6,
      std: options.std ?? "sample",
    };
    this.call().set(this.uniforms());
  }

  /** The current estimator's dispatch: the group variant for codes 0–2, else the batch one (made on first use). */
  private call(): SpecCall<typeof advantagesGroupSpec.uniforms> {
    const batch = KERNEL_ESTIMATORS.indexOf(this.opts.estimator) >= BATCH_ESTIMATOR_CODE;
    const which = batch ? "batch" : "group";
    let c = this.calls[which];
    if (!c) {
      c = (batch ? advantagesBatchSpec : advantagesGroupSpec).call(
        this.ctx,
        {
          rewards: this.rewards,
          valid: this.valid,
          adv: this.advantages,
          groupStats: this.groupStats,
          batchStats: this.batchStats,
        },
        this.uniforms(),
      );
      this.calls[which] = c;
    }
    return c;
  }

  /**
   * Uploads one batch of rewards, [numGroups·groupSize] in group order.
   * Non-finite or missing values are unscorable (valid = 0, slot = 0).
   * @returns the number of unscorable rollouts (for `frac_unscorable`).
   * @throws Error when the length does not match the batch shape.
   */
  setRewards(rewards: ArrayLike<number | null | undefined>): number {
    if (rewards.length !== this.numRollouts) {
      throw new Error(
        `rewards.length (${rewards.length}) must equal numGroups·groupSize (${this.numRollouts})`,
      );
    }
    let bad = 0;
    for (let i = 0; i < this.numRollouts; i++) {
      const r = rewards[i];
      if (isScorable(r)) {
        this.hostRewards[i] = r;
        // A finite f64 that overflows f32 would become ±Inf on the GPU.
        this.hostValid[i] = Number.isFinite(this.hostRewards[i]) ? 1 : 0;
        if (!this.hostValid[i]) this.hostRewards[i] = 0;
      } else {
        this.hostRewards[i] = 0;
        this.hostValid[i] = 0;
      }
      if (!this.hostValid[i]) bad++;
    }
    this.ctx.write(this.rewards, this.hostRewards);
    this.ctx.write(this.valid, this.hostValid);
    return bad;
  }

  /** Records the dispatch into the open pass (submitted with the phase's other work). */
  run(): void {
    this.ctx.run(this.call());
  }

  /** Reads the advantages back (tests, debugging; the trainer leaves them on the GPU). */
  async readAdvantages(): Promise<Float32Array> {
    return this.ctx.readF32(this.advantages, 0, this.numRollouts);
  }

  /** Reads per-group statistics and flags back. */
  async readGroupStats(): Promise<GroupStatsResult> {
    const raw = await this.ctx.readF32(this.groupStats, 0, this.numGroups * 4);
    const G = this.numGroups;
    const res: GroupStatsResult = {
      mean: new Float32Array(G),
      std: new Float32Array(G),
      count: new Float32Array(G),
      zeroStd: [],
      skipped: [],
    };
    for (let g = 0; g < G; g++) {
      res.mean[g] = raw[g * 4];
      res.std[g] = raw[g * 4 + 1];
      res.count[g] = raw[g * 4 + 2];
      const f = raw[g * 4 + 3];
      res.zeroStd.push((f & GROUP_FLAG_ZERO_STD) !== 0);
      res.skipped.push((f & GROUP_FLAG_SKIPPED) !== 0);
    }
    return res;
  }

  /** The kernel's uniform for the current options (grpo-stable's ε, clip and skip σ from GRPO_STABLE). */
  private uniforms() {
    const estimator = this.opts?.estimator ?? "grpo";
    return {
      numGroups: this.numGroups,
      groupSize: this.groupSize,
      estimator: KERNEL_ESTIMATORS.indexOf(estimator),
      sampleStd: (this.opts?.std ?? "sample") === "sample" ? 1 : 0,
      eps: estimator === "grpo-stable" ? GRPO_STABLE.eps : (this.opts?.eps ?? 1e-6),
      clipLimit: GRPO_STABLE.clip,
      skipStd: GRPO_STABLE.minStd,
    };
  }
}

/**
 * One-shot GPU version of `groupAdvantages({rewards, groupSize, estimator, eps, std})`:
 * builds a kernel, runs it, reads back. For tests and tools; the trainer keeps
 * an `AdvantageKernel` per batch shape instead.
 * @returns advantages [rewards.length] (f32), `[]` for empty rewards.
 * @throws Error naming a bad groupSize, rewards length, estimator, std or eps.
 */
export async function groupAdvantagesGpu(
  ctx: GpuContext,
  args: { rewards: ArrayLike<number | null | undefined>; groupSize: number } & AdvantageOptions,
): Promise<Float32Array> {
  validateAdvantageArgs(args.rewards.length, args.groupSize, args);
  if (args.rewards.length === 0) return new Float32Array(0);
  const k = new AdvantageKernel(
    ctx,
    { numGroups: args.rewards.length / args.groupSize, groupSize: args.groupSize },
    args,
  );
  k.setRewards(args.rewards);
  k.run();
  const out = await k.readAdvantages();
  for (const b of [k.rewards, k.valid, k.advantages, k.groupStats, k.batchStats]) b.destroy();
  return out;
}
