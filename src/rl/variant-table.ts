/**
 * The reward variants the lab trains, one entry each: name, label, colour,
 * the formula the page shows, its source (paper and equation), its weights
 * as a zod schema with defaults (and the paper's values beside them), the
 * judge it calls, the extra generation passes its reward needs, its default
 * estimator and β, and its scorer.
 *
 * Everything that lists variants reads this table: the experiment schema
 * (names, per-variant weights, default estimator and β), the reward side
 * (`scoreBatch` in the trainer's reward worker and in the CLI), the RL step
 * (generation passes), the CLI (`--variants`, `--set`), the URL state and the
 * page (checkboxes, cards, sliders, formulas, colours). Adding a variant is
 * one entry here and its scorer in src/rewards.
 */
import { z } from "zod";
import {
  createAuditorJudge,
  DEFAULT_AUDITOR,
  DEFAULT_LAMBDA,
  RANK_MAPPINGS,
  scoreGRR,
  scorePointwiseGR,
  scoreRLVR,
  scoreStructReward,
  STRUCT_DEFAULT_WEIGHTS,
  type GroupScore,
  type Rng,
} from "../rewards/index";
import type { TaskPrompt } from "../tasks/types";
import type { EstimatorName } from "./estimator-table";

/** Which judge a variant calls: none, one call per rollout, or one call per group (GRR §2–§3). */
export type JudgeKind = "none" | "pointwise" | "groupwise";

/**
 * Generation a variant's reward needs beyond the G rollouts of a step:
 * SCS resamples continuations from truncated rollouts (SCS §3), ACRE re-asks
 * with the options shuffled (ACRE §3). The RL step refuses a variant whose
 * passes it does not run.
 */
type GenerationPass = "truncated-continuations" | "option-shuffle-reask";

/** A weight's value: a number (a slider) or one of a few named choices. */
export type WeightValue = number | string;

/** One choice of a choice weight, with the formula it stands for. */
interface ChoiceOption {
  value: string;
  label: string;
  formula: string;
}

/** How the page shows a weight and what the paper sets it to. */
export type WeightInfo =
  | {
      kind: "number";
      /** Slider label ("λ (auxiliary weight)"). */
      label: string;
      /** Legend name of a changed value ("λ"). */
      short: string;
      tip: string;
      /** The paper's value. */
      paper: number;
      /** Upper end of the page's slider (the schema allows more). */
      sliderMax: number;
    }
  | {
      kind: "choice";
      label: string;
      short: string;
      tip: string;
      paper: string;
      options: readonly ChoiceOption[];
    };

/**
 * Noise of the lab's rubric-auditor judge (docs/reward-spec.md §2, lab choice;
 * defaults = DEFAULT_AUDITOR of src/rewards/auditor-judge.ts). Every variant
 * carries it; only variants with a judge read it.
 */
export const JudgeSchema = z.object({
  /** Per-candidate perception noise σ_j (score units, [0, 1] scale). */
  sigmaJ: z.number().min(0).max(1).default(DEFAULT_AUDITOR.sigmaJ),
  /** Per-call calibration offset σ_b, pointwise calls only. */
  sigmaB: z.number().min(0).max(1).default(DEFAULT_AUDITOR.sigmaB),
  /** Groupwise tie margin δ. */
  delta: z.number().min(0).max(1).default(DEFAULT_AUDITOR.delta),
});
export type JudgeConfig = z.infer<typeof JudgeSchema>;

/** How the page shows each judge setting, and which judge calls read it. */
export const JUDGE_FIELDS: Readonly<
  Record<
    keyof JudgeConfig,
    { label: string; short: string; tip: string; usedBy: readonly JudgeKind[]; sliderMax: number }
  >
> = {
  sigmaJ: {
    label: "σ_j (perception noise)",
    short: "σ_j",
    tip: "Per-candidate noise on the judge's score: how well the judge 'sees' each rollout.",
    usedBy: ["pointwise", "groupwise"],
    sliderMax: 0.5,
  },
  sigmaB: {
    label: "σ_b (per-call offset)",
    short: "σ_b",
    tip: "Pointwise calls only: each call applies its own calibration offset. This is why pointwise judging is less stable; set it to 0 and the groupwise advantage should vanish.",
    usedBy: ["pointwise"],
    sliderMax: 0.5,
  },
  delta: {
    label: "δ (tie margin)",
    short: "δ",
    tip: "Groupwise calls only: candidates whose noisy scores differ by less than δ share a tier (a tie).",
    usedBy: ["groupwise"],
    sliderMax: 0.5,
  },
};

/** What a scorer gets for one group of one prompt. */
interface VariantScoreArgs<W> {
  prompt: TaskPrompt;
  /** The G rollout texts of the prompt. */
  texts: readonly string[];
  /** The variant's weights, parsed by its schema. */
  weights: W;
  judge: JudgeConfig;
  /** Seeded randomness of the judge's noise, shared by the groups of a batch. */
  rng: Rng;
}

