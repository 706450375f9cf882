/**
 * Experiment configuration: what the UI panel edits, the URL encodes, the CLI
 * presets fill in, and the trainer worker runs. Validated with zod so a bad
 * config gives an error that names the field, and nothing starts.
 */
import { z } from "zod";
import { DISTRACTOR_RULES, TRACE_SLIP_BOXES } from "../tasks/config";
import { ESTIMATOR_NAMES, type EstimatorName } from "./estimator-table";
import {
  JudgeSchema,
  VARIANT_NAMES,
  variantEntry,
  needsOptions,
  type JudgeConfig,
  type VariantName,
  type VariantWeightsOf,
  type WeightPatch,
} from "./variant-table";

/** Variant names, from the variant table (./variant-table.ts). */
export { VARIANT_NAMES, type JudgeConfig, type VariantName } from "./variant-table";

/** Loss aggregations of docs/reward-spec.md §1: papers' default, DAPO, Dr. GRPO. */
export const AGGREGATIONS = [
  "seq-mean-token-mean",
  "token-mean",
  "seq-mean-token-sum-norm",
] as const;

/** One variant of an experiment, parsed: its name N and its weights of N's type. */
export interface VariantConfigOf<N extends VariantName> {
  name: N;
  weights: VariantWeightsOf<N>;
  judge: JudgeConfig;
  /** Per-variant estimator (absent: the algorithm's). */
  estimator?: EstimatorName;
  /** Per-variant KL coefficient β (absent: the algorithm's). */
  beta?: number;
}

/** One variant of an experiment: a union over the names, so a config's weights are its variant's. */
export type VariantConfig = { [N in VariantName]: VariantConfigOf<N> }[VariantName];

/**
 * A change of variant N's settings: some of its weights and judge settings
 * (the page's sliders, the trainer's `setWeights`), or its estimator or β
 * (the CLI's `--set`); unchecked until the trainer's entry parses it
 * (applyVariantPatch, ./variant-settings.ts).
 */
export interface VariantPatch<N extends VariantName> {
  weights?: WeightPatch<N>;
  judge?: Partial<JudgeConfig>;
  estimator?: EstimatorName;
  beta?: number;
}

/**
 * `config` with `patch`'s weights and judge settings merged in, unchecked:
 * the page's edited experiment (its sliders stay within the schema's
 * ranges); the trainer's entry parses what it is sent (applyVariantPatch).
 */
export function withPatch<C extends VariantConfig>(config: C, patch: VariantPatch<C["name"]>): C {
  return {
    ...config,
    weights: { ...config.weights, ...patch.weights },
    judge: { ...config.judge, ...patch.judge },
  };
}

/** Variant `name`'s config in `experiment`, or undefined when the experiment does not train it. */
export function findVariant<N extends VariantName>(
  experiment: Pick<Experiment, "variants">,
  name: N,
): VariantConfigOf<N> | undefined {
  // A config named `name` holds `name`'s weights (VariantSchema parsed them so).
  return experiment.variants.find((v) => v.name === name) as VariantConfigOf<N> | undefined;
}

/**
 * One variant of an experiment. `weights` is checked by the variant's own
 * schema in the variant table (an unknown key or a bad value is an error
 * naming `weights.<key>`; defaults filled in, those that depend on the
 * estimator from the entry's estimatorWeights, SCS Tab. 6–9); `estimator` and
 * `beta` fall back to the table entry's defaults (StructReward: GRPO-stable,
 * β = 1e-3; SCS: RLOO), else stay absent (the algorithm's apply).
 */
export const VariantSchema = z
  .object({
    name: z.enum(VARIANT_NAMES),
    weights: z.record(z.string(), z.unknown()).default({}),
    judge: JudgeSchema.default(JudgeSchema.parse({})),
    /** Per-variant estimator override. */
    estimator: z.enum(ESTIMATOR_NAMES).optional(),
    /** Per-variant KL coefficient override. */
    beta: z.number().min(0).max(1).optional(),
  })
  .transform((v, ctx) => {
    const entry = variantEntry(v.name);
    const estimator = v.estimator ?? entry.estimator;
    // Weights whose paper value depends on the estimator (SCS Tab. 6–9) default to that estimator's.
    const byEstimator = estimator ? entry.estimatorWeights?.(estimator) : undefined;
    const w = entry.weights.safeParse({ ...byEstimator, ...v.weights });
    if (!w.success) {
      for (const issue of w.error.issues)
        ctx.addIssue({ code: "custom", message: issue.message, path: ["weights", ...issue.path] });
      return z.NEVER;
    }
    // The weights were parsed by the entry of v.name: name and weights belong together.
    const out = { name: v.name, weights: w.data, judge: v.judge } as VariantConfig;
    const beta = v.beta ?? entry.beta;
    if (estimator !== undefined) out.estimator = estimator;
    if (beta !== undefined) out.beta = beta;
    return out;
  });

