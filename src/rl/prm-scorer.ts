/**
 * The learned PRM as a step scorer (docs/reward-spec.md §2, "PRM"): rollout
 * texts in, one score in [0, 1] per step out. Each step becomes one query
 * (src/rl/prm-data.ts: the rollout's trace up to and including the step, then
 * the verdict slot) and a `VerdictForward` (onnxruntime-web in the reward
 * worker and the CLI, the engine or the CPU reference in tests) gives
 * P(Correct) / (P(Correct) + P(Incorrect)) for each.
 */
import { parseTrace } from "../rewards/trace";
import type { TaskPrompt } from "../tasks/types";
import { CORRECT_ID, prmQuery, type PrmQuery } from "./prm-data";
import type { TextShape } from "./sequences";

/** What the reward side knows of a prompt (no image: images travel beside). */
type PromptText = Pick<TaskPrompt, "id" | "question" | "options" | "sftTarget">;

/** One batch of PRM queries. */
interface VerdictBatch {
  /** Number of queries N. */
  n: number;
  /** [N, H·W·C] pixels in [0, 1]. */
  images: Float32Array;
  /** [N, promptLen + maxNew] token ids (prmQuery rows). */
  tokens: Int32Array;
  /** [N] verdict columns; the logits at column − 1 are read. */
  cols: Int32Array;
}

/** A PRM forward: [N] step scores P(Correct) / (P(Correct) + P(Incorrect)) in [0, 1]. */
export type VerdictForward = (batch: VerdictBatch) => Promise<Float32Array>;

/** Steps of one batch of groups to score. */
interface StepScoreRequest {
  prompts: readonly PromptText[];
  /** images[g] = the image of prompts[g], [H·W·C]. */
  images: readonly Float32Array[];
  /** texts[g] = the G rollout texts of prompts[g]. */
  texts: readonly (readonly string[])[];
}

/** scores[g][i] = the step scores of rollout i of group g (one per parsed step; [] for none). */
export type StepScores = number[][][];

/** Anything that scores the steps of rollouts (the PRM). */
export interface StepScorer {
  scoreSteps(req: StepScoreRequest): Promise<StepScores>;
  dispose?(): void;
}

/**
 * The response prefixes the PRM reads for a rollout: `<think> Step i₁: s₁ …
 * Step i_k: s_k` for k = 1..(number of parsed steps), with the step numbers
 * as written (parseTrace; text outside the steps is not read, lab choice).
 */
export function rolloutPrefixes(text: string): string[] {
  const steps = parseTrace({ text }).steps;
  const out: string[] = [];
  let body = "<think>";
  for (const s of steps) {
    body += ` Step ${s.index}: ${s.text}`;
    out.push(body);
  }
  return out;
}

/**
 * A StepScorer over `forward`. A step whose prefix does not fit `shape`'s
 * response columns (or holds a word outside the vocabulary) scores 0 (lab
 * choice: the PRM cannot read it, and a trace too long to read is not paid).
 * Identical prefixes of a group are scored once.
 * @param imageSize pixels per image the PRM reads (H·W·C).
 * @param maxBatch queries per forward call (lab choice: memory bound).
 * @throws (from scoreSteps) Error when the request's arrays differ in length
 *   or an image has the wrong size; the forward's errors pass through.
 */
export function createStepScorer(opts: {
  shape: TextShape;
  imageSize: number;
  forward: VerdictForward;
  maxBatch?: number;
}): StepScorer {
  const { shape, imageSize, forward } = opts;
  const maxBatch = opts.maxBatch ?? 64;
  const L = shape.promptLen + shape.maxNew;
  return {
    async scoreSteps(req) {
      if (req.images.length !== req.prompts.length || req.texts.length !== req.prompts.length)
        throw new Error(
          `PRM: ${req.prompts.length} prompts, ${req.images.length} images, ${req.texts.length} groups of texts`,
        );
      req.images.forEach((img, g) => {
        if (img.length !== imageSize)
          throw new Error(
            `PRM: the image of prompt ${req.prompts[g].id} has ${img.length} values, the PRM reads ${imageSize}`,
          );
      });
      const queries: { g: number; q: PrmQuery }[] = [];
      const slot = new Map<string, number>();
      const where: (number | null)[][][] = req.texts.map((texts, g) =>
        texts.map((text) =>
          rolloutPrefixes(text).map((prefix) => {
            const key = `${g}\u0000${prefix}`;
            const known = slot.get(key);
            if (known !== undefined) return known;
            const q = prmQuery(req.prompts[g], prefix, CORRECT_ID, shape);
            if (q === null) return null;
            slot.set(key, queries.length);
            queries.push({ g, q });
            return queries.length - 1;
          }),
        ),
      );
      const scores = new Float32Array(queries.length);
      for (let at = 0; at < queries.length; at += maxBatch) {
        const part = queries.slice(at, at + maxBatch);
        const n = part.length;
        const images = new Float32Array(n * imageSize);
        const tokens = new Int32Array(n * L);
        const cols = new Int32Array(n);
        part.forEach(({ g, q }, i) => {
          images.set(req.images[g], i * imageSize);
          tokens.set(q.tokens, i * L);
          cols[i] = q.verdictCol;
        });
        const out = await forward({ n, images, tokens, cols });
        if (out.length !== n)
          throw new Error(`PRM: the forward gave ${out.length} scores for ${n} steps`);
        scores.set(out, at);
      }
      return where.map((group) =>
        group.map((steps) => steps.map((s) => (s === null ? 0 : scores[s]))),
      );
    },
  };
}

/** σ(a − b): P(Correct) / (P(Correct) + P(Incorrect)) from the two logits. */
export function verdictScore(logitCorrect: number, logitIncorrect: number): number {
  return 1 / (1 + Math.exp(logitIncorrect - logitCorrect));
}
