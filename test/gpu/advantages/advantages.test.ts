/**
 * Checker of the advantage kernel (shaders/advantages/advantages.wgsl) against the f64 CPU
 * reference `groupAdvantages` (src/kernels/advantages/reference.ts).
 *
 * f32 note: the kernel sees rewards rounded to f32 (1e9 + 1 becomes 1e9), so
 * it is compared with the reference applied to the f32-rounded rewards,
 * |gpu − ref| ≤ 1e-5 + 1e-4·|ref|. For every groupAdvantages vector of
 * test/fixtures/vectors.json, the GPU result is also compared with the
 * vector's own expected values wherever f32 rounding leaves the rewards
 * unchanged (the vectors are exact in f64; 1e9+1 is the one input that is not).
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import {
  AdvantageKernel,
  groupAdvantagesGpu,
  KERNEL_ESTIMATORS,
  type EstimatorName,
  type StdKind,
} from "../../../src/kernels/advantages/launch";
import { groupAdvantageStats, groupAdvantages } from "../../../src/kernels/advantages/reference";
import { advantagesBatchSpec, advantagesGroupSpec } from "../../../src/kernels/advantages/spec";
import { expectClose } from "../../support/expect-close";

type Reward = number | null | undefined;

// The case vectors (test/fixtures/README.md) are kept in the repository.
const REPO_ROOT = path.resolve(fileURLToPath(new URL(".", import.meta.url)), "../../..");
const VECTORS = path.resolve(REPO_ROOT, "test/fixtures/vectors.json");

interface Vector {
  id: string;
  fn: string;
  input: {
    rewards: Array<number | string | null>;
    groupSize: number;
    /** The cases' name for the estimator (the lab's reference calls it `estimator`). */
    method: EstimatorName;
    eps?: number;
    std?: StdKind;
  };
  expected: number[] | { throws: true };
  note: string;
}

function decode(r: number | string | null): Reward {
  if (r === "NaN") return NaN;
  if (r === "Infinity") return Infinity;
  if (r === "-Infinity") return -Infinity;
  return r as number | null;
}

/** Rounds finite rewards to f32 as the kernel sees them; keeps unscorables as they are. */
function f32Rewards(rs: Reward[]): Reward[] {
  return rs.map((r) => (typeof r === "number" && Number.isFinite(r) ? Math.fround(r) : r));
}

/** Seeded generator (mulberry32) for reproducible random batches. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random rewards: mixes binary, graded and continuous groups, all-equal groups and unscorables. */
function randomRewards(rand: () => number, numGroups: number, G: number): Reward[] {
  const out: Reward[] = [];
  for (let g = 0; g < numGroups; g++) {
    const kind = Math.floor(rand() * 4);
    const constant = rand() * 2 - 0.5;
    for (let k = 0; k < G; k++) {
      const u = rand();
      if (u < 0.08) out.push(NaN);
      else if (u < 0.12) out.push(null);
      else if (u < 0.14) out.push(u < 0.13 ? Infinity : -Infinity);
      else if (kind === 0) out.push(rand() < 0.5 ? 1 : 0);
      else if (kind === 1) out.push(Math.floor(rand() * 5) * 0.3);
      else if (kind === 2)
        out.push(constant); // all-equal group (zero std)
      else out.push(rand() * 4 - 1);
    }
  }
  return out;
}