/**
 * The defaults of variant `name` (what a checkbox adds, what the URL compares against).
 * @throws Error naming an unknown variant and the known ones.
 */
export function variantDefaults(name: string): VariantConfig {
  return VariantSchema.parse({ name: variantEntry(name).name });
}

/**
 * Named bounds of the numeric settings (lab choices), checked by the schema
 * so a setting out of range is an error naming the field and the bound,
 * never an out-of-memory or GPU buffer error later. Sizes follow WebGPU's
 * default 128 MiB storage-buffer binding with the default model (d = 128,
 * 4 layers, 128 positions): 256 KiB of KV cache or MLP activations per
 * sequence, so one batch holds at most 512 sequences.
 */
/** Rollouts per prompt G at most. */
const MAX_GROUP_SIZE = 64;
/** Prompts per RL step at most. */
const MAX_BATCH_PROMPTS = 64;
/** Rollouts per RL step (groupSize × batchPrompts) at most: one training batch. */
const MAX_ROLLOUTS_PER_STEP = 512;
/** The held-out set's size: an eval reads its first evalSize prompts (one generate batch). */
export const MAX_EVAL_SIZE = 512;
/** SFT sequences per step at most (one training batch). */
const MAX_SFT_BATCH = 512;
/** RL or SFT steps of one run at most. */
const MAX_STEPS = 100_000;
/** top-k at most: at or above the vocabulary size (196) it keeps every token, as 0 does. */
const MAX_TOP_K = 256;
/** Variants side by side in one experiment: the whole variant table (lab choice). */
export const MAX_VARIANTS = VARIANT_NAMES.length;
/** Gradient-norm clip at most: far above any gradient norm of the lab's models. */
const MAX_GRAD_CLIP = 1000;

/** "at most N (NAME: what it is)", the message of a bound. */
const atMostText = (n: number, name: string, what: string) => `at most ${n} (${name}: ${what})`;
/** The zod error of a bound: its text and the value given. */
const atMost = (n: number, name: string, what: string) => ({
  error: (issue: { input?: unknown }) => `${atMostText(n, name, what)}, got ${String(issue.input)}`,
});

const AlgorithmSchema = z.object({
  estimator: z.enum(ESTIMATOR_NAMES).default("grpo"),
  /** Std kind and ε_A: lab default as verl (docs/reward-spec.md §1). */
  std: z.enum(["sample", "population"]).default("sample"),
  eps: z.number().min(0).max(1).default(1e-6),
  clipEps: z.number().gt(0).max(1).default(0.2),
  /** KL coefficient β (GRR paper 1e-2). */
  beta: z.number().min(0).max(1).default(1e-2),
  aggregation: z.enum(AGGREGATIONS).default("seq-mean-token-mean"),
  /**
   * AdamW learning rate for RL (lab choice: the papers' 1e-6 is for 7B
   * models). Lab default 5e-4 with 4 prompts per step: the default scenario's
   * setting, chosen on the tuning seed (at 3e-4 RLVR's drift was a third as
   * large in 15 steps; README, "Why the curves part"); 1e-3 wrecked the
   * earlier cold start in 5 steps. For accuracy alone, 3e-5 with 8 prompts
   * raised held-out Acc (docs/results.md; preset rlvr-learn).
   */
  lr: z.number().gt(0).max(1).default(5e-4),
  weightDecay: z.number().min(0).max(1).default(0),
  gradClip: z
    .number()
    .gt(0)
    .max(MAX_GRAD_CLIP, atMost(MAX_GRAD_CLIP, "MAX_GRAD_CLIP", "the gradient-norm clip"))
    .default(1),
  /** Rollouts per prompt G (docs/reward-spec.md §0, G = 8). */
  groupSize: z
    .number()
    .int()
    .min(1)
    .max(MAX_GROUP_SIZE, atMost(MAX_GROUP_SIZE, "MAX_GROUP_SIZE", "rollouts per prompt"))
    .default(8),
  /** Prompts per RL step (lab choice, see lr; a CPU adapter's step time grows with it). */
  batchPrompts: z
    .number()
    .int()
    .min(1)
    .max(MAX_BATCH_PROMPTS, atMost(MAX_BATCH_PROMPTS, "MAX_BATCH_PROMPTS", "prompts per step"))
    .default(4),
  temperature: z.number().gt(0).max(5).default(1),
  topK: z
    .number()
    .int()
    .min(0)
    .max(MAX_TOP_K, atMost(MAX_TOP_K, "MAX_TOP_K", "0 or the vocabulary size keep every token"))
    .default(0),
  topP: z.number().gt(0).max(1).default(1),
  steps: z
    .number()
    .int()
    .min(1)
    .max(MAX_STEPS, atMost(MAX_STEPS, "MAX_STEPS", "steps of one run"))
    .default(200),
  /** RL steps between held-out evals (lab choice: the drift shows within 15 steps). */
  evalEvery: z
    .number()
    .int()
    .min(1)
    .max(MAX_STEPS, atMost(MAX_STEPS, "MAX_STEPS", "steps of one run"))
    .default(5),
});
export type AlgorithmConfig = z.infer<typeof AlgorithmSchema>;

