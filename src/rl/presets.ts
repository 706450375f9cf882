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
   * open-ended checkpoint (the final box holds the number), long enough to
   * measure whether held-out accuracy moves (lab choices throughout). Open-ended because
   * the tiny model does not learn the multiple-choice letter lookup in SFT
   * (README, "What it learns"). Rollouts at τ = 2.5: the SFT model is so sure
   * of itself that at τ = 1 about 95 % of the groups had all-equal rewards
   * (no advantage), and its wrong readings were wrong in every rollout; at
   * τ = 2.5 three quarters of the groups carry a signal and the format still
   * holds (README, "What it learns", for what it does and does not reach).
   * 256 held-out prompts, so one prompt is 0.4 points.
   */
  "rlvr-learn": {
    modelSize: "small",
    task: { multipleChoice: false },
    variants: [{ name: "rlvr" }],
    algorithm: { groupSize: 8, batchPrompts: 4, steps: 80, evalEvery: 10, lr: 2e-4, temperature: 2.5 },
    evalSize: 256,
  },
  /** grr-paper: the GRR paper's comparison (λ = 1, G = 8; GRR §4). */
  "grr-paper": {
    variants: [
      { name: "rlvr" },
      { name: "pointwise-gr" },
      { name: "grr" },
      { name: "structreward", estimator: "grpo-stable", beta: 1e-3 },
    ],
    algorithm: { groupSize: 8, beta: 1e-2 },
  },
};

/** Names of the presets, for help texts. */
export const PRESET_NAMES = Object.keys(PRESETS);

/**
 * Returns a validated preset, optionally with overrides (e.g. steps, seed).
 * @throws Error naming the unknown preset and the known ones.
 */
export function presetExperiment(name: string, overrides: { steps?: number; seed?: number } = {}): Experiment {
  const raw = PRESETS[name];
  if (!raw) throw new Error(`Unknown preset '${name}'; known presets: ${PRESET_NAMES.join(", ")}`);
  const exp = parseExperiment(structuredClone(raw));
  if (overrides.steps !== undefined) exp.algorithm.steps = overrides.steps;
  if (overrides.seed !== undefined) exp.seed = overrides.seed;
  return parseExperiment(exp);
}
