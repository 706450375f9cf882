/**
 * How the trainer gets rewards: a `RewardScorer` takes the detokenized
 * rollouts of a batch of groups and returns each group's per-rollout totals
 * and components. In the browser it is the reward worker (so reward math is
 * never on the page's thread nor in the GPU loop's way); in Node it runs in
 * process. Both call `scoreBatch`, so they cannot disagree.
 */
import { loadSandbox, mulberry32, type GroupScore, type SandboxEngine } from "../rewards/index";
import type { TaskPrompt } from "../tasks/types";
import type { VariantConfig } from "../settings/experiment";
import type { PrmProvider, StepScores } from "../prm/scorer";
import { typedEntry, variantEntry, type GroupPasses } from "../settings/variant-table";

/** A prompt as the reward side sees it: everything but the image. */
export type ScoringPrompt = Omit<TaskPrompt, "image">;

/** One batch of groups to score for one variant. */
export interface ScoreRequest {
  /** The variant, its weights and judge settings as parsed at the trainer's entry (not parsed again here). */
  variant: VariantConfig;
  prompts: ScoringPrompt[];
  /** texts[g] = the G rollout texts of prompts[g]. */
  texts: string[][];
  /** Seed of the judges' noise for this batch (same seed, same rewards). */
  seed: number;
  /** passes[g] = what the variant's generation passes produced for group g (absent: none ran). */
  passes?: GroupPasses[];
  /**
   * images[g] = the image of prompts[g] [H·W·C], for a variant that reads the
   * learned PRM (variant table `prm`); absent for every other variant.
   */
  images?: Float32Array[];
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

/** Drops the image: only metadata crosses to the reward side (a PRM variant's request carries the images beside). */
export function scoringPrompt(p: TaskPrompt): ScoringPrompt {
  const { image: _image, ...rest } = p;
  return rest;
}

/**
 * Scores every group of a request with its variant's scorer from the variant
 * table (docs/reward-spec.md §2–§3). Pure CPU; deterministic for a seed: one judge-noise
 * stream per batch, consumed group after group.
 * @param stepScores the PRM's step scores of every rollout (stepScores[g][i]),
 *   required by a variant that reads the PRM (scoreRequest runs it).
 * The weights are the request's typed ones (VariantConfig), parsed where
 * they entered the trainer; the scorers take them as they are.
 * @throws Error when texts and prompts differ in number or the variant is unknown.
 */
export function scoreBatch(
  req: ScoreRequest,
  stepScores?: StepScores,
  sandbox?: SandboxEngine,
): ScoreResponse {
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
  const entry = typedEntry(v.name);
  const groups = req.prompts.map((prompt, g) =>
    entry.score({
      // The scorers read only metadata; the image is not part of any reward.
      prompt: prompt as TaskPrompt,
      texts: req.texts[g],
      weights: v.weights,
      judge: v.judge,
      rng,
      passes: req.passes?.[g] ?? {},
      stepScores: stepScores?.[g],
      sandbox,
    }),
  );
  return { groups };
}

/**
 * Scores a request: for a variant that reads the PRM, runs the PRM on the
 * request's images and texts first (docs/reward-spec.md §2), then scoreBatch.
 * @throws Error when a PRM variant's request has no PRM to run (`prm` absent)
 *   or its images do not match its prompts; the PRM's own errors (a missing,
 *   corrupt or wrong-shaped file, named) pass through; scoreBatch's errors.
 */
export async function scoreRequest(
  req: ScoreRequest,
  prm?: PrmProvider,
  sandbox: SandboxProvider = loadSandbox,
): Promise<ScoreResponse> {
  const entry = variantEntry(req.variant.name);
  if (entry.sandboxed === true) return scoreBatch(req, undefined, await sandbox());
  if (entry.prm !== true) return scoreBatch(req);
  if (!prm) throw new Error(`${req.variant.name}: this reward scorer has no PRM to run`);
  if (!req.images || req.images.length !== req.prompts.length)
    throw new Error(
      `${req.variant.name}: the request carries ${req.images?.length ?? 0} images for ${req.prompts.length} prompts`,
    );
  const scorer = await prm();
  const stepScores = await scorer.scoreSteps({
    prompts: req.prompts,
    images: req.images,
    texts: req.texts,
  });
  return scoreBatch(req, stepScores);
}

/** Loads the reward sandbox for a written reward (default: loadSandbox, the package's own wasm file). */
export type SandboxProvider = () => Promise<SandboxEngine>;

/** A scorer in this thread (Node: the CLI; tests): scoreRequest with `prm` as its PRM. */
export function createInProcessScorer(prm?: PrmProvider): RewardScorer {
  return { score: (req) => scoreRequest(req, prm) };
}

/** The Node scorer without a PRM: same function, same thread (a PRM variant's batch fails, naming why). */
export const inProcessScorer: RewardScorer = createInProcessScorer();