/** groupSize × batchPrompts within MAX_ROLLOUTS_PER_STEP (an issue on each of the two fields). */
function checkRolloutsPerStep(a: AlgorithmConfig, ctx: z.RefinementCtx): void {
  const n = a.groupSize * a.batchPrompts;
  if (n > MAX_ROLLOUTS_PER_STEP)
    for (const path of ["groupSize", "batchPrompts"])
      ctx.addIssue({
        code: "custom",
        path: [path],
        message: `groupSize × batchPrompts = ${a.groupSize} × ${a.batchPrompts} = ${n} rollouts per step, ${atMostText(MAX_ROLLOUTS_PER_STEP, "MAX_ROLLOUTS_PER_STEP", "one training batch")}`,
      });
}

const TaskConfigSchema = z.object({
  family: z.enum(["digits", "shapes", "bars"]).default("digits"),
  /**
   * Lab default: open-ended (the final box holds the number). In multiple
   * choice the tiny models read the digits and do the arithmetic but do not
   * learn the option-letter lookup in SFT (docs/checkpoints.md), so the
   * final answer would sit at chance and give RL nothing to work with.
   */
  multipleChoice: z.boolean().default(false),
  /** Probability the correct option sits at letter A (a learnable shortcut). */
  optionSkew: z.number().min(0).max(1).default(0),
  /** Distractor closeness in [0, 1]: 1 = near misses (±1). */
  distractorCloseness: z.number().min(0).max(1).default(0.8),
  numDigits: z.number().int().min(2).max(3).default(2),
  /**
   * Probability that a question leaks an answer hint (`<answer> h </answer>`,
   * TaskConfig.hintRate). Lab default 1: the shortcut under which outcome-only
   * RL drifts away from its own reasoning (README, "Why the curves part").
   */
  hintRate: z.number().min(0).max(1).default(1),
  /**
   * Probability a hint is right (TaskConfig.hintAccuracy). Lab default 1: a
   * hint that is always right pays every copied answer in full under an
   * outcome-only reward, whatever the steps say (README, "Why the curves part").
   */
  hintAccuracy: z.number().min(0).max(1).default(1),
  /**
   * SFT only: probability a hinted target boxes the hint (TaskConfig.hintCopyRate).
   * Lab default 0.5, the value of the hinted cold start's last SFT run
   * (sft-digits2-open-hint-small.ckpt, 2026-12-01); the shipped slip cold
   * starts were resumed from it with 0 (docs/checkpoints.md).
   */
  hintCopyRate: z.number().min(0).max(1).default(0.5),
  /**
   * SFT only: probability a target's last step concludes a near miss, its
   * final box as traceSlipBox says (TaskConfig.traceSlipRate). Above 0 the
   * run starts from its own cold start (`…-slip<percent>[-<box>box]-<size>.ckpt`).
   * Lab default 0.3: the shipped scenario's cold start (README, "Why the
   * curves part").
   */
  traceSlipRate: z.number().min(0).max(1).default(0.3),
  /**
   * SFT only: what a slipped target's final box holds (TaskConfig.traceSlipBox):
   * `answer`, `hint` or `step`. Other than `answer` the run starts from its own
   * cold start (`…-slip<p>-<box>box-<size>.ckpt`). Lab default `hint`: the
   * slip is a shortcut (sloppy last step, answer copied from the hint) that
   * an outcome-only reward pays in full, while an honest trace is paid only
   * when the digits were read right (README, "Why the curves part").
   */
  traceSlipBox: z.enum(TRACE_SLIP_BOXES).default("hint"),
  /**
   * How the distractors are drawn (TaskConfig.distractorRule): `near`, or
   * `off-misread` (digits: never a value a one-digit misread concludes, so a
   * misreading trace must guess; the SCS scenario, docs/reward-spec.md §4).
   */
  distractorRule: z.enum(DISTRACTOR_RULES).default("near"),
  /**
   * SFT only: probability a target misreads one digit and, in multiple
   * choice, guesses the letter (TaskConfig.misreadRate). Above 0 the run
   * starts from its own cold start (`…-misread<percent>-<size>.ckpt`; the SCS
   * scenario ships 0.4 for the small model).
   */
  misreadRate: z.number().min(0).max(1).default(0),
  /**
   * SFT only, multiple choice: probability a target names its letter inside
   * the reasoning (TaskConfig.indexBindingRate). Above 0 the run starts from
   * its own cold start (`…-bind<percent>-<size>.ckpt`; the ACRE scenario
   * ships 0.8 for the small model).
   */
  indexBindingRate: z.number().min(0).max(1).default(0),
  /**
   * RL and eval prompts, digits: below 1, one digit of every prompt drawn at
   * this contrast (TaskConfig.faintContrast; the SCS premise scenario,
   * docs/reward-spec.md §4.3). The cold start does not change with it.
   */
  faintContrast: z.number().min(0).max(1).default(1),
});

