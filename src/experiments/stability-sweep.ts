/**
 * Stability study of GRR §4.3.4 (docs/reward-spec.md §2): fixed groups of rollouts,
 * reward assignment repeated R times with a noisy judge; the per-rollout
 * variance of the assigned reward, averaged, for pointwise GR vs groupwise
 * ranking. Paper: 500 prompts × 8 rollouts, 4 repeats; 0.026 vs 0.016.
 */
import type { TaskPrompt } from "../tasks/types";
import {
  createJudge,
  JUDGE_DEFAULTS,
  DEFAULT_JUDGE_NAME,
  judgeSettings,
  type JudgeName,
  type JudgeSettings,
} from "../rewards/judges";
import { scoreGRR, scorePointwiseGR, type Judge, type RankMapping } from "../rewards/grr";
import { mulberry32, type Rng } from "../rewards/rng";
import { summarizeSeeds } from "./seed-stats";

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
  /** Judge settings (name and noise; missing fields: that judge's defaults), or a custom judge. */
  judge?: Partial<JudgeSettings> | Judge;
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
      : createJudge(args.judge as Partial<JudgeSettings> | undefined);
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

/** The judge and noise of one sweep setting (docs/reward-spec.md §2; score units). */
interface JudgeNoise {
  /** Which judge (src/rewards/judges.ts). */
  name: JudgeName;
  /** Perception noise σ_j. */
  sigmaJ: number;
  /** Calibration offset σ_b per judge call. */
  sigmaB: number;
  /** Groupwise tie margin δ (oracle-auditor only). */
  delta: number;
}

/** One setting of a sweep: a label for tables and charts, the judge and its noise. */
export interface SweepSetting extends JudgeNoise {
  label: string;
}

/** σ_b values every sweep shows beside a judge's default (lab choice, docs/reward-spec.md §2). */
export const SWEEP_SIGMA_B = [0, 0.1, 0.2] as const;

/**
 * The sweep of one judge (lab choice): the judge at its default noise
 * ("lab default"), then σ_b at each of SWEEP_SIGMA_B that is not its
 * default, then σ_j = 0. Both the `stability` CLI and the page use it.
 */
export function judgeSweep(name: JudgeName): SweepSetting[] {
  const d = { name, ...JUDGE_DEFAULTS[name] };
  return [
    { label: "lab default", ...d },
    ...SWEEP_SIGMA_B.filter((b) => b !== d.sigmaB).map((sigmaB) => ({
      label: `σ_b = ${sigmaB}`,
      ...d,
      sigmaB,
    })),
    { label: "σ_j = 0", ...d, sigmaJ: 0 },
  ];
}

/** Default settings of `stabilitySweep`: `judgeSweep` of the default judge (text-auditor). */
export const DEFAULT_SWEEP_SETTINGS: readonly SweepSetting[] = judgeSweep(DEFAULT_JUDGE_NAME);

/** Result of one sweep setting: `stabilityStudy`'s result and the judge it used. */
export interface SweepResult extends StabilityResult {
  label: string;
  judge: JudgeNoise;
}

