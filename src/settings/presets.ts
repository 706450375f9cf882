/**
 * Named experiment presets for the headless CLI (`npm run lab -- --preset NAME`)
 * and the page. Every value not given here is the schema default.
 */
import { checkpointPath } from "./checkpoints";
import { parseExperiment, type Experiment } from "./experiment";

/**
 * The SCS scenario's task (docs/reward-spec.md §4.1): multiple choice, no
 * hints or slips, distractors that no one-digit misread concludes, and the
 * cold start trained with 40 % misread-and-guess targets.
 */
const SCS_TASK = {
  multipleChoice: true,
  hintRate: 0,
  traceSlipRate: 0,
  distractorRule: "off-misread",
  misreadRate: 0.4,
} as const;

/**
 * The ACRE scenario's task (docs/reward-spec.md §5.1): multiple choice, no
 * hints or slips, the cold start trained with 80 % letter-bound targets.
 */
const ACRE_TASK = {
  multipleChoice: true,
  hintRate: 0,
  traceSlipRate: 0,
  indexBindingRate: 0.8,
} as const;

/** SCS Tab. 4's truncation-only arm: no image noise. */
const SCS_TR_ONLY = { sigmaMin: 0, sigmaMax: 0 } as const;
/** SCS Tab. 4's perturbation-only arm: nothing kept, the whole response resampled (lab choice). */
const SCS_VP_ONLY = { k: 0 } as const;

/**
 * The sizes of the SCS and ACRE presets (lab choices, the claims' sizes of
 * src/cli/claims.ts): small model, G 8, 4 prompts per step, lr 5e-4, 20
 * steps, eval every 5 on 128 held-out prompts sampled at τ = 1.
 */
const SIZES = {
  modelSize: "small",
  evalSize: 128,
  evalTemperature: 1,
  algorithm: { groupSize: 8, batchPrompts: 4, steps: 20, evalEvery: 5, lr: 5e-4 },
} as const;
const SCS_SIZES = { ...SIZES, task: SCS_TASK } as const;

