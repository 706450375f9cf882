/**
 * Task generator entry points: a train sampler, the fixed held-out eval set,
 * and the two audit helpers (image shuffling for the "model must use the
 * image" check; option re-shuffling for ACRE's second pass, docs/reward-spec.md §5).
 */
import {
  resolveTaskConfig,
  OPTION_LETTERS,
  type ResolvedTaskConfig,
  type TaskConfig,
} from "./config";
import { generateDigitPrompt } from "./digits";
import { generateShapePrompt } from "./shapes";
import { generateBarPrompt } from "./bars";
import { formatResponse, type LabTaskPrompt } from "./format";
import type { MnistSubset } from "./mnist-data";
import { Rng, deriveSeed } from "./rng";
import type { TaskPrompt } from "./types";

/** Seed of the held-out eval sets (lab choice). */
const EVAL_SEED = 0x5eed_e7a1;
/** Size of the held-out eval set per family (lab choice). */
export const EVAL_SIZE = 64;

/** Options of `evalSet`. */
interface EvalSetOptions {
  /** Number of prompts. Default EVAL_SIZE (64). */
  size?: number;
  /** Seed. Default EVAL_SEED. */
  seed?: number;
  /**
   * Option-position skew used for the eval set. Default 0 (lab choice): the
   * eval set never has the position shortcut, so a policy that learned the
   * shortcut on skewed training data shows it as an accuracy drop.
   */
  optionSkew?: number;
}

/** A task generator for one resolved config. */
export interface TaskGenerator {
  /** The resolved, validated config. */
  readonly config: ResolvedTaskConfig;
  /**
   * One prompt, fully determined by (split, index, seed): the same arguments
   * always give identical prompts and image bytes.
   */
  generate(
    split: "train" | "eval",
    index: number,
    seed: number,
    config?: ResolvedTaskConfig,
  ): LabTaskPrompt;
  /**
   * n training prompts drawn with `rng` (advances it n times). Ids are
   * `<family>/train/<k>` with k counting up over this generator's lifetime.
   * Digit prompts use only train-split images.
   */
  sampleBatch(n: number, rng: Rng): LabTaskPrompt[];
  /**
   * The fixed held-out eval set: prompt i is `generate("eval", i, seed)` with
   * the eval option skew; ids `<family>/eval/<i>`. Digit prompts use only
   * eval-split images (never an image a train prompt can show).
   */
  evalSet(opts?: EvalSetOptions): LabTaskPrompt[];
}

/**
 * Creates a generator. `config` is validated by `resolveTaskConfig` (throws
 * naming the field). The digits family needs the packed MNIST subset
 * (`loadMnistSubset` in the browser, `loadMnistSubsetNode` in Node); throws if
 * it is missing.
 */
export function createTaskGenerator(
  config: Partial<TaskConfig> = {},
  data: { mnist?: MnistSubset } = {},
): TaskGenerator {
  const cfg = resolveTaskConfig(config);
  if (cfg.family === "digits" && !data.mnist) {
    throw new Error(
      "createTaskGenerator: the digits family needs the MNIST subset (pass { mnist: loadMnistSubset() / loadMnistSubsetNode() })",
    );
  }
  let counter = 0;
  const generateWith = (
    c: ResolvedTaskConfig,
    split: "train" | "eval",
    id: string,
    rng: Rng,
  ): LabTaskPrompt => {
    switch (c.family) {
      case "digits":
        return generateDigitPrompt(
          id,
          c,
          split === "train" ? data.mnist!.train : data.mnist!.eval,
          split,
          rng,
        );
      case "shapes":
        return generateShapePrompt(id, c, split, rng);
      case "bars":
        return generateBarPrompt(id, c, split, rng);
    }
  };
  const generate = (
    split: "train" | "eval",
    index: number,
    seed: number,
    c: ResolvedTaskConfig = cfg,
  ): LabTaskPrompt =>
    generateWith(
      c,
      split,
      `${c.family}/${split}/${index}`,
      new Rng(deriveSeed(seed, c.family, split, index)),
    );
  return {
    config: cfg,
    generate,
    sampleBatch(n: number, rng: Rng): LabTaskPrompt[] {
      if (!Number.isInteger(n) || n < 0)
        throw new Error(`sampleBatch: n must be a non-negative integer, got ${n}`);
      const out: LabTaskPrompt[] = [];
      for (let i = 0; i < n; i++)
        out.push(generateWith(cfg, "train", `${cfg.family}/train/${counter++}`, rng.fork()));
      return out;
    },
    evalSet(opts: EvalSetOptions = {}): LabTaskPrompt[] {
      const size = opts.size ?? EVAL_SIZE;
      if (!Number.isInteger(size) || size < 1)
        throw new Error(`evalSet: size must be a positive integer, got ${size}`);
      const evalCfg = resolveTaskConfig({ ...cfg, optionSkew: opts.optionSkew ?? 0 });
      return Array.from({ length: size }, (_, i) =>
        generate("eval", i, opts.seed ?? EVAL_SEED, evalCfg),
      );
    },
  };
}