/** Inputs of `stabilitySweep`: `stabilityStudy`'s, with a seed instead of an rng and a list of judges. */
export interface SweepArgs extends Omit<StabilityArgs, "judge" | "rng"> {
  /**
   * Judge settings (default DEFAULT_SWEEP_SETTINGS). A missing name is the
   * default judge; a missing noise field takes that judge's default
   * (JUDGE_DEFAULTS); a missing label is built from the values.
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
 * list. Both judges draw the same number of normals whatever the σ's are.
 * (The oracle auditor's groupwise calls ignore σ_b, so its settings that
 * differ only in σ_b give exactly the same groupwise variance.)
 * Variances are in squared reward units (R = r_ver + λ·r_aux).
 *
 * @returns one SweepResult per setting, in order.
 * @throws Error naming `settings`, `seed` or the offending field (e.g.
 *   `judge.sigmaB`, `judge.name`) for an empty list, a bad seed or a negative or
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
    // judgeSettings names an unknown judge; createJudge validates each value and names the field.
    const judge: JudgeNoise = judgeSettings(s);
    const made = createJudge({ ...judge, failureRate: 0 });
    const label =
      s.label ??
      `${judge.name}, σ_j ${judge.sigmaJ}, σ_b ${judge.sigmaB}${judge.name === "oracle-auditor" ? `, δ ${judge.delta}` : ""}`;
    const result = stabilityStudy({ ...study, judge: made, rng: mulberry32(seed) });
    return { label, judge, ...result };
  });
}

/** A figure over draws: mean (the pooled figure: draws of equal size), sd and 95 % t-interval, each draw's value. */
interface OverDraws {
  mean: number;
  /** Sample sd over draws (n − 1); 0 for one draw. */
  sd: number;
  /** 95 % Student-t interval of the mean over draws; [mean, mean] for one draw. */
  ci95: [number, number];
  perDraw: number[];
}

/** One setting's figures pooled over draws (GRR §4.3.4 protocol on several prompt draws). */
export interface PooledSetting {
  label: string;
  judge: JudgeNoise;
  pointwise: OverDraws;
  groupwise: OverDraws;
  /** 1 − pooled groupwise / pooled pointwise (0 when pointwise is 0). */
  reduction: number;
}

function overDraws(values: number[]): OverDraws {
  const s = summarizeSeeds(values);
  return { mean: s.mean, sd: s.sd, ci95: s.ci95, perDraw: s.perSeed };
}

/**
 * `poolDraws(draws)`: each setting's pointwise and groupwise variance over
 * the draws (draws[d] = one draw's `stabilitySweep` result, the same
 * settings in the same order in every draw). The pooled figure is the mean
 * over draws, which is the mean over all rollouts when the draws are of equal
 * size (the CLI's are).
 * @throws Error when there is no draw or the draws' settings differ (label or judge).
 */
export function poolDraws(draws: ReadonlyArray<readonly SweepResult[]>): PooledSetting[] {
  if (draws.length === 0) throw new Error("poolDraws: no draws");
  const first = draws[0];
  for (const [d, draw] of draws.entries()) {
    if (
      draw.length !== first.length ||
      draw.some(
        (r, k) =>
          r.label !== first[k].label || JSON.stringify(r.judge) !== JSON.stringify(first[k].judge),
      )
    )
      throw new Error(`poolDraws: draw ${d} has other settings than draw 0`);
  }
  return first.map((r, k) => {
    const pointwise = overDraws(draws.map((d) => d[k].pointwise));
    const groupwise = overDraws(draws.map((d) => d[k].groupwise));
    return {
      label: r.label,
      judge: r.judge,
      pointwise,
      groupwise,
      reduction: pointwise.mean > 0 ? 1 - groupwise.mean / pointwise.mean : 0,
    };
  });
}

/** The fit of a setting to target variances: its index in the list and its squared relative error. */
export interface StabilityFit {
  index: number;
  label: string;
  judge: JudgeNoise;
  /** (pointwise/target_p − 1)² + (groupwise/target_g − 1)², pooled figures. */
  error: number;
}

/**
 * `fitTargets(pooled, {pointwise, groupwise})`: the setting whose pooled
 * variances are nearest the targets by the calibration rule of
 * docs/reward-spec.md §2 (decided 2026-12-03): the least
 * `(pointwise/target_p − 1)² + (groupwise/target_g − 1)²`; the first such
 * setting on a tie. Paper targets: GRR §4.3.4, 0.026 and 0.016.
 * @throws Error when `pooled` is empty or a target is not a finite number > 0.
 */
export function fitTargets(
  pooled: readonly PooledSetting[],
  targets: { pointwise: number; groupwise: number },
): StabilityFit {
  if (pooled.length === 0) throw new Error("fitTargets: no settings");
  for (const [k, v] of Object.entries(targets))
    if (!(Number.isFinite(v) && v > 0))
      throw new Error(`fitTargets: target ${k} must be a finite number > 0, got ${String(v)}`);
  let best: StabilityFit | null = null;
  pooled.forEach((p, index) => {
    const error =
      (p.pointwise.mean / targets.pointwise - 1) ** 2 +
      (p.groupwise.mean / targets.groupwise - 1) ** 2;
    if (best === null || error < best.error)
      best = { index, label: p.label, judge: p.judge, error };
  });
  return best!;
}