describe("advantage kernel", () => {
  const webgpu = useGpu();

  describe("every groupAdvantages vector of test/fixtures", () => {
    const all = JSON.parse(readFileSync(VECTORS, "utf8")) as Vector[];
    const vectors = all.filter((v) => v.fn === "groupAdvantages");
    it("finds the vectors", () => {
      expect(vectors.length).toBeGreaterThanOrEqual(18);
    });
    for (const v of vectors) {
      it(v.id, async () => {
        const { method, ...input } = v.input;
        const rewards = input.rewards.map(decode);
        const args = { ...input, estimator: method, rewards };
        if ("throws" in v.expected) {
          await expect(groupAdvantagesGpu(webgpu.ctx, args), v.note).rejects.toThrow(
            /groupSize|rewards|estimator|std|eps/,
          );
          return;
        }
        const gpu = await groupAdvantagesGpu(webgpu.ctx, args);
        const ref = groupAdvantages({ ...args, rewards: f32Rewards(rewards) });
        expectClose(`${v.id} vs f64 reference on f32 rewards (${v.note})`, gpu, ref);
        const exact = rewards.every(
          (r) => typeof r !== "number" || !Number.isFinite(r) || Math.fround(r) === r,
        );
        // 1e9 + 1 is not an f32: there the comparison above (1e9, 1e9 → all equal → 0) is the check.
        if (exact)
          expectClose(`${v.id} vs vector expected (${v.note})`, gpu, v.expected as number[]);
      });
    }
  });

  it("matches the reference on random batches (all methods, std kinds, eps; G and B not multiples of the workgroup)", async () => {
    const rand = rng(12345);
    const shapes: Array<[number, number]> = [
      [1, 1],
      [1, 8],
      [3, 2],
      [7, 5],
      [4, 16],
      [65, 3],
      [130, 8],
      [200, 1],
    ];
    let checked = 0;
    for (const [numGroups, G] of shapes) {
      const k = new AdvantageKernel(webgpu.ctx, { numGroups, groupSize: G });
      for (const estimator of KERNEL_ESTIMATORS) {
        for (const std of ["sample", "population"] as StdKind[]) {
          for (const eps of [0, 1e-6, 1e-4]) {
            const rewards = randomRewards(rand, numGroups, G);
            k.setOptions({ estimator, std, eps });
            k.setRewards(rewards);
            k.run();
            const gpu = await k.readAdvantages();
            const ref = groupAdvantageStats({
              rewards: f32Rewards(rewards),
              groupSize: G,
              estimator,
              std,
              eps,
            });
            expectClose(
              `B=${numGroups} G=${G} ${estimator} ${std} eps=${eps}`,
              gpu,
              ref.advantages,
            );
            const stats = await k.readGroupStats();
            expect(
              stats.zeroStd.filter(Boolean).length,
              `zero-std groups, ${estimator} B=${numGroups} G=${G}`,
            ).toBe(ref.zeroStdGroups);
            for (let i = 0; i < rewards.length; i++) {
              const r = rewards[i];
              if (typeof r !== "number" || !Number.isFinite(r)) expect(gpu[i]).toBe(0); // unscorable → exactly 0
            }
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(8 * 5 * 2 * 3);
  });

  it("gives exactly 0 for all-equal groups and reports them (frac_reward_zero_std)", async () => {
    const k = new AdvantageKernel(webgpu.ctx, { numGroups: 4, groupSize: 8 });
    const rewards: Reward[] = [
      ...Array(8).fill(0.35), // all equal, non-dyadic
      1,
      0,
      1,
      0,
      1,
      0,
      1,
      0,
      NaN,
      null,
      NaN,
      null,
      NaN,
      null,
      NaN,
      0.5, // one valid value
      1e6,
      1e6 + 1,
      1e6 + 2,
      1e6,
      1e6,
      1e6,
      1e6,
      1e6, // large magnitude, small spread
    ];
    for (const estimator of KERNEL_ESTIMATORS) {
      k.setOptions({ estimator, std: "sample", eps: 1e-6 });
      k.setRewards(rewards);
      k.run();
      const gpu = await k.readAdvantages();
      const stats = await k.readGroupStats();
      expect(stats.zeroStd, estimator).toEqual([true, false, true, false]);
      expect(Array.from(stats.count)).toEqual([8, 8, 1, 8]);
      if (estimator !== "reinforce++" && estimator !== "reinforce++-baseline") {
        for (const i of [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23])
          expect(gpu[i], `${estimator} [${i}]`).toBe(0);
      }
      const ref = groupAdvantages({
        rewards: f32Rewards(rewards),
        groupSize: 8,
        estimator,
        std: "sample",
        eps: 1e-6,
      });
      expectClose(estimator, gpu, ref, 1e-4, 1e-3);
    }
  });

  it("grpo-stable skips a group whose std is below 1e-4 and clips at ±3", async () => {
    const k = new AdvantageKernel(
      webgpu.ctx,
      { numGroups: 2, groupSize: 16 },
      { estimator: "grpo-stable", std: "population" },
    );
    const tiny = Array.from({ length: 16 }, (_, i) => 0.5 + (i === 0 ? 2e-4 : 0)); // σ ≈ 4.8e-5
    const skewed = [10, ...Array(15).fill(0)]; // (10−μ)/σ ≈ 3.87 → clipped to 3
    k.setRewards([...tiny, ...skewed]);
    k.run();
    const gpu = await k.readAdvantages();
    const stats = await k.readGroupStats();
    expect(stats.skipped).toEqual([true, false]);
    expect(stats.zeroStd).toEqual([false, false]);
    expect(Array.from(gpu.slice(0, 16))).toEqual(Array(16).fill(0));
    expect(gpu[16]).toBeCloseTo(3, 6);
    expectClose(
      "grpo-stable",
      gpu,
      groupAdvantages({
        rewards: f32Rewards([...tiny, ...skewed]),
        groupSize: 16,
        estimator: "grpo-stable",
        std: "population",
      }),
    );
  });

  it("gives a group estimator the same bits from the barrier-free variant as from the full one", async () => {
    const ctx = webgpu.ctx;
    const numGroups = 70; // more groups than invocations: some own two
    const G = 5;
    const rewards = randomRewards(rng(11), numGroups, G);
    for (const estimator of ["grpo", "grpo-stable", "rloo"] as const) {
      const k = new AdvantageKernel(ctx, { numGroups, groupSize: G }, { estimator });
      k.setRewards(rewards);
      const code = KERNEL_ESTIMATORS.indexOf(estimator);
      const full = ctx.createBuffer("adv.full", numGroups * G * 4);
      const fullStats = ctx.createBuffer("adv.fullStats", numGroups * 16);
      const u = {
        numGroups,
        groupSize: G,
        estimator: code,
        sampleStd: 1,
        eps: estimator === "grpo-stable" ? 1e-8 : 1e-6,
        clipLimit: 3,
        skipStd: 1e-4,
      };
      const bindings = {
        rewards: k.rewards,
        valid: k.valid,
        groupStats: fullStats,
        batchStats: k.batchStats,
      };
      ctx.run(advantagesBatchSpec.call(ctx, { ...bindings, adv: full }, u));
      const kept = ctx.createBuffer("adv.kept", numGroups * G * 4);
      const keptStats = ctx.createBuffer("adv.keptStats", numGroups * 16);
      const call = advantagesGroupSpec.call(
        ctx,
        { ...bindings, adv: kept, groupStats: keptStats },
        u,
      );
      expect(call.kernel.name).toBe("advantages.group");
      ctx.run(call);
      expect(Array.from(await ctx.readF32(kept, 0, numGroups * G)), estimator).toEqual(
        Array.from(await ctx.readF32(full, 0, numGroups * G)),
      );
      expect(Array.from(await ctx.readF32(keptStats, 0, numGroups * 4))).toEqual(
        Array.from(await ctx.readF32(fullStats, 0, numGroups * 4)),
      );
    }
  });

  it("builds its buffers once: 100 steps allocate nothing", async () => {
    const k = new AdvantageKernel(webgpu.ctx, { numGroups: 16, groupSize: 8 });
    const rand = rng(7);
    const rewards = randomRewards(rand, 16, 8);
    k.setOptions({ estimator: "reinforce++" }); // the batch variant's dispatch is made on first use
    k.setOptions({ estimator: "grpo" });
    k.setRewards(rewards);
    k.run();
    await k.readAdvantages(); // warm the staging pool
    const before = webgpu.ctx.stats.buffersCreated;
    for (let step = 0; step < 100; step++) {
      k.setOptions({ estimator: KERNEL_ESTIMATORS[step % KERNEL_ESTIMATORS.length] });
      k.setRewards(rewards);
      k.run();
      webgpu.ctx.flush();
    }
    await k.readAdvantages();
    expect(webgpu.ctx.stats.buffersCreated).toBe(before);
  });

  it("rejects bad arguments with a message naming them", async () => {
    expect(() => new AdvantageKernel(webgpu.ctx, { numGroups: 0, groupSize: 4 })).toThrow(
      /numGroups/,
    );
    expect(() => new AdvantageKernel(webgpu.ctx, { numGroups: 2, groupSize: 1.5 })).toThrow(
      /groupSize/,
    );
    const k = new AdvantageKernel(webgpu.ctx, { numGroups: 2, groupSize: 4 });
    expect(() => k.setOptions({ estimator: "ppo" as EstimatorName })).toThrow(/estimator/);
    expect(() => k.setOptions({ estimator: "grpo", std: "biased" as StdKind })).toThrow(/std/);
    expect(() => k.setOptions({ estimator: "grpo", eps: -1 })).toThrow(/eps/);
    expect(() => k.setRewards([1, 2, 3])).toThrow(/rewards\.length/);
    await expect(
      groupAdvantagesGpu(webgpu.ctx, { rewards: [1, 2, 3], groupSize: 2, estimator: "grpo" }),
    ).rejects.toThrow(/multiple of groupSize/);
  });
});
