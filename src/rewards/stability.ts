/**
 * Stability study of GRR §4.3.4 (reward-spec §2): fixed groups of rollouts,
 * reward assignment repeated R times with a noisy judge; the per-rollout
 * variance of the assigned reward, averaged, for pointwise GR vs groupwise
 * ranking. Paper: 500 prompts × 8 rollouts, 4 repeats; 0.026 vs 0.016.
 */
import type { TaskPrompt } from "../tasks/types";
import { createAuditorJudge, type AuditorConfig } from "./auditor-judge";
import { scoreGRR, scorePointwiseGR, type Judge, type RankMapping } from "./grr";
import type { Rng } from "./rng";

export interface StabilityResult {
  /** Mean over rollouts of the variance of R under pointwise GR. */
  pointwise: number;
  /** Same under Groupwise Ranking Reward. */
  groupwise: number;
  /** 1 − groupwise/pointwise (paper: 37.6 %); 0 when pointwise is 0. */
  reduction: number;
  rollouts: number;
  repeats: number;
}

export interface StabilityArgs {
  prompts: readonly TaskPrompt[];
  /** groups[p] = the fixed rollout texts of prompts[p]. */
  groups: ReadonlyArray<readonly string[]>;
  /** Repeats of the reward assignment (paper 4). Integer ≥ 2. */
  repeats?: number;
  /** Auditor noise settings, or a custom judge. */
  judge?: Partial<AuditorConfig> | Judge;
  lambda?: number;
  mapping?: RankMapping;
  /**
   * Average over all rollouts (paper: "the full sampled set", default) or
   * only the verifier-passed ones (the only ones GRR rewards).
   */
  only?: "all" | "passed";
  /** Variance over repeats: "population" (÷R, default, lab choice) or "sample" (÷(R−1)). */
  variance?: "population" | "sample";
  rng: Rng;
}

function variance(xs: readonly number[], kind: "population" | "sample"): number {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const ss = xs.reduce((a, x) => a + (x - mean) * (x - mean), 0);
  return ss / (kind === "population" ? xs.length : xs.length - 1);
}

/**
 * `stabilityStudy({prompts, groups, repeats = 4, judge, lambda = 1, mapping = "pcs", rng})`.
 * Throws an Error naming the field for mismatched lengths or repeats < 2.
 */
export function stabilityStudy(args: StabilityArgs): StabilityResult {
  const repeats = args.repeats ?? 4;
  if (!Number.isInteger(repeats) || repeats < 2) throw new Error("stabilityStudy: repeats must be an integer >= 2");
  if (args.prompts.length !== args.groups.length) throw new Error("stabilityStudy: groups must have one entry per prompt");
  const only = args.only ?? "all";
  const kind = args.variance ?? "population";
  const judge: Judge =
    args.judge && typeof (args.judge as Judge).pointwise === "function"
      ? (args.judge as Judge)
      : createAuditorJudge(args.judge as Partial<AuditorConfig> | undefined);
  let pointSum = 0;
  let groupSum = 0;
  let count = 0;
  args.prompts.forEach((prompt, p) => {
    const texts = args.groups[p];
    const point: number[][] = texts.map(() => []);
    const group: number[][] = texts.map(() => []);
    let passed: boolean[] = [];
    for (let r = 0; r < repeats; r++) {
      const pw = scorePointwiseGR(prompt, texts, { judge, lambda: args.lambda }, args.rng);
      const gw = scoreGRR(prompt, texts, { judge, lambda: args.lambda, mapping: args.mapping }, args.rng);
      pw.rollouts.forEach((x, i) => point[i].push(x.total));
      gw.rollouts.forEach((x, i) => group[i].push(x.total));
      passed = gw.rollouts.map((x) => x.verifierPassed);
    }
    texts.forEach((_, i) => {
      if (only === "passed" && !passed[i]) return;
      pointSum += variance(point[i], kind);
      groupSum += variance(group[i], kind);
      count++;
    });
  });
  const pointwise = count > 0 ? pointSum / count : 0;
  const groupwise = count > 0 ? groupSum / count : 0;
  return { pointwise, groupwise, reduction: pointwise > 0 ? 1 - groupwise / pointwise : 0, rollouts: count, repeats };
}