export const ExperimentSchema = z.object({
  schemaVersion: z.literal(1).default(1),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(1),
  /**
   * Several seeds: every variant is trained once per seed from the same cold
   * start (prompts, sampling and judge noise differ by seed); metrics are
   * reported per seed and as mean with a 95 % t-interval. Absent: one run
   * with `seed`. Lab choice: at most 8 seeds.
   */
  seeds: z
    .array(
      z
        .number()
        .int()
        .min(0)
        .max(2 ** 31 - 1),
    )
    .min(1)
    .max(8)
    .optional(),
  modelSize: z.enum(["default", "small"]).default("default"),
  task: TaskConfigSchema.default(TaskConfigSchema.parse({})),
  variants: z
    .array(VariantSchema)
    .min(1)
    .max(MAX_VARIANTS, atMost(MAX_VARIANTS, "MAX_VARIANTS", "variants side by side"))
    .default([VariantSchema.parse({ name: "rlvr" }), VariantSchema.parse({ name: "grr" })]),
  algorithm: AlgorithmSchema.superRefine(checkRolloutsPerStep).default(AlgorithmSchema.parse({})),
  /** SFT steps when cold-start SFT runs from scratch. */
  sftSteps: z
    .number()
    .int()
    .min(0)
    .max(MAX_STEPS, atMost(MAX_STEPS, "MAX_STEPS", "steps of one run"))
    .default(600),
  sftLr: z.number().gt(0).max(1).default(2e-3),
  sftBatch: z
    .number()
    .int()
    .min(1)
    .max(MAX_SFT_BATCH, atMost(MAX_SFT_BATCH, "MAX_SFT_BATCH", "one training batch"))
    .default(32),
  /** Held-out prompts per eval (lab choice: 128, so one prompt is 0.8 points). */
  evalSize: z
    .number()
    .int()
    .min(4)
    .max(MAX_EVAL_SIZE, atMost(MAX_EVAL_SIZE, "MAX_EVAL_SIZE", "the held-out set's size"))
    .default(128),
  /**
   * Held-out eval decoding: 0 = greedy, else sampling at this temperature
   * with one fixed seed per run, so every variant and step draws from the
   * same random stream (lab choice). Lab default 1, the rollouts' own
   * temperature: sampled eval measures the policy's distribution, which is
   * what RL moves first; a trace that contradicts its answer in 30 % of
   * samples is nearly invisible to greedy decoding (the shipped slip cold
   * start: greedy IncR 0.016, sampled 0.40).
   */
  evalTemperature: z.number().min(0).max(5).default(1),
});
export type Experiment = z.infer<typeof ExperimentSchema>;

/**
 * Parses and fills defaults.
 * @throws Error listing each invalid field as `path: message`.
 */
export function parseExperiment(input: unknown): Experiment {
  const r = ExperimentSchema.safeParse(input ?? {});
  if (!r.success) {
    const msg = r.error.issues
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
      .join("; ");
    throw new Error(`Invalid experiment config: ${msg}`);
  }
  const names = r.data.variants.map((v) => v.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`Invalid experiment config: variants: '${dup}' appears twice`);
  // ACRE's re-ask shuffles options: it needs the multiple-choice form of the task.
  const reasks = names.find(needsOptions);
  if (reasks && !r.data.task.multipleChoice)
    throw new Error(
      `Invalid experiment config: variants: '${reasks}' re-asks with the options shuffled and needs a multiple-choice task (task.multipleChoice, --multiple-choice)`,
    );
  return r.data;
}

/** The experiment with every default (what the page starts with). */
export const DEFAULT_EXPERIMENT: Experiment = parseExperiment({});
