/**
 * Named experiment presets for the headless CLI (`npm run lab -- --preset NAME`)
 * and the page. Every value not given here is the schema default.
 */
import { parseExperiment, type Experiment } from "./experiment";

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
   * scs-paper: SCS's headline comparison, RLOO vs RLOO + SCS (SCS Tab. 1:
   * RLOO 57.8 → 65.5; Tab. 6: k 0.8, m 4, τ 1), on the multiple-choice task
   * without hints from the shipped multiple-choice cold start. The lab's
   * sizes: small model, G 8, 4 prompts per step, 20 steps, lr 5e-5 (lab
   * choices, sized for a CPU adapter; the paper uses 16 samples per prompt).
   */
  "scs-paper": {
    modelSize: "small",
    task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
    evalSize: 64,
    variants: [
      { name: "rlvr", estimator: "rloo" },
      { name: "scs", estimator: "rloo" },
    ],
    algorithm: { groupSize: 8, batchPrompts: 4, steps: 20, evalEvery: 5, lr: 5e-5 },
  },
  /**
   * acre-paper: ACRE's comparison, GRPO vs GRPO + ACRE's consistency and
   * length rewards (ACRE Tab. 2), on the multiple-choice task without hints;
   * OSCR at every eval. Same lab sizes as scs-paper.
   */
  "acre-paper": {
    modelSize: "small",
    task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
    evalSize: 64,
    variants: [
      { name: "rlvr", estimator: "grpo" },
      { name: "acre", estimator: "grpo" },
    ],
    algorithm: { groupSize: 8, batchPrompts: 4, steps: 20, evalEvery: 5, lr: 5e-5 },
  },
};

/** Names of the presets, for help texts. */
export const PRESET_NAMES = Object.keys(PRESETS);

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