/** Raw preset inputs (validated by parseExperiment when used). */
const PRESETS: Record<string, unknown> = {
  /**
   * smoke: small and quick (lab choice): RLVR vs GRR on the small model, a few
   * prompts per step; sized to finish in minutes on a CPU (SwiftShader) adapter.
   */
  smoke: {
    modelSize: "small",
    variants: [{ name: "rlvr" }, { name: "grr" }],
    algorithm: { groupSize: 4, batchPrompts: 2, steps: 6, evalEvery: 3 },
    evalSize: 16,
    // Used only when no shipped checkpoint fits (e.g. after `--from-scratch`).
    sftSteps: 40,
  },
  /**
   * rlvr-learn: outcome-only RLVR on the small model from the shipped
   * open-ended cold start, long enough to measure held-out accuracy (lab
   * choices throughout; docs/results.md). Rollouts at τ = 1,
   * 8 prompts × G 8 per step, lr 3e-5: with 4 prompts and lr 2e-4 the
   * updates were noisy enough to lower held-out Acc. 256 held-out prompts,
   * so one prompt is 0.4 points.
   */
  "rlvr-learn": {
    modelSize: "small",
    task: { multipleChoice: false, hintRate: 0, traceSlipRate: 0 },
    evalTemperature: 0,
    variants: [{ name: "rlvr" }],
    algorithm: {
      groupSize: 8,
      batchPrompts: 8,
      steps: 60,
      evalEvery: 10,
      lr: 3e-5,
      temperature: 1,
    },
    evalSize: 256,
  },
  /**
   * drift: the lab's scenario in which the variants part (README, "Why the
   * curves part"): the default task's leaked answer hint, the four reward
   * designs side by side on the small model from the hinted cold start.
   */
  drift: {
    modelSize: "small",
    variants: [
      { name: "rlvr" },
      { name: "pointwise-gr" },
      { name: "grr" },
      { name: "structreward" },
    ],
    algorithm: { groupSize: 8, batchPrompts: 4, steps: 30, evalEvery: 5, lr: 5e-4 },
    evalSize: 128,
  },
  /**
   * grr-paper: the GRR paper's four arms, RLVR, PRM (the learned PRM of
   * public/prm, mean step score), pointwise GR and GRR (λ = 1, G = 8; GRR §4,
   * Table 1) on the open-ended task without hints, at the settings its figures in
   * docs/results.md were measured with (lr 3e-5, 8 prompts, eval every 10 on 64 prompts).
   */
  "grr-paper": {
    task: { hintRate: 0, traceSlipRate: 0 },
    evalTemperature: 0,
    evalSize: 64,
    variants: [{ name: "rlvr" }, { name: "prm" }, { name: "pointwise-gr" }, { name: "grr" }],
    algorithm: { groupSize: 8, beta: 1e-2, lr: 3e-5, batchPrompts: 8, evalEvery: 10 },
  },
  /**
   * scs-paper: SCS's headline comparison, RLOO vs RLOO + SCS (SCS Tab. 2:
   * RLOO 57.8 → 65.5; Tab. 6: k 0.8, m 4, τ 1), on the SCS scenario's task
   * (SCS_TASK: misread digits in the cold start, distractors no misread
   * reaches, so a faulty trace must guess) from its shipped cold start
   * (sft-digits2-mc-misread40-small.ckpt; docs/reward-spec.md §4.1). The lab's
   * sizes: small model, G 8, 4 prompts per step, lr 5e-4, 20 steps, eval
   * every 5 on 128 prompts (lab choices, the claims' sizes; the paper uses 16
   * samples per prompt).
   */
  "scs-paper": {
    ...SCS_SIZES,
    variants: [
      { name: "rlvr", estimator: "rloo" },
      { name: "scs", estimator: "rloo" },
    ],
  },
  /**
   * scs-tr-only: SCS Tab. 4's truncation–resampling-only arm (63.0, +5.2):
   * RLOO vs RLOO + SCS with no image noise (σ = 0), as scs-paper otherwise.
   */
  "scs-tr-only": {
    ...SCS_SIZES,
    variants: [
      { name: "rlvr", estimator: "rloo" },
      { name: "scs", estimator: "rloo", weights: SCS_TR_ONLY },
    ],
  },
  /**
   * scs-vp-only: SCS Tab. 4's visual-perturbation-only arm (62.8, +5.0): RLOO
   * vs RLOO + SCS with no truncation (k = 0: the m continuations resample the
   * whole response from the noisy image; lab choice, the paper does not say),
   * as scs-paper otherwise.
   */
  "scs-vp-only": {
    ...SCS_SIZES,
    variants: [
      { name: "rlvr", estimator: "rloo" },
      { name: "scs", estimator: "rloo", weights: SCS_VP_ONLY },
    ],
  },
  /**
   * acre-paper: ACRE's comparison, GRPO vs GRPO + ACRE's consistency and
   * length rewards (ACRE Tab. 1–3), on the ACRE scenario's task (ACRE_TASK:
   * 80 % of the cold start's traces name their letter inside the reasoning,
   * the index binding of ACRE §3.3) from its shipped cold start
   * (sft-digits2-mc-bind80-small.ckpt; docs/reward-spec.md §5.1); OSCR and
   * CACR at every eval. Same lab sizes as scs-paper.
   */
  "acre-paper": {
    ...SIZES,
    task: ACRE_TASK,
    variants: [
      { name: "rlvr", estimator: "grpo" },
      { name: "acre", estimator: "grpo" },
    ],
  },
};

/** Names of the presets, for help texts. */
export const PRESET_NAMES = Object.keys(PRESETS);

/**
 * The cold start a preset starts from: the shipped checkpoint for its task
 * and model size (src/settings/checkpoints.ts), relative to the site root,
 * so a picker that loads the preset gets it. `modelSize` overrides the
 * preset's (the page picks the small model on a CPU adapter).
 * @throws Error naming an unknown preset.
 */
export function presetColdStart(name: string, modelSize?: Experiment["modelSize"]): string {
  const exp = presetExperiment(name);
  return checkpointPath({ task: exp.task, modelSize: modelSize ?? exp.modelSize });
}

/**
 * Returns a validated preset, optionally with overrides (e.g. steps, seed).
 * @throws Error naming the unknown preset and the known ones.
 */
export function presetExperiment(
  name: string,
  overrides: { steps?: number; seed?: number } = {},
): Experiment {
  const raw = PRESETS[name];
  if (!raw) throw new Error(`Unknown preset '${name}'; known presets: ${PRESET_NAMES.join(", ")}`);
  const exp = parseExperiment(structuredClone(raw));
  if (overrides.steps !== undefined) exp.algorithm.steps = overrides.steps;
  if (overrides.seed !== undefined) exp.seed = overrides.seed;
  return parseExperiment(exp);
}