/**
 * Returns copies of the prompts in which every prompt shows another prompt's
 * image (a random derangement drawn with `rng`); question, options, answer
 * and steps are unchanged, `meta.imageFrom` names the image's source. Used to
 * check that the model uses the image: accuracy on the result should fall to
 * about chance. Throws if the prompts' image shapes differ or fewer than 2
 * prompts are given.
 */
export function shuffleImages<P extends TaskPrompt>(
  prompts: readonly P[],
  rng: Rng,
): (P & { meta?: { imageFrom?: string } })[] {
  if (prompts.length < 2)
    throw new Error(`shuffleImages: need at least 2 prompts, got ${prompts.length}`);
  const { height, width, channels } = prompts[0];
  for (const p of prompts) {
    if (p.height !== height || p.width !== width || p.channels !== channels) {
      throw new Error(
        `shuffleImages: prompt ${p.id} is ${p.height}×${p.width}×${p.channels}, expected ${height}×${width}×${channels}`,
      );
    }
  }
  const perm = rng.shuffle(prompts.map((_, i) => i));
  const out = prompts.slice() as (P & { meta?: { imageFrom?: string } })[];
  perm.forEach((target, k) => {
    const src = prompts[perm[(k + 1) % perm.length]];
    const p = prompts[target] as P & { meta?: object };
    out[target] = {
      ...p,
      image: src.image.slice(),
      meta: { ...(p.meta ?? {}), imageFrom: src.id },
    };
  });
  return out;
}

/** Result of `reaskWithShuffledOptions`. */
export interface Reask<P extends TaskPrompt> {
  /** The prompt with permuted options, answer letter and SFT target updated (same image, question, steps). */
  prompt: P;
  /** Permuted options (new letter → content). */
  options: Record<string, string>;
  /** Original letter → new letter of the same content. */
  toNew: Record<string, string>;
  /** New letter → original letter of the same content. */
  toOriginal: Record<string, string>;
}

/**
 * ACRE's second pass (docs/reward-spec.md §5): the same prompt with its options
 * shuffled by `rng`. The permutation is never the identity (it is redrawn
 * until at least one option moves). Compare answers by option content via
 * `toOriginal`. Throws for an open-ended prompt (no options).
 */
export function reaskWithShuffledOptions<P extends TaskPrompt>(prompt: P, rng: Rng): Reask<P> {
  if (!prompt.options)
    throw new Error(`reaskWithShuffledOptions: prompt ${prompt.id} is open-ended (options null)`);
  const letters = Object.keys(prompt.options).sort();
  for (const l of letters)
    if (!(OPTION_LETTERS as readonly string[]).includes(l))
      throw new Error(`reaskWithShuffledOptions: bad option letter ${l}`);
  let perm = rng.shuffle(letters);
  while (letters.length > 1 && perm.every((l, i) => l === letters[i])) perm = rng.shuffle(letters);
  // new letter letters[i] shows the content of original letter perm[i]
  const options: Record<string, string> = {};
  const toNew: Record<string, string> = {};
  const toOriginal: Record<string, string> = {};
  letters.forEach((l, i) => {
    options[l] = prompt.options![perm[i]];
    toOriginal[l] = perm[i];
    toNew[perm[i]] = l;
  });
  const letter = prompt.answer.letter === null ? null : toNew[prompt.answer.letter];
  const reasked = {
    ...prompt,
    options,
    answer: { letter, content: prompt.answer.content },
    sftTarget: formatResponse(prompt.referenceSteps, letter ?? prompt.answer.content, options),
  } as P;
  return { prompt: reasked, options, toNew, toOriginal };
}
