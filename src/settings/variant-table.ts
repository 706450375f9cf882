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
  createJudge,
  DEFAULT_JUDGE_NAME,
  JUDGE_DEFAULTS,
  JUDGE_NAMES,
  DEFAULT_LAMBDA,
  RANK_MAPPINGS,
  scoreGRR,
  scorePointwiseGR,
  scoreRLVR,
  scoreStructReward,
  scorePRMMean,
  scoreSCS,
  scoreSCSBaseline,
  scoreACRE,
  scoreAcreBaseline,
  SCS_NOISE_RANGE,
  ACRE_DEFAULT_ALPHAS,
  STRUCT_DEFAULT_WEIGHTS,
  scoreUserReward,
  USER_REWARD_DEFAULT_CODE,
  USER_REWARD_MAX_CHARS,
  type GroupScore,
  type Rng,
  type SandboxEngine,
} from "../rewards/index";
import type { TaskPrompt } from "../tasks/types";
import type { EstimatorName } from "./estimator-table";
import type { AuxConfig } from "./aux-config";
import { numberRanges, type NumberRange } from "./number-ranges";

/** Which judge a variant calls: none, one call per rollout, or one call per group (GRR §2–§3). */
export type JudgeKind = "none" | "pointwise" | "groupwise";

/**
 * Generation a variant's reward needs beyond the G rollouts of a step:
 * SCS resamples continuations from truncated rollouts (SCS §3), ACRE re-asks
 * with the options shuffled (ACRE §3). The RL step refuses a variant whose
 * passes it does not run.
 */
type GenerationPass = "truncated-continuations" | "option-shuffle-reask";

/**
 * What the generation passes produced for one group (src/rl/passes.ts), one
 * entry per rollout of the group; absent for a variant without passes.
 */
export interface GroupPasses {
  /** SCS: the m continuation texts of each rollout (kept prefix + continuation). */
  continuations?: string[][];
  /** SCS: response tokens each rollout kept before resampling, floor(k·L). */
  keptTokens?: number[];
  /** SCS: the noise level σ of each continuation of each rollout. */
  sigmas?: number[][];
  /**
   * ACRE: each rollout's second response (its trace up to `</think>`, then
   * the answer asked with the shuffled options), null when the rollout had no
   * `</think>`; and the options of that second ask.
   */
  reask?: { texts: (string | null)[]; options: Record<string, string>[] };
}

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
      /**
       * Upper end of the page's slider where it is narrower than the schema's
       * maximum (the URL, the CLI's `--set` and a fork take the schema's whole
       * range); absent: the schema's maximum. The slider's lower end and its
       * step (1 for an integer weight, else 0.01) come from the schema too
       * (VariantEntry.ranges).
       */
      pageMax?: number;
    }
  | {
      kind: "choice";
      label: string;
      short: string;
      tip: string;
      paper: string;
      options: readonly ChoiceOption[];
    }
  /** A written reward's code: the page's editor, not a slider; a fork keeps it. */
  | { kind: "code"; label: string; short: string; tip: string };

/**
 * The judge a variant calls and its noise (docs/reward-spec.md §2 "The lab's
 * judges", lab choice): `name` text-auditor (GRR App. B.1's judges as
 * text-only rubric auditors, the default) or oracle-auditor (the earlier
 * judge that knows the true digits); defaults = JUDGE_DEFAULTS of
 * src/rewards/judges.ts for the text auditor. Every variant carries it; only
 * variants with a judge read it.
 */
export const JudgeSchema = z.object({
  name: z.enum(JUDGE_NAMES).default(DEFAULT_JUDGE_NAME),
  /** Perception noise σ_j (score units, [0, 1] scale). */
  sigmaJ: z.number().min(0).max(1).default(JUDGE_DEFAULTS[DEFAULT_JUDGE_NAME].sigmaJ),
  /** Calibration offset σ_b, one per judge call. */
  sigmaB: z.number().min(0).max(1).default(JUDGE_DEFAULTS[DEFAULT_JUDGE_NAME].sigmaB),
  /** Groupwise tie margin δ (oracle-auditor only). */
  delta: z.number().min(0).max(1).default(JUDGE_DEFAULTS[DEFAULT_JUDGE_NAME].delta),
});
export type JudgeConfig = z.infer<typeof JudgeSchema>;
/** The judge's numeric settings (the page's sliders). */
export type JudgeNoiseKey = Exclude<keyof JudgeConfig, "name">;
/** Range of each judge noise setting, from JudgeSchema (the page's sliders read it). */
export const JUDGE_RANGES = numberRanges(JudgeSchema) as Readonly<
  Record<JudgeNoiseKey, NumberRange>
>;