/** Where a variant's formula comes from. */
interface VariantSource {
  /** The paper, by title. */
  paper: string;
  /** Section and equation in the paper (and the lab's reward-spec section). */
  where: string;
}

/** An entry as written in the table: its scorer sees its own typed weights. */
interface VariantSpec<N extends string, S extends z.ZodObject> {
  name: N;
  label: string;
  /** Line colour on every chart. */
  color: string;
  /** The reward as the page shows it, one line per row. */
  formula: readonly string[];
  source: VariantSource;
  /** One sentence for a teacher: what the reward pays for. */
  blurb: string;
  /** Weight schema (strict: an unknown key is an error naming it), defaults filled in. */
  weights: S;
  /** Page label, tip, slider range and paper value of every weight. */
  weightInfo: { readonly [K in keyof z.output<S>]-?: WeightInfo };
  judge: JudgeKind;
  passes: readonly GenerationPass[];
  /** Estimator the variant trains with unless set (absent: the algorithm's). */
  estimator?: EstimatorName;
  /** KL coefficient β unless set (absent: the algorithm's). */
  beta?: number;
  score(args: VariantScoreArgs<z.output<S>>): GroupScore;
}

/** A table entry, its weights typed loosely so every entry has the same shape. */
export interface VariantEntry<N extends string = string> {
  name: N;
  label: string;
  color: string;
  formula: readonly string[];
  source: VariantSource;
  blurb: string;
  weights: z.ZodType<Record<string, WeightValue>, Record<string, unknown>>;
  weightInfo: Readonly<Record<string, WeightInfo>>;
  judge: JudgeKind;
  passes: readonly GenerationPass[];
  estimator?: EstimatorName;
  beta?: number;
  /**
   * Scores one group: per-rollout totals and components, judge calls and
   * failures, tiers. Never throws on rollout text.
   * @throws ZodError when `weights` does not fit the variant's schema.
   */
  score(args: VariantScoreArgs<Readonly<Record<string, unknown>>>): GroupScore;
}

function defineVariant<const N extends string, S extends z.ZodObject>(
  spec: VariantSpec<N, S>,
): VariantEntry<N> {
  const { score, weights, weightInfo, ...rest } = spec;
  return {
    ...rest,
    weights: weights as unknown as VariantEntry["weights"],
    weightInfo: weightInfo as Readonly<Record<string, WeightInfo>>,
    score: (args) => score({ ...args, weights: weights.parse(args.weights) }),
  };
}

const LAMBDA = z.number().min(0).max(10).default(DEFAULT_LAMBDA);
const LAMBDA_INFO: WeightInfo = {
  kind: "number",
  label: "λ (auxiliary weight)",
  short: "λ",
  tip: "Weight of the reasoning term added to the verifier reward. Paper value 1 (GRR §4.1).",
  paper: 1,
  sliderMax: 3,
};
const STRUCT_WEIGHT = (value: number) => z.number().min(0).max(10).default(value);
const GRR_PAPER = "“Prioritizing the Best: Groupwise Ranking Reward” (GRR)";

