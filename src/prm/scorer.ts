/**
 * The learned PRM as a step scorer (docs/reward-spec.md §2, "PRM"): rollout
 * texts in, one score in [0, 1] per step out. A rollout becomes one row (the
 * image, the prompt, and its trace up to its last readable step;
 * src/prm/data.ts) and a `TokenLogprobForward` (onnxruntime-web in the
 * reward worker and the CLI, the engine or the CPU reference in tests) gives
 * each column's token log-probability; step k's score is the smallest token
 * probability over the response columns of steps 1..k (causal: one row
 * scores every step).
 */
import { parseTrace } from "../rewards/trace";
import type { TaskPrompt } from "../tasks/types";
import { prmQuery, type PrmQuery } from "./data";
import type { TextShape } from "../engine/sequences";

/** What the reward side knows of a prompt (no image: images travel beside). */
type PromptText = Pick<TaskPrompt, "id" | "question" | "options" | "sftTarget">;

/** One batch of PRM rows. */
interface PrmRows {
  /** Number of rows N. */
  n: number;
  /** [N, H·W·C] pixels in [0, 1]. */
  images: Float32Array;
  /** [N, len] token ids: prmQuery rows cut to their first `len` columns. */
  tokens: Int32Array;
  len: number;
}

/**
 * A PRM forward: [N, len] float32, entry (i, c) = log p(tokens[i, c] |
 * image i, tokens[i, <c]) for c ≥ 1 (column 0 is not read).
 */
export type TokenLogprobForward = (rows: PrmRows) => Promise<Float32Array>;

/**
 * Step score from one row's token log-probabilities (lab choice): exp of the
 * smallest log-probability over columns [from, end), i.e. the least likely
 * token of the prefix; 1 for an empty range.
 * @param logprobs a row-major [*, width] array; @param offset the row's start.
 */
export function prefixScore(
  logprobs: Float32Array,
  offset: number,
  from: number,
  end: number,
): number {
  let min = 0;
  for (let c = from; c < end; c++) min = Math.min(min, logprobs[offset + c]);
  return Math.exp(min);
}

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
 * Identical rows of a group are run once.
 * @param imageSize pixels per image the PRM reads (H·W·C).
 * @param maxBatch rows per forward call (lab choice: memory bound).
 * @throws (from scoreSteps) Error when the request's arrays differ in length,
 *   an image has the wrong size, or the forward returns the wrong length or a
 *   NaN where a step is read; the forward's own errors pass through.
 */
export function createStepScorer(opts: {
  shape: TextShape;
  imageSize: number;
  forward: TokenLogprobForward;
  maxBatch?: number;
}): StepScorer {
  const { shape, imageSize, forward } = opts;
  const maxBatch = opts.maxBatch ?? 64;
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
      // One row per distinct readable trace: its longest readable prefix; each step's end column.
      const rows: { g: number; q: PrmQuery }[] = [];
      const slot = new Map<string, number>();
      const steps = req.texts.map((texts, g) =>
        texts.map((text) => {
          const ends: (number | null)[] = [];
          let last: { prefix: string; q: PrmQuery } | null = null;
          for (const prefix of rolloutPrefixes(text)) {
            // A prefix that does not fit or does not encode makes every longer one fail too:
            // stop encoding there (a long rollout costs linear time, not quadratic).
            const q =
              ends.length > 0 && ends[ends.length - 1] === null
                ? null
                : prmQuery(req.prompts[g], prefix, shape);
            ends.push(q?.endCol ?? null);
            if (q) last = { prefix, q };
          }
          if (last === null) return { row: -1, ends };
          const key = `${g}\u0000${last.prefix}`;
          let row = slot.get(key);
          if (row === undefined) {
            row = rows.length;
            slot.set(key, row);
            rows.push({ g, q: last.q });
          }
          return { row, ends };
        }),
      );
      const rowLogprobs: Float32Array[] = [];
      for (let at = 0; at < rows.length; at += maxBatch) {
        const part = rows.slice(at, at + maxBatch);
        const n = part.length;
        let len = 1;
        for (const { q } of part) len = Math.max(len, q.endCol);
        const images = new Float32Array(n * imageSize);
        const tokens = new Int32Array(n * len);
        part.forEach(({ g, q }, i) => {
          images.set(req.images[g], i * imageSize);
          tokens.set(q.tokens.subarray(0, len), i * len);
        });
        const lp = await forward({ n, images, tokens, len });
        if (lp.length !== n * len)
          throw new Error(`PRM: the forward gave ${lp.length} values for ${n} rows of ${len}`);
        for (let i = 0; i < n; i++) {
          for (let c = 1; c < part[i].q.endCol; c++)
            if (Number.isNaN(lp[i * len + c]))
              throw new Error(`PRM: the forward gave NaN at row ${at + i}, column ${c}`);
          rowLogprobs.push(lp.subarray(i * len, (i + 1) * len));
        }
      }
      return steps.map((group) =>
        group.map(({ row, ends }) =>
          ends.map((end) =>
            row < 0 || end === null ? 0 : prefixScore(rowLogprobs[row], 0, shape.promptLen, end),
          ),
        ),
      );
    },
  };
}

/**
 * Where a reward side gets the learned PRM: resolves to its step scorer, or
 * rejects with an error naming the PRM file (src/prm/file.ts).
 */
export type PrmProvider = () => Promise<StepScorer>;
