/**
 * Stability study of GRR §4.3.4 (docs/reward-spec.md §2): fixed groups of rollouts,
 * reward assignment repeated R times with a noisy judge; the per-rollout
 * variance of the assigned reward, averaged, for pointwise GR vs groupwise
 * ranking. Paper: 500 prompts × 8 rollouts, 4 repeats; 0.026 vs 0.016.
 */
import type { TaskPrompt } from "../tasks/types";
import { createAuditorJudge, DEFAULT_AUDITOR, type AuditorConfig } from "../rewards/auditor-judge";
import { scoreGRR, scorePointwiseGR, type Judge, type RankMapping } from "../rewards/grr";
import { mulberry32, type Rng } from "../rewards/rng";

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
  if (!Number.isInteger(repeats) || repeats < 2)
    throw new Error("stabilityStudy: repeats must be an integer >= 2");
  if (args.prompts.length !== args.groups.length)
    throw new Error("stabilityStudy: groups must have one entry per prompt");
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
      const gw = scoreGRR(
        prompt,
        texts,
        { judge, lambda: args.lambda, mapping: args.mapping },
        args.rng,
      );
      pw.rollouts.forEach((x, i) => {
        point[i].push(x.total);
      });
      gw.rollouts.forEach((x, i) => {
        group[i].push(x.total);
      });
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
  return {
    pointwise,
    groupwise,
    reduction: pointwise > 0 ? 1 - groupwise / pointwise : 0,
    rollouts: count,
    repeats,
  };
}

/** The judge noise of one sweep setting (rubric auditor, docs/reward-spec.md §2; score units). */
interface JudgeNoise {
  /** Per-candidate perception noise σ_j. */
  sigmaJ: number;
  /** Per-call calibration offset σ_b (pointwise calls only). */
  sigmaB: number;
  /** Groupwise tie margin δ. */
  delta: number;
}

/** One setting of a sweep: a label for tables and charts, and the auditor's noise. */
export interface SweepSetting extends JudgeNoise {
  label: string;
}

/**
 * Default settings of `stabilitySweep` (lab choice): the lab default
 * (DEFAULT_AUDITOR: σ_j 0.13, σ_b 0.17, δ 0.15), then one knob moved at a
 * time: σ_b = 0 (no calibration noise: the stability advantage should
 * vanish, docs/reward-spec.md §2), σ_b 0.05 and 0.3, σ_j 0 and 0.05.
 */
export const DEFAULT_SWEEP_SETTINGS: readonly SweepSetting[] = [
  {
    label: "lab default",
    sigmaJ: DEFAULT_AUDITOR.sigmaJ,
    sigmaB: DEFAULT_AUDITOR.sigmaB,
    delta: DEFAULT_AUDITOR.delta,
  },
  { label: "σ_b = 0", sigmaJ: DEFAULT_AUDITOR.sigmaJ, sigmaB: 0, delta: DEFAULT_AUDITOR.delta },
  {
    label: "σ_b = 0.05",
    sigmaJ: DEFAULT_AUDITOR.sigmaJ,
    sigmaB: 0.05,
    delta: DEFAULT_AUDITOR.delta,
  },
  { label: "σ_b = 0.3", sigmaJ: DEFAULT_AUDITOR.sigmaJ, sigmaB: 0.3, delta: DEFAULT_AUDITOR.delta },
  { label: "σ_j = 0", sigmaJ: 0, sigmaB: DEFAULT_AUDITOR.sigmaB, delta: DEFAULT_AUDITOR.delta },
  {
    label: "σ_j = 0.05",
    sigmaJ: 0.05,
    sigmaB: DEFAULT_AUDITOR.sigmaB,
    delta: DEFAULT_AUDITOR.delta,
  },
];

/** Result of one sweep setting: `stabilityStudy`'s result and the judge it used. */
export interface SweepResult extends StabilityResult {
  label: string;
  judge: JudgeNoise;
}

/** Inputs of `stabilitySweep`: `stabilityStudy`'s, with a seed instead of an rng and a list of judges. */
export interface SweepArgs extends Omit<StabilityArgs, "judge" | "rng"> {
  /**
   * Judge-noise settings (default DEFAULT_SWEEP_SETTINGS). A missing field
   * takes DEFAULT_AUDITOR's value; a missing label is built from the values.
   */
  settings?: ReadonlyArray<Partial<SweepSetting>>;
  /** Seed of the judge noise: an integer in [0, 2^32). */
  seed: number;
}

/**
 * `stabilitySweep({prompts, groups, settings = DEFAULT_SWEEP_SETTINGS, seed, repeats = 4, ...})`:
 * the stability study of GRR §4.3.4 (`stabilityStudy`) on the same fixed
 * groups once per judge-noise setting, in the order given.
 *
 * Each setting gets its own fresh rng, `mulberry32(seed)`: derived from the
 * seed alone, not from the setting's position (lab choice, common random
 * numbers). Every setting therefore sees the same standard-normal draws, so a
 * difference between two settings is the effect of their noise values, not
 * sampling luck, and a setting's result does not depend on the rest of the
 * list. The auditor draws the same number of normals whatever σ_b is, so
 * settings that differ only in σ_b give exactly the same groupwise variance.
 * Variances are in squared reward units (R = r_ver + λ·r_aux).
 *
 * @returns one SweepResult per setting, in order.
 * @throws Error naming `settings`, `seed` or the offending field (e.g.
 *   `auditor.sigmaB`) for an empty list, a bad seed or a negative or
 *   non-finite noise value; `stabilityStudy`'s errors for bad groups or repeats.
 */
export function stabilitySweep(args: SweepArgs): SweepResult[] {
  const settings = args.settings ?? DEFAULT_SWEEP_SETTINGS;
  if (!Array.isArray(settings) || settings.length === 0)
    throw new Error("stabilitySweep: settings must be a non-empty list");
  if (!Number.isInteger(args.seed) || args.seed < 0 || args.seed >= 2 ** 32) {
    throw new Error(
      `stabilitySweep: seed must be an integer in [0, 2^32) (got ${String(args.seed)})`,
    );
  }
  const { settings: _s, seed, ...study } = args;
  return settings.map((s) => {
    const judge: JudgeNoise = {
      sigmaJ: s.sigmaJ ?? DEFAULT_AUDITOR.sigmaJ,
      sigmaB: s.sigmaB ?? DEFAULT_AUDITOR.sigmaB,
      delta: s.delta ?? DEFAULT_AUDITOR.delta,
    };
    // createAuditorJudge validates each value and names the field.
    const auditor = createAuditorJudge({ ...judge, failureRate: 0 });
    const label = s.label ?? `σ_j ${judge.sigmaJ}, σ_b ${judge.sigmaB}, δ ${judge.delta}`;
    const result = stabilityStudy({ ...study, judge: auditor, rng: mulberry32(seed) });
    return { label, judge, ...result };
  });
}