/** The variants, in the order the page lists them (and colours stay put). */
export const VARIANT_TABLE = [
  defineVariant({
    name: "rlvr",
    label: "RLVR",
    color: "#5f6b7a",
    formula: ["R = r_ver", "r_ver = 1[final answer ≡ ground truth]"],
    source: {
      paper: GRR_PAPER,
      where: "outcome-only baseline, GRR §2 (r_aux = 0); docs/reward-spec.md §2",
    },
    blurb:
      "Rewards only the final answer. Nothing checks the reasoning, so a lucky answer with wrong steps is rewarded too.",
    weights: z.strictObject({}),
    weightInfo: {},
    judge: "none",
    passes: [],
    score: ({ prompt, texts }) => scoreRLVR(prompt, texts),
  }),
  defineVariant({
    name: "pointwise-gr",
    label: "Pointwise GR",
    color: "#e08a1e",
    formula: [
      "R = r_ver + λ·judge score",
      "judge score ∈ {1, .8, .5, .2, 0}, one judge call per rollout",
    ],
    source: {
      paper: GRR_PAPER,
      where: "pointwise generative reward baseline, GRR §2; docs/reward-spec.md §2",
    },
    blurb:
      "A judge scores each rollout's reasoning on its own. Each call has its own calibration offset (σ_b), which makes the reward noisier.",
    weights: z.strictObject({ lambda: LAMBDA }),
    weightInfo: { lambda: LAMBDA_INFO },
    judge: "pointwise",
    passes: [],
    score: ({ prompt, texts, weights, judge, rng }) =>
      scorePointwiseGR(
        prompt,
        texts,
        { judge: createAuditorJudge(judge), lambda: weights.lambda },
        rng,
      ),
  }),
  defineVariant({
    name: "grr",
    label: "GRR",
    color: "#2a7de1",
    formula: [
      "R = r_ver + λ·r_rank",
      "r_rank = s̃ − mean s̃ (over the K passed rollouts)",
      "s̃ = (b + c/2)/(K−1)  (b: ranked lower, c: tied)",
    ],
    source: {
      paper: GRR_PAPER,
      where: "GRR §3, eq. 6–7 (PCS, centred over I+); docs/reward-spec.md §2",
    },
    blurb:
      "One judge call ranks all passed rollouts of a group into tiers; only the relative order matters, so a per-call offset cancels.",
    weights: z.strictObject({
      lambda: LAMBDA,
      mapping: z.enum(RANK_MAPPINGS).default("pcs"),
    }),
    weightInfo: {
      lambda: LAMBDA_INFO,
      mapping: {
        kind: "choice",
        label: "GRR tier → score mapping",
        short: "mapping",
        tip: "How judge tiers become scores. PCS is the paper's; EDN, TRS, IRN are its ablations. All are centred over the passed rollouts.",
        paper: "pcs",
        options: [
          {
            value: "pcs",
            label: "PCS: pairwise comparison score (paper)",
            formula: "s̃ = (b + c/2)/(K−1)",
          },
          {
            value: "edn",
            label: "EDN: exponential decay by tier",
            formula: "γ^(m−1), γ = 0.5 (lab choice), min–max normalized",
          },
          { value: "trs", label: "TRS: evenly spaced tiers", formula: "(M − m)/(M − 1)" },
          { value: "irn", label: "IRN: inverse rank", formula: "1/rank, min–max normalized" },
        ],
      },
    },
    judge: "groupwise",
    passes: [],
    score: ({ prompt, texts, weights, judge, rng }) =>
      scoreGRR(
        prompt,
        texts,
        { judge: createAuditorJudge(judge), lambda: weights.lambda, mapping: weights.mapping },
        rng,
      ),
  }),
  defineVariant({
    name: "structreward",
    label: "StructReward",
    color: "#2e9e5b",
    formula: [
      "R = λ_fmt R_fmt + λ_right R_right + λ_rule R_right R_rule (1 + λ_cons R_cons)",
      "max 1.2125 with the defaults",
    ],
    source: {
      paper: "“StructReward: structured process rewards”",
      where:
        "StructReward §3 (reward), §4.1 (weights), eq. 11 (GRPO-stable, β = 1e-3); docs/reward-spec.md §3",
    },
    blurb:
      "Checks the structure: format, right answer, steps that match the reference steps, and a final answer consistent with the last step.",
    weights: z.strictObject({
      fmt: STRUCT_WEIGHT(STRUCT_DEFAULT_WEIGHTS.fmt),
      right: STRUCT_WEIGHT(STRUCT_DEFAULT_WEIGHTS.right),
      rule: STRUCT_WEIGHT(STRUCT_DEFAULT_WEIGHTS.rule),
      cons: STRUCT_WEIGHT(STRUCT_DEFAULT_WEIGHTS.cons),
    }),
    weightInfo: {
      fmt: {
        kind: "number",
        label: "λ_fmt (format)",
        short: "λ_fmt",
        tip: "Weight of R_fmt. Paper value 0.10.",
        paper: 0.1,
        sliderMax: 1,
      },
      right: {
        kind: "number",
        label: "λ_right (answer)",
        short: "λ_right",
        tip: "Weight of R_right. Paper value 0.25.",
        paper: 0.25,
        sliderMax: 1,
      },
      rule: {
        kind: "number",
        label: "λ_rule (steps)",
        short: "λ_rule",
        tip: "Weight of R_right·R_rule: matched reference steps count only when the answer is right. Paper value 0.75.",
        paper: 0.75,
        sliderMax: 2,
      },
      cons: {
        kind: "number",
        label: "λ_cons (consistency)",
        short: "λ_cons",
        tip: "Bonus factor (1 + λ_cons·R_cons) when the final answer equals the last step's result. Paper value 0.15.",
        paper: 0.15,
        sliderMax: 1,
      },
    },
    judge: "none",
    passes: [],
    // StructReward is optimized with GRPO-stable and β = 1e-3 (StructReward eq. 11, docs/reward-spec.md §3).
    estimator: "grpo-stable",
    beta: 1e-3,
    score: ({ prompt, texts, weights }) => scoreStructReward(prompt, texts, { weights }),
  }),
] as const;

/** Name of a variant ("grr"): an entry of VARIANT_TABLE. */
export type VariantName = (typeof VARIANT_TABLE)[number]["name"];

/** The variant names in table order (a non-empty tuple, as z.enum wants). */
export const VARIANT_NAMES = VARIANT_TABLE.map((v) => v.name) as unknown as [
  VariantName,
  ...VariantName[],
];

/** Whether `name` is a variant of the table. */
export function isVariantName(name: string): name is VariantName {
  return (VARIANT_NAMES as readonly string[]).includes(name);
}

/**
 * The table entry of `name`.
 * @throws Error naming the unknown variant and the known ones.
 */
export function variantEntry(name: string): VariantEntry<VariantName> {
  const e = VARIANT_TABLE.find((v) => v.name === name);
  if (!e) throw new Error(`unknown variant '${name}'; known: ${VARIANT_NAMES.join(", ")}`);
  return e;
}
