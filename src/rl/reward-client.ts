/**
 * How the trainer gets rewards: a `RewardScorer` takes the detokenized
 * rollouts of a batch of groups and returns each group's per-rollout totals
 * and components. In the browser it is the reward worker (so reward math is
 * never on the page's thread nor in the GPU loop's way); in Node it runs in
 * process. Both call `scoreBatch`, so they cannot disagree.
 */
import { mulberry32, type GroupScore } from "../rewards/index";
import type { TaskPrompt } from "../tasks/types";
import type { VariantConfig } from "./experiment";
import { variantEntry, type GroupPasses } from "./variant-table";

/** A prompt as the reward side sees it: everything but the image. */
export type ScoringPrompt = Omit<TaskPrompt, "image">;

/** One batch of groups to score for one variant. */
export interface ScoreRequest {
  variant: VariantConfig;
  prompts: ScoringPrompt[];
  /** texts[g] = the G rollout texts of prompts[g]. */
  texts: string[][];
  /** Seed of the judges' noise for this batch (same seed, same rewards). */
  seed: number;
  /** passes[g] = what the variant's generation passes produced for group g (absent: none ran). */
  passes?: GroupPasses[];
}

/** Scores of a batch, one GroupScore per prompt. */
export interface ScoreResponse {
  groups: GroupScore[];
}

/** Anything that can score a batch (reward worker client or in-process). */
export interface RewardScorer {
  score(req: ScoreRequest): Promise<ScoreResponse>;
  dispose?(): void;
}

/** Drops the image: only metadata crosses to the reward side. */
export function scoringPrompt(p: TaskPrompt): ScoringPrompt {
  const { image: _image, ...rest } = p;
  return rest;
}

/**
 * Scores every group of a request with its variant's scorer from the variant
 * table (docs/reward-spec.md §2–§3). Pure CPU; deterministic for a seed: one judge-noise
 * stream per batch, consumed group after group.
 * @throws Error when texts and prompts differ in number or the variant is unknown;
 *   ZodError when its weights do not fit the variant's schema.
 */
export function scoreBatch(req: ScoreRequest): ScoreResponse {
  if (req.texts.length !== req.prompts.length) {
    throw new Error(
      `scoreBatch: ${req.prompts.length} prompts but ${req.texts.length} groups of texts`,
    );
  }
  if (req.passes !== undefined && req.passes.length !== req.prompts.length)
    throw new Error(
      `scoreBatch: ${req.prompts.length} prompts but ${req.passes.length} groups of pass results`,
    );
  const rng = mulberry32(req.seed >>> 0);
  const v = req.variant;
  const entry = variantEntry(v.name);
  const groups = req.prompts.map((prompt, g) =>
    entry.score({
      // The scorers read only metadata; the image is not part of any reward.
      prompt: prompt as TaskPrompt,
      texts: req.texts[g],
      weights: v.weights,
      judge: v.judge,
      rng,
      passes: req.passes?.[g] ?? {},
    }),
  );
  return { groups };
}

/** The Node scorer: same function, same thread. */
export const inProcessScorer: RewardScorer = {
  score: async (req) => scoreBatch(req),
};