/** How the page shows each judge noise setting, and which judge calls read it. */
export const JUDGE_FIELDS: Readonly<
  Record<
    JudgeNoiseKey,
    {
      label: string;
      short: string;
      tip: string;
      usedBy: readonly JudgeKind[];
      /** Upper end of the page's slider, narrower than JudgeSchema's maximum (1): lab choice. */
      pageMax: number;
    }
  >
> = {
  sigmaJ: {
    label: "σ_j (perception noise)",
    short: "σ_j",
    tip: "Noise on how the judge perceives each distinct response in a call; identical responses share it.",
    usedBy: ["pointwise", "groupwise"],
    pageMax: 0.5,
  },
  sigmaB: {
    label: "σ_b (per-call offset)",
    short: "σ_b",
    tip: "Each judge call applies its own calibration offset. Pointwise makes one call per rollout, groupwise one per group, whose candidates share it: this is why pointwise judging is less stable (GRR §4.3.4).",
    usedBy: ["pointwise", "groupwise"],
    pageMax: 0.5,
  },
  delta: {
    label: "δ (tie margin, oracle auditor only)",
    short: "δ",
    tip: "The earlier oracle auditor only: candidates whose noisy scores differ by less than δ share a tier. The text auditor ties candidates at the same anchored level.",
    usedBy: ["groupwise"],
    pageMax: 0.5,
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
  /** The group's generation-pass results (the entry's `passes`); {} when it has none. */
  passes: GroupPasses;
  /**
   * The learned PRM's step scores of each rollout of the group (scores[i][k]
   * ∈ [0, 1] for step k of rollout i), for an entry with `prm: true`; absent
   * otherwise.
   */
  stepScores?: readonly (readonly number[])[];
  /** The loaded reward sandbox, for an entry with `sandboxed: true`; absent otherwise. */
  sandbox?: SandboxEngine;
}

/** Where a variant's formula comes from. */
interface VariantSource {
  /** The paper, by title. */
  paper: string;
  /** Section and equation in the paper (and the lab's reward-spec section). */
  where: string;
}

/**
 * SCS's truncated-continuations pass settings (src/rl/passes.ts), from the
 * scs weights: truncation ratio k ∈ [0, 1], continuations per rollout m,
 * and the per-continuation image-noise range σ ∈ [sigmaMin, sigmaMax]
 * (SCS §3, Alg. 1, eq. 9; Tab. 6–9). Checked by the weights schema.
 */
export interface ContinuationSettings {
  k: number;
  m: number;
  sigmaMin: number;
  sigmaMax: number;
  /**
   * Greedy continuations (the perturbation-only ablation arm: they differ only
   * through their images); absent or false: sampled at the step's temperature.
   */
  greedy?: boolean;
}

/** An entry as written in the table: its scorer sees its own typed weights. */
interface VariantSpec<N extends string, S extends z.ZodObject> {
  name: N;
  label: string;
  /**
   * Line colour on every chart: the Okabe–Ito palette ("Color Universal
   * Design", Okabe and Ito 2008), so that every pair stays apart under
   * protanopia, deuteranopia and tritanopia (test/ui/color-vision.test.ts).
   */
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
  /**
   * The variant reads the learned PRM's step scores (docs/reward-spec.md §2):
   * its requests carry the prompts' images and the reward side runs the PRM
   * before the scorer. Absent: false.
   */
  prm?: boolean;
  /** The reward is written code run in the sandbox (src/rewards/sandbox.ts), loaded before the scorer. */
  sandboxed?: boolean;
  /** Estimator the variant trains with unless set (absent: the algorithm's). */
  estimator?: EstimatorName;
  /**
   * Weights whose paper value depends on the estimator (SCS Tab. 6–9: k and
   * m): the values for `estimator`, filled in where the experiment gives none.
   */
  estimatorWeights?(estimator: EstimatorName): Partial<z.output<S>>;
  /** KL coefficient β unless set (absent: the algorithm's). */
  beta?: number;
  /** The auxiliary step after the policy update, from the weights (StructReward §3.3–3.4); null or absent: none. */
  auxiliary?(weights: z.output<S>): AuxConfig | null;
  /** The truncated-continuations pass settings from the weights (an entry with that pass). */
  continuations?(weights: z.output<S>): ContinuationSettings;
  score(args: VariantScoreArgs<z.output<S>>): GroupScore;
}

/**
 * A table entry with weights of type W (the output of its schema). The
 * scorer, the auxiliary step and the pass settings take W as parsed once,
 * where a setting enters the trainer (VariantSchema, applyVariantPatch in
 * ./variant-settings.ts): none of them parses or range-checks it again.
 */
export interface VariantEntry<N extends string = string, W = unknown> {
  name: N;
  label: string;
  color: string;
  formula: readonly string[];
  source: VariantSource;
  blurb: string;
  /** The weights schema: the one check of a weight's type and range. */
  weights: z.ZodType<W>;
  weightInfo: Readonly<Record<string, WeightInfo>>;
  /** Range of every number weight, from the schema (the page's sliders and fields read it). */
  ranges: Readonly<Record<string, NumberRange>>;
  judge: JudgeKind;
  passes: readonly GenerationPass[];
  prm?: boolean;
  sandboxed?: boolean;
  estimator?: EstimatorName;
  /** Weights whose paper value depends on the estimator, for `estimator` (VariantSpec.estimatorWeights). */
  estimatorWeights?(estimator: EstimatorName): Partial<W>;
  beta?: number;
  /**
   * The auxiliary step the RL step runs after the policy update (../rl/aux-step.ts),
   * or null; absent for a variant without one.
   */
  auxiliary?(weights: W): AuxConfig | null;
  /** The truncated-continuations pass settings (an entry whose `passes` has it). */
  continuations?(weights: W): ContinuationSettings;
  /**
   * Scores one group: per-rollout totals and components, judge calls and
   * failures, tiers. Never throws on rollout text.
   */
  score(args: VariantScoreArgs<W>): GroupScore;
}

function defineVariant<const N extends string, S extends z.ZodObject>(
  spec: VariantSpec<N, S>,
): VariantEntry<N, z.output<S>> {
  return {
    ...spec,
    // z.output<S> is what S parses to; zod's class type does not say so for a generic S.
    weights: spec.weights as unknown as z.ZodType<z.output<S>>,
    weightInfo: spec.weightInfo as Readonly<Record<string, WeightInfo>>,
    ranges: numberRanges(spec.weights),
  };
}

const LAMBDA = z.number().min(0).max(10).default(DEFAULT_LAMBDA);
const LAMBDA_INFO: WeightInfo = {
  kind: "number",
  label: "λ (auxiliary weight)",
  short: "λ",
  tip: "Weight of the reasoning term added to the verifier reward. Paper value 1 (GRR §4.1).",
  paper: 1,
  pageMax: 3,
};
const STRUCT_WEIGHT = (value: number) => z.number().min(0).max(10).default(value);
/**
 * StructReward's auxiliary options (StructReward §3.3–3.4): on in the
 * paper; off by default here, so the lab's default runs (and the figures in
 * docs/results.md, measured without them) stay as they were (lab choice).
 */
const ON_OFF = z.enum(["off", "on"]).default("off");
/** The auxiliary step's learning rate / the RL one: the paper gives none; lab choice (docs/reward-spec.md §3). */
const AUX_LR_DEFAULT = 0.1;
const onOffInfo = (
  label: string,
  short: string,
  tip: string,
  formulas: { off: string; on: string },
): WeightInfo => ({
  kind: "choice",
  label,
  short,
  tip,
  paper: "on",
  options: [
    { value: "off", label: "off", formula: formulas.off },
    { value: "on", label: "on (paper)", formula: formulas.on },
  ],
});
/** ACRE eq. 7's length reward weights, shared by ACRE and its baseline (lab interval, docs/reward-spec.md §5). */
const ACRE_LENGTH_WEIGHTS = {
  omega: z.number().min(0).max(10).default(0.2),
  lMin: z.number().int().min(0).max(1000).default(20),
  lMax: z.number().int().min(0).max(1000).default(32),
};

/** The page's text for ACRE_LENGTH_WEIGHTS. */
const ACRE_LENGTH_INFO: Record<"omega" | "lMin" | "lMax", WeightInfo> = {
  omega: {
    kind: "number",
    label: "ω (length reward)",
    short: "ω",
    tip: "Paid to a right answer whose response is l_min–l_max words long (ACRE eq. 7). Paper 0.2.",
    paper: 0.2,
    pageMax: 1,
  },
  lMin: {
    kind: "number",
    label: "l_min (words)",
    short: "l_min",
    tip: "Shortest response the length reward pays. Paper 320 tokens; the lab's full trace is 24 words, so 20 (lab choice).",
    paper: 20,
    pageMax: 64,
  },
  lMax: {
    kind: "number",
    label: "l_max (words)",
    short: "l_max",
    tip: "Longest response the length reward pays. Paper 512 tokens; 32 words here (lab choice).",
    paper: 32,
    pageMax: 64,
  },
};

/** The page's text for the user variant's code. */
const USER_CODE_INFO: WeightInfo = {
  kind: "code",
  label: "Your reward (JavaScript)",
  short: "code",
  tip: "function reward(group) returns one number per rollout, or named arrays summed with your `weights`.",
};

const GRR_PAPER = "“Prioritizing the Best: Groupwise Ranking Reward” (GRR)";

/**
 * SCS's truncation ratio k and continuations m per estimator (SCS App. A):
 * RLOO 0.8 / 4 (Tab. 6), GRPO 0.4 / 8 (Tab. 7), REINFORCE++-baseline 0.8 / 4
 * (Tab. 8), REINFORCE++ 0.8 / 8 (Tab. 9). GRPO-stable, which SCS does not
 * run, takes RLOO's, the headline setting (lab choice). Tab. 11 puts the
 * Tab. 2 GRPO score at (0.4, 6); the lab follows Tab. 7.
 */
export function scsPaperSettings(estimator: EstimatorName): { k: number; m: number } {
  switch (estimator) {
    case "grpo":
      return { k: 0.4, m: 8 };
    case "reinforce++":
      return { k: 0.8, m: 8 };
    case "rloo":
    case "reinforce++-baseline":
    case "grpo-stable":
      return { k: 0.8, m: 4 };
  }
}

/** The variants, in the order the page lists them (and colours stay put). */
export const VARIANT_TABLE = [
  defineVariant({
    name: "rlvr",
    label: "RLVR",
    color: "#555555",
    formula: ["R = r_ver", "r_ver = 1[final answer ≡ ground truth]"],
    source: {
      paper: GRR_PAPER,
      where:
        "outcome-only baseline, GRR §3.1 eq. 2 (r_ver), §3.3 eq. 8 with r_aux = 0; docs/reward-spec.md §2",
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
    name: "prm",
    label: "PRM",
    color: "#e69f00",
    formula: [
      "R = r_ver + λ·mean_k s_k",
      "s_k = min over tokens t of steps 1..k of p_PRM(t | image, prompt, earlier tokens)",
    ],
    source: {
      paper: GRR_PAPER,
      where:
        "process reward model baseline, GRR §3.2 eq. 3 (Agg = mean, §4.1), App. B.1; docs/reward-spec.md §2",
    },
    blurb:
      "A small learned model (the PRM) reads the image and the trace and scores each step; the reward adds the mean step score. It is frozen: as the policy drifts from the traces it was trained on, its scores can mislead.",
    weights: z.strictObject({ lambda: LAMBDA }),
    weightInfo: { lambda: LAMBDA_INFO },
    judge: "none",
    passes: [],
    prm: true,
    score: ({ prompt, texts, weights, stepScores }) => {
      if (!stepScores) throw new Error("prm: the PRM gave no step scores");
      if (stepScores.length !== texts.length)
        throw new Error(`prm: ${stepScores.length} step-score lists for ${texts.length} rollouts`);
      return scorePRMMean(prompt, texts, {
        prm: ({ text }) => stepScores[texts.indexOf(text)],
        lambda: weights.lambda,
      });
    },
  }),
  defineVariant({
    name: "pointwise-gr",
    label: "Pointwise GR",
    color: "#cc79a7",
    formula: [
      "R = r_ver + λ·judge score",
      "judge score ∈ {1, .8, .5, .2, 0}, one judge call per rollout",
    ],
    source: {
      paper: GRR_PAPER,
      where:
        "pointwise generative reward baseline, GRR §3.2 eq. 4, App. B.1 (anchored levels); docs/reward-spec.md §2",
    },
    blurb:
      "A text-only judge scores each rollout's reasoning on its own, on five anchored levels, without the reference answer or the image. Each call has its own calibration offset (σ_b), which makes the reward noisier.",
    weights: z.strictObject({ lambda: LAMBDA }),
    weightInfo: { lambda: LAMBDA_INFO },
    judge: "pointwise",
    passes: [],
    score: ({ prompt, texts, weights, judge, rng }) =>
      scorePointwiseGR(prompt, texts, { judge: createJudge(judge), lambda: weights.lambda }, rng),
  }),
  defineVariant({
    name: "grr",
    label: "GRR",
    color: "#0072b2",
    formula: [
      "R = r_ver + λ·r_rank",
      "r_rank = s̃ − mean s̃ (over the K passed rollouts)",
      "s̃ = (b + c/2)/(K−1)  (b: ranked lower, c: tied)",
    ],
    source: {
      paper: GRR_PAPER,
      where:
        "GRR §3.2, eq. 5–7 (tiers, PCS, centred over I+), App. B.1 (tie-aware ranking); docs/reward-spec.md §2",
    },
    blurb:
      "One judge call ranks all passed rollouts of a group into tiers, ties kept; its candidates share the call's one standard, so a per-call offset moves them together.",
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
        { judge: createJudge(judge), lambda: weights.lambda, mapping: weights.mapping },
        rng,
      ),
  }),
  defineVariant({
    name: "structreward",
    label: "StructReward",
    color: "#009e73",
    formula: [
      "R = λ_fmt R_fmt + λ_right R_right + λ_rule R_right R_rule (1 + λ_cons R_cons)",
      "max 1.2125 with the defaults",
    ],
    source: {
      paper: "“StructReward: structured process rewards”",
      where:
        "StructReward Method, “Structured Reward Design” eq. 10 (reward and weights), “Stable Group-Relative Policy Optimization” eq. 11 (GRPO-stable); Experiments, “Optimization” (β = 1e-3); docs/reward-spec.md §3",
    },
    blurb:
      "Checks the structure: format, right answer, steps that match the reference steps, and a final answer consistent with the last step.",
    weights: z.strictObject({
      fmt: STRUCT_WEIGHT(STRUCT_DEFAULT_WEIGHTS.fmt),
      right: STRUCT_WEIGHT(STRUCT_DEFAULT_WEIGHTS.right),
      rule: STRUCT_WEIGHT(STRUCT_DEFAULT_WEIGHTS.rule),
      cons: STRUCT_WEIGHT(STRUCT_DEFAULT_WEIGHTS.cons),
      recycle: ON_OFF,
      hardNegatives: ON_OFF,
      auxLr: z.number().min(0).max(10).default(AUX_LR_DEFAULT),
    }),
    weightInfo: {
      fmt: {
        kind: "number",
        label: "λ_fmt (format)",
        short: "λ_fmt",
        tip: "Weight of R_fmt. Paper value 0.10.",
        paper: 0.1,
        pageMax: 1,
      },
      right: {
        kind: "number",
        label: "λ_right (answer)",
        short: "λ_right",
        tip: "Weight of R_right. Paper value 0.25.",
        paper: 0.25,
        pageMax: 1,
      },
      rule: {
        kind: "number",
        label: "λ_rule (steps)",
        short: "λ_rule",
        tip: "Weight of R_right·R_rule: matched reference steps count only when the answer is right. Paper value 0.75.",
        paper: 0.75,
        pageMax: 2,
      },
      cons: {
        kind: "number",
        label: "λ_cons (consistency)",
        short: "λ_cons",
        tip: "Bonus factor (1 + λ_cons·R_cons) when the final answer equals the last step's result. Paper value 0.15.",
        paper: 0.15,
        pageMax: 1,
      },
      recycle: onOffInfo(
        "Rollout recycling",
        "recycle",
        "After the update, train the policy on its own rollouts as judgments: 'is this response correct?' (Correct/Incorrect) and 'which of a correct and an incorrect rollout is correct?' (A/B), target cross-entropy (StructReward §3.3). On in the paper; off by default here.",
        {
          off: "rollouts not recycled (the paper recycles them)",
          on: "+ L_recycle after the update: CE on Correct/Incorrect and A/B",
        },
      ),
      hardNegatives: onOffInfo(
        "Hard negatives",
        "hard negatives",
        "After the update, rewrite one step of each answer-correct rollout and train the policy to find it ('Incorrect Step k') and to choose the original over the rewrite (StructReward §3.4). On in the paper; off by default here.",
        {
          off: "no hard negatives (the paper trains them)",
          on: "+ L_hard after the update: CE on 'Incorrect Step k' and A/B",
        },
      ),
      auxLr: {
        kind: "number",
        label: "η_aux / η (auxiliary learning rate)",
        short: "η_aux",
        tip: "Learning rate of the auxiliary cross-entropy step as a multiple of the RL learning rate. The paper gives no weight or schedule; 0.1 is the lab's choice (on the drift preset, 1 lost the strict format within 10 steps on both seeds tried, 0.1 kept it).",
        paper: AUX_LR_DEFAULT,
        pageMax: 1,
      },
    },
    judge: "none",
    passes: [],
    // StructReward is optimized with GRPO-stable and β = 1e-3 (StructReward eq. 11, docs/reward-spec.md §3).
    estimator: "grpo-stable",
    beta: 1e-3,
    auxiliary: (w) =>
      w.recycle === "on" || w.hardNegatives === "on"
        ? { recycle: w.recycle === "on", hardNegatives: w.hardNegatives === "on", lrScale: w.auxLr }
        : null,
    score: ({ prompt, texts, weights: w }) =>
      scoreStructReward(prompt, texts, {
        weights: { fmt: w.fmt, right: w.right, rule: w.rule, cons: w.cons },
      }),
  }),
  defineVariant({
    name: "scs",
    label: "SCS",
    color: "#56b4e9",
    formula: [
      "R = r_fmt + r_acc + r_con",
      "r_con = c·(m − |𝒜|)/m, 𝒜 = answers of m continuations",
      "each from the first ⌊k·L⌋ tokens, image + N(0, σ²), σ ~ U(σ_min, σ_max)",
    ],
    source: {
      paper: "“Self-Consistency Sampling” (SCS)",
      where:
        "SCS §3, Alg. 1 and eq. 9 (perturbation); Tab. 6–9 (k, m per estimator; RLOO: k 0.8, m 4); docs/reward-spec.md §4",
    },
    blurb:
      "Cuts each rollout short, adds noise to the image and lets the policy finish it m times: a trace whose continuations agree on one answer is paid more, a lucky guess less.",
    weights: z
      .strictObject({
        c: z.number().min(0).max(10).default(1),
        form: z.enum(["paper", "released"]).default("paper"),
        // Defaults: RLOO's (Tab. 6); estimatorWeights gives each estimator's own (Tab. 6–9).
        k: z.number().min(0).max(1).default(scsPaperSettings("rloo").k),
        m: z.number().int().min(1).max(16).default(scsPaperSettings("rloo").m),
        sigmaMin: z.number().min(0).max(1).default(SCS_NOISE_RANGE.min),
        sigmaMax: z.number().min(0).max(1).default(SCS_NOISE_RANGE.max),
        // How the continuations are decoded: sampled (SCS Alg. 1), or greedy (the
        // perturbation-only ablation arm, docs/reward-spec.md §4.3).
        resample: z.enum(["sample", "greedy"]).default("sample"),
      })
      .refine((w) => w.sigmaMin <= w.sigmaMax, {
        message: "sigmaMin must be <= sigmaMax",
        path: ["sigmaMin"],
      }),
    weightInfo: {
      c: {
        kind: "number",
        label: "c (consistency weight)",
        short: "c",
        tip: "Scale of r_con. The paper does not give it; 1 is the lab's choice.",
        paper: 1,
        pageMax: 3,
      },
      form: {
        kind: "choice",
        label: "SCS form",
        short: "form",
        tip: "The paper's r_con, or the authors' released code (0.3·(5 − |𝒜|), half-weight format, the first capital letter of the final answer as the answer).",
        paper: "paper",
        options: [
          {
            value: "paper",
            label: "paper: c·(m − |𝒜|)/m",
            formula: "r_fmt + r_acc + c·(m − |𝒜|)/m",
          },
          {
            value: "released",
            label: "released code: 0.3·(5 − |𝒜|)",
            formula: "0.5·r_fmt + r_acc + 0.3·(5 − |𝒜|)",
          },
        ],
      },
      k: {
        kind: "number",
        label: "k (truncation ratio)",
        short: "k",
        tip: "Share of each rollout's response tokens kept before resampling. Paper 0.8 with RLOO, REINFORCE++ and REINFORCE++-baseline, 0.4 with GRPO (SCS Tab. 6–9); follows the estimator unless changed. In the lab's traces 0.8 keeps the digits read and the result (the option check and the letter are resampled), 0.4 resamples the second digit's reading; 0 (perturbation only) resamples everything.",
        paper: 0.8,
      },
      m: {
        kind: "number",
        label: "m (continuations)",
        short: "m",
        tip: "Continuations sampled from each kept prefix, in one batched pass. Paper 4 with RLOO and REINFORCE++-baseline, 8 with GRPO and REINFORCE++ (SCS Tab. 6–9); follows the estimator unless changed.",
        paper: 4,
        pageMax: 8,
      },
      sigmaMin: {
        kind: "number",
        label: "σ_min (image noise)",
        short: "σ_min",
        tip: "Lower end of the per-continuation pixel-noise level (pixels in [0, 1]). Released code: 0.01.",
        paper: SCS_NOISE_RANGE.min,
      },
      sigmaMax: {
        kind: "number",
        label: "σ_max (image noise)",
        short: "σ_max",
        tip: "Upper end of the per-continuation pixel-noise level. Released code: 0.40.",
        paper: SCS_NOISE_RANGE.max,
      },
      resample: {
        kind: "choice",
        label: "continuations",
        short: "resample",
        tip: "How the m continuations are decoded from the kept prefix: sampled at the rollout temperature (the paper), or greedy, so that they differ only through their noisy images (the perturbation-only ablation arm, SCS Tab. 4).",
        paper: "sample",
        options: [
          { value: "sample", label: "sampled (paper)", formula: "a_t ~ π(· | τ_<k, x̃_t), τ = 1" },
          {
            value: "greedy",
            label: "greedy (perturbation only)",
            formula: "a_t = argmax π(· | τ_<k, x̃_t)",
          },
        ],
      },
    },
    judge: "none",
    passes: ["truncated-continuations"],
    // SCS's headline result is with RLOO (SCS Tab. 2, Tab. 6).
    estimator: "rloo",
    estimatorWeights: scsPaperSettings,
    continuations: ({ k, m, sigmaMin, sigmaMax, resample }) => ({
      k,
      m,
      sigmaMin,
      sigmaMax,
      greedy: resample === "greedy",
    }),
    score: ({ prompt, texts, weights, passes }) => {
      if (!passes.continuations)
        throw new Error("scs: the truncated-continuations pass gave no continuations");
      return scoreSCS(prompt, texts, passes.continuations, { c: weights.c, form: weights.form });
    },
  }),
  defineVariant({
    name: "scs-baseline",
    label: "RLOO + format (SCS baseline)",
    color: "#000000",
    formula: ["R = r_fmt + r_acc", "RLOO, no KL term (β = 0)"],
    source: {
      paper: "“Self-Consistency Sampling” (SCS)",
      where:
        "SCS §4.1 (baselines: accuracy and format reward), Tab. 6 (RLOO, initial KL coef 0); docs/reward-spec.md §4.3",
    },
    blurb:
      "SCS's outcome-only baseline: paid for a well-formed response and a right option, whatever the reasoning; SCS adds only its consistency reward to it.",
    weights: z.strictObject({}),
    weightInfo: {},
    judge: "none",
    passes: [],
    // SCS Tab. 6: RLOO without a KL term (both arms); Tab. 7's GRPO arms set β 1e-3 per variant.
    estimator: "rloo",
    beta: 0,
    score: ({ prompt, texts }) => scoreSCSBaseline(prompt, texts),
  }),
  defineVariant({
    name: "acre",
    label: "ACRE",
    color: "#d55e00",
    formula: [
      "R = r_acc + r_fmt + r_c + r_len",
      "r_c = α1 agree & right, α2 one right, α3 agree & wrong, else 0",
      "2nd answer: options shuffled, same trace; compared by option content",
    ],
    source: {
      paper: "“Answer-Consistent Reinforcement Learning” (ACRE)",
      where: "ACRE §3, eq. 3 (r_c), eq. 7 (length reward), GRPO; docs/reward-spec.md §5",
    },
    blurb:
      "Asks the question again with the options shuffled and the same reasoning: an answer that follows the reasoning, not the letter position, picks the same content both times.",
    weights: z
      .strictObject({
        alpha1: z.number().min(0).max(10).default(ACRE_DEFAULT_ALPHAS[0]),
        alpha2: z.number().min(0).max(10).default(ACRE_DEFAULT_ALPHAS[1]),
        alpha3: z.number().min(0).max(10).default(ACRE_DEFAULT_ALPHAS[2]),
        ...ACRE_LENGTH_WEIGHTS,
      })
      .refine((w) => w.lMin <= w.lMax, { message: "lMin must be <= lMax", path: ["lMin"] }),
    weightInfo: {
      alpha1: {
        kind: "number",
        label: "α1 (agree, right)",
        short: "α1",
        tip: "r_c when both answers agree and are right. Paper 1.",
        paper: 1,
        pageMax: 2,
      },
      alpha2: {
        kind: "number",
        label: "α2 (one right)",
        short: "α2",
        tip: "r_c when the answers disagree and exactly one is right. Paper 0.9 (ablation 1, .9, .8, .7).",
        paper: 0.9,
        pageMax: 2,
      },
      alpha3: {
        kind: "number",
        label: "α3 (agree, wrong)",
        short: "α3",
        tip: "r_c when both answers agree and are wrong. Paper 0.3 (ablation 0, .3, .5).",
        paper: 0.3,
        pageMax: 2,
      },
      ...ACRE_LENGTH_INFO,
    },
    judge: "none",
    passes: ["option-shuffle-reask"],
    // ACRE is trained with GRPO (ACRE §3).
    estimator: "grpo",
    score: ({ prompt, texts, weights, passes }) => {
      if (!passes.reask) throw new Error("acre: the option-shuffle-reask pass gave no answers");
      return scoreACRE(
        prompt,
        texts,
        { texts: passes.reask.texts.map((t) => t ?? ""), options: passes.reask.options },
        {
          alphas: [weights.alpha1, weights.alpha2, weights.alpha3],
          length: { omega: weights.omega, lMin: weights.lMin, lMax: weights.lMax },
        },
      );
    },
  }),
  defineVariant({
    name: "acre-baseline",
    label: "GRPO + format + length",
    color: "#8c6d31",
    formula: ["R = r_acc + r_fmt + r_len", "ACRE's reward without r_c"],
    source: {
      paper: "“Answer-Consistent Reinforcement Learning” (ACRE)",
      where:
        "ACRE's baseline: r_i = accuracy + format (§3), eq. 7's length reward, GRPO; docs/reward-spec.md §5",
    },
    blurb:
      "ACRE's reward without its consistency term: the answer, the format and the length, nothing that re-asks. ACRE against this arm shows what the consistency term adds.",
    weights: z
      .strictObject(ACRE_LENGTH_WEIGHTS)
      .refine((w) => w.lMin <= w.lMax, { message: "lMin must be <= lMax", path: ["lMin"] }),
    weightInfo: ACRE_LENGTH_INFO,
    judge: "none",
    passes: [],
    estimator: "grpo",
    score: ({ prompt, texts, weights }) =>
      scoreAcreBaseline(prompt, texts, {
        length: { omega: weights.omega, lMin: weights.lMin, lMax: weights.lMax },
      }),
  }),
  defineVariant({
    name: "user",
    label: "Your reward",
    color: "#762a83",
    formula: [
      "R = reward(group)[i], or Σ_k w_k · reward(group)[k][i]",
      "your JavaScript, run per group in a sandbox",
    ],
    source: {
      paper: "no paper: the reward you write",
      where: "docs/reward-spec.md §8 (inputs, result, sandbox limits)",
    },
    blurb:
      "The reward you write in JavaScript. The policy optimises what it says, not what you meant: watch the reward-hacking checks.",
    weights: z.strictObject({
      code: z.string().max(USER_REWARD_MAX_CHARS).default(USER_REWARD_DEFAULT_CODE),
    }),
    weightInfo: { code: USER_CODE_INFO },
    judge: "none",
    passes: [],
    sandboxed: true,
    score: ({ prompt, texts, weights, sandbox }) => {
      if (!sandbox) throw new Error("user: the reward sandbox is not loaded");
      return scoreUserReward(sandbox, weights.code, prompt, texts);
    },
  }),
] as const;

/** An entry of VARIANT_TABLE with its own name and weights types. */
type TableEntry = (typeof VARIANT_TABLE)[number];

/** Name of a variant ("grr"): an entry of VARIANT_TABLE. */
export type VariantName = TableEntry["name"];

/**
 * The weights of variant N as its schema outputs them (`VariantWeightsOf<"grr">`
 * is `{ lambda: number; mapping: RankMapping }`): the one type a weight has
 * from the page's slider or the CLI's `--set` to the scorer and the passes.
 */
export type VariantWeightsOf<N extends VariantName> = WeightsOfEntry<
  Extract<TableEntry, { name: N }>
>;

/** The weights type of each entry of union E (distributes over E). */
type WeightsOfEntry<E> = E extends VariantEntry<string, infer W> ? W : never;

/** A weight name of variant N ("lambda"). */
export type WeightKey<N extends VariantName> = keyof VariantWeightsOf<N> & string;

/** Some of variant N's weights: what a slider or a fork field changes, checked at the trainer's entry. */
export type WeightPatch<N extends VariantName> = Partial<VariantWeightsOf<N>>;

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
export function variantEntry(name: string): TableEntry {
  const e = VARIANT_TABLE.find((v) => v.name === name);
  if (!e) throw new Error(`unknown variant '${name}'; known: ${VARIANT_NAMES.join(", ")}`);
  return e;
}

/**
 * The entry of variant `name` typed with its own weights, to call its
 * scorer, auxiliary step or pass settings with a config's weights. The
 * config's name and weights travel together (VariantConfig in ./experiment.ts
 * is a union over the names), and the entry found is the one named, so the
 * weights are the entry's own.
 * @throws Error naming an unknown variant.
 */
export function typedEntry<N extends VariantName>(name: N): VariantEntry<N, VariantWeightsOf<N>> {
  return variantEntry(name) as unknown as VariantEntry<N, VariantWeightsOf<N>>;
}

/**
 * The weights of variant `name` after its estimator changes from `from` to
 * `to`: each weight that depends on the estimator (VariantEntry.estimatorWeights)
 * and still has `from`'s value takes `to`'s; a weight the user changed stays.
 * @throws Error naming an unknown variant.
 */
export function retargetWeights<N extends VariantName, W extends WeightPatch<N>>(
  name: N,
  weights: W,
  from: EstimatorName | undefined,
  to: EstimatorName | undefined,
): W {
  const entry = variantEntry(name);
  const out: Record<string, unknown> = { ...weights };
  if (!entry.estimatorWeights || from === undefined || to === undefined) return out as W;
  const old: Record<string, unknown> = entry.estimatorWeights(from);
  const next: Record<string, unknown> = entry.estimatorWeights(to);
  if (!old || !next) return out as W; // an unknown estimator name: the schema names it later
  for (const [k, v] of Object.entries(next)) if (out[k] === old[k]) out[k] = v;
  return out as W;
}

/** Whether variant `name` re-asks with the options shuffled, so it needs a multiple-choice task (ACRE). */
export function needsOptions(name: string): boolean {
  return variantEntry(name).passes.includes("option-shuffle-reask");
}
