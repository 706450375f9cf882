/**
 * The papers' claims as the lab tests them: one table, read by the `claims`
 * CLI, its report and its test. Each claim names the paper's statement and
 * figure, what the lab measures per seed (a difference whose sign is the
 * paper's direction), which variants it needs, and how to plot it.
 *
 * A claim's per-seed figure is computed from the metric rows of one
 * multi-seed lab run (every variant trained from the same cold start under
 * each seed) or from the judge-stability sweep on that seed's rollouts.
 */
import { DEFAULT_AUDITOR } from "../rewards/auditor-judge";
import type { MetricRow } from "../run/run-types";
import type { VariantName } from "../settings/experiment";

/** Ids of the claims (fixed: the report, the README and the tests use them). */
const CLAIM_IDS = [
  "rlvr-drift",
  "grr-incr",
  "grr-rcacc",
  "groupwise-stability",
  "structreward-gain",
  "scs-gain",
  "scs-ablation",
  "acre-oscr",
  "acre-cacr",
] as const;
type ClaimId = (typeof CLAIM_IDS)[number];

/** One judge-stability measurement (GRR §4.3.4) of one seed. */
export interface StabilityPoint {
  sigmaB: number;
  sigmaJ: number;
  delta: number;
  pointwise: number;
  groupwise: number;
}

/** What a claim's per-seed figure is computed from. */
export interface ClaimInputs {
  /** Every metric row of the run (rows carry `seed`). */
  rows: readonly MetricRow[];
  /** Stability sweep per seed (only for claims that need it). */
  stability: ReadonlyMap<number, readonly StabilityPoint[]>;
}

/** A curve plot of a claim: one metric over RL steps, one series per variant (or arm label, ClaimRun). */
interface ClaimPlot {
  metric: string;
  variants: string[];
  yLabel: string;
}

/**
 * The multiple-choice runs the SCS and ACRE claims come from, each a preset
 * of src/settings/presets.ts (its task, cold start, variants and weights; the
 * sizes are the claims' size): `only` trains that one variant of the preset,
 * and its rows are labelled `label` instead of the variant's name (an
 * ablation arm beside the full run's variants; same cold start, seeds,
 * prompts and rollout seeds, so arms compare pairwise).
 */
export const CLAIM_RUNS = {
  scs: { preset: "scs-paper" },
  "scs-tr-only": { preset: "scs-tr-only", only: "scs", label: "scs-tr" },
  "scs-vp-only": { preset: "scs-vp-only", only: "scs", label: "scs-vp" },
  acre: { preset: "acre-paper" },
} as const satisfies Record<string, { preset: string; only?: VariantName; label?: string }>;
export type ClaimRun = keyof typeof CLAIM_RUNS;

/** One part of a claim with several: its own per-seed figure (the paper's direction positive). */
interface ClaimPart {
  /** What the part compares, e.g. "Acc: RLOO + SCS − RLOO". */
  label: string;
  /** @throws Error when a needed row is missing. */
  perSeed: (inputs: ClaimInputs, seed: number) => number;
}

export interface ClaimSpec {
  id: ClaimId;
  paper: string;
  statement: string;
  /** The paper's own figure, quoted. */
  paper_figure: string;
  /** What the lab figure is (units), for the report. */
  metric: string;
  /** +1: the paper's direction is a positive lab figure. */
  direction: 1 | -1;
  /** Variants the RL run must train for this claim (empty: no RL run). */
  variants: VariantName[];
  /** Needs the judge-stability sweep. */
  stability: boolean;
  /**
   * The runs the claim's figure comes from (their rows together): the default
   * scenario's (absent) or the SCS and ACRE scenarios' multiple-choice runs
   * (CLAIM_RUNS).
   */
  runs?: readonly ClaimRun[];
  /**
   * A claim of several inequalities: each part's per-seed figure; `perSeed`
   * is then their minimum (positive only when every part is), and the
   * verdict is reproduced only when every part is (intersection–union).
   */
  parts?: readonly ClaimPart[];
  /** Set when the lab cannot run the claim yet: the reason, printed with "not runnable". */
  notRunnable?: string;
  /** The per-seed figure. @throws Error when a needed row is missing. */
  perSeed?: (inputs: ClaimInputs, seed: number) => number;
  plot?: ClaimPlot;
}

/** Eval rows of one variant under one seed, by step. */
function evalRows(rows: readonly MetricRow[], variant: string, seed: number): MetricRow[] {
  return rows
    .filter((r) => r.kind === "eval" && r.variant === variant && r.seed === seed)
    .sort((a, b) => a.step - b.step);
}

/** The metric at the last eval of a variant under a seed. */
function finalValue(
  rows: readonly MetricRow[],
  variant: string,
  seed: number,
  metric: string,
): number {
  const ev = evalRows(rows, variant, seed);
  const v = ev.at(-1)?.values[metric];
  if (v === undefined)
    throw new Error(`claims: no eval of ${variant} (seed ${seed}) with metric ${metric}`);
  return v;
}

/** The metric at step 0 (the cold start) of a variant under a seed. */
function startValue(
  rows: readonly MetricRow[],
  variant: string,
  seed: number,
  metric: string,
): number {
  const v = evalRows(rows, variant, seed).find((r) => r.step === 0)?.values[metric];
  if (v === undefined)
    throw new Error(`claims: no step-0 eval of ${variant} (seed ${seed}) with metric ${metric}`);
  return v;
}

function stabilityAt(inputs: ClaimInputs, seed: number, sigmaB: number): StabilityPoint {
  const pts = inputs.stability.get(seed);
  const p = pts?.find((x) => x.sigmaB === sigmaB);
  if (!p) throw new Error(`claims: no stability point with sigmaB ${sigmaB} for seed ${seed}`);
  return p;
}

/**
 * Judge calibration noise σ_b of the lab's default auditor, read from
 * DEFAULT_AUDITOR (src/rewards/auditor-judge.ts) so the claim follows the
 * calibrated default (a copied 0.1 outlived the calibration to 0.17 once).
 */
export const DEFAULT_SIGMA_B = DEFAULT_AUDITOR.sigmaB;

/** The claims (GRR = Groupwise Ranking Reward paper; StructReward; SCS; ACRE). */
const CLAIM_TABLE: readonly ClaimSpec[] = [
  {
    id: "rlvr-drift",
    paper: "GRR",
    statement: "Under outcome-only RLVR, the inconsistency rate rises over training.",
    paper_figure: "GRR §1: IncR 6 % → 19 %, CBIR 2 % → 6 % over RLVR training",
    metric: "IncR of RLVR at the last eval minus IncR at the cold start (held-out)",
    direction: 1,
    variants: ["rlvr"],
    stability: false,
    perSeed: ({ rows }, seed) =>
      finalValue(rows, "rlvr", seed, "incR") - startValue(rows, "rlvr", seed, "incR"),
    // The other variants' IncR beside RLVR's, when the run trained them: is the drift RLVR's own?
    plot: {
      metric: "incR",
      variants: ["rlvr", "pointwise-gr", "grr", "structreward"],
      yLabel: "IncR (held-out)",
    },
  },
  {
    id: "grr-incr",
    paper: "GRR",
    statement:
      "Trajectory supervision holds the reasoning to the answer: GRR ends with a lower inconsistency rate than RLVR.",
    paper_figure:
      "GRR App. E, Table 3: open-ended IncR 14.71 % (RLVR) vs 2.75 % (GRR); multiple choice 20.40 % vs 3.12 %",
    metric: "final IncR of RLVR minus final IncR of GRR (per seed, held-out)",
    direction: 1,
    variants: ["rlvr", "grr"],
    stability: false,
    perSeed: ({ rows }, seed) =>
      finalValue(rows, "rlvr", seed, "incR") - finalValue(rows, "grr", seed, "incR"),
    plot: {
      metric: "incR",
      variants: ["rlvr", "pointwise-gr", "grr", "structreward"],
      yLabel: "IncR (held-out)",
    },
  },
  {
    id: "grr-rcacc",
    paper: "GRR",
    statement: "GRR ends with higher RC-Acc than RLVR and pointwise GR.",
    paper_figure: "GRR Table 1: RC-Acc 54.7 vs 47.4 (RLVR) / 52.3 (pointwise GR)",
    metric: "final RC-Acc of GRR minus the better of RLVR and pointwise GR (per seed)",
    direction: 1,
    variants: ["rlvr", "pointwise-gr", "grr"],
    stability: false,
    perSeed: ({ rows }, seed) => {
      const grr = finalValue(rows, "grr", seed, "rcAcc");
      return (
        grr -
        Math.max(
          finalValue(rows, "rlvr", seed, "rcAcc"),
          finalValue(rows, "pointwise-gr", seed, "rcAcc"),
        )
      );
    },
    plot: {
      metric: "rcAcc",
      variants: ["rlvr", "pointwise-gr", "grr"],
      yLabel: "RC-Acc (held-out)",
    },
  },
  {
    id: "groupwise-stability",
    paper: "GRR",
    statement:
      "Groupwise judging gives lower per-rollout reward variance than pointwise judging; equal variance when the judge has no calibration noise.",
    paper_figure: "GRR §4.3.4: per-rollout reward variance 0.016 (groupwise) vs 0.026 (pointwise)",
    metric:
      "pointwise minus groupwise per-rollout reward variance, lab default judge, cold-start rollouts",
    direction: 1,
    variants: [],
    stability: true,
    perSeed: (inputs, seed) => {
      const p = stabilityAt(inputs, seed, DEFAULT_SIGMA_B);
      return p.pointwise - p.groupwise;
    },
  },
  {
    id: "structreward-gain",
    paper: "StructReward",
    statement: "StructReward ends with higher RC-Acc than the outcome-only baseline.",
    paper_figure:
      "StructReward Table 2: gains in answer and step accuracy over the outcome-reward baseline",
    metric:
      "final RC-Acc of StructReward minus RLVR (per seed); step accuracy difference reported beside it",
    direction: 1,
    variants: ["rlvr", "structreward"],
    stability: false,
    perSeed: ({ rows }, seed) =>
      finalValue(rows, "structreward", seed, "rcAcc") - finalValue(rows, "rlvr", seed, "rcAcc"),
    plot: { metric: "rcAcc", variants: ["rlvr", "structreward"], yLabel: "RC-Acc (held-out)" },
  },
  {
    id: "scs-gain",
    paper: "SCS",
    statement:
      "Adding SCS's consistency reward to RLOO raises held-out accuracy and lowers the lucky-guess rate (right answers from wrong reasoning).",
    paper_figure:
      "SCS Table 2: RLOO 57.8 → 65.5 (+7.7) with SCS, Qwen2.5-VL-7B, overall of six benchmarks; Table 3: unfaithful reasoning in 100 correctly answered questions 25.0 → 21.2 (human judge; o3-mini 22.0 → 19.0, Gemini 2.5 Flash 23.0 → 19.7)",
    metric:
      "min over parts of: final Acc of RLOO + SCS minus RLOO; final lucky-guess rate of RLOO minus RLOO + SCS (SCS scenario, per seed, held-out)",
    direction: 1,
    variants: ["rlvr", "scs"],
    stability: false,
    runs: ["scs"],
    parts: [
      {
        label: "Acc: RLOO + SCS − RLOO",
        perSeed: ({ rows }, seed) =>
          finalValue(rows, "scs", seed, "acc") - finalValue(rows, "rlvr", seed, "acc"),
      },
      {
        label: "lucky-guess rate: RLOO − (RLOO + SCS)",
        perSeed: ({ rows }, seed) =>
          finalValue(rows, "rlvr", seed, "luckyGuess") -
          finalValue(rows, "scs", seed, "luckyGuess"),
      },
    ],
    plot: {
      metric: "acc",
      variants: ["rlvr", "scs"],
      yLabel: "Acc (held-out, SCS scenario)",
    },
  },
  {
    id: "scs-ablation",
    paper: "SCS",
    statement:
      "Truncation–resampling alone and visual perturbation alone each raise accuracy over RLOO, and less than both together.",
    paper_figure:
      "SCS Table 4 (RLOO, Qwen2.5-VL-7B, overall): baseline 57.8, truncation–resampling only 63.0 (+5.2), visual perturbation only 62.8 (+5.0), both 65.5 (+7.7)",
    metric:
      "min over parts of: final Acc of TR only minus RLOO, full SCS minus TR only, VP only minus RLOO, full SCS minus VP only (SCS scenario, per seed, held-out)",
    direction: 1,
    variants: ["rlvr", "scs"],
    stability: false,
    runs: ["scs", "scs-tr-only", "scs-vp-only"],
    parts: [
      {
        label: "Acc: TR only − RLOO",
        perSeed: ({ rows }, seed) =>
          finalValue(rows, "scs-tr", seed, "acc") - finalValue(rows, "rlvr", seed, "acc"),
      },
      {
        label: "Acc: SCS − TR only",
        perSeed: ({ rows }, seed) =>
          finalValue(rows, "scs", seed, "acc") - finalValue(rows, "scs-tr", seed, "acc"),
      },
      {
        label: "Acc: VP only − RLOO",
        perSeed: ({ rows }, seed) =>
          finalValue(rows, "scs-vp", seed, "acc") - finalValue(rows, "rlvr", seed, "acc"),
      },
      {
        label: "Acc: SCS − VP only",
        perSeed: ({ rows }, seed) =>
          finalValue(rows, "scs", seed, "acc") - finalValue(rows, "scs-vp", seed, "acc"),
      },
    ],
    plot: {
      metric: "acc",
      variants: ["rlvr", "scs-tr", "scs-vp", "scs"],
      yLabel: "Acc (held-out, SCS scenario)",
    },
  },
  {
    id: "acre-oscr",
    paper: "ACRE",
    statement:
      "From an index-bound cold start, GRPO raises option-shuffle consistency (OSCR) and ACRE raises it more.",
    paper_figure:
      "ACRE Table 2, OSCR (%) on TempCompass / MMVU / VideoMME: CoT-SFT 5.9 / 31.4 / 12.5, CoT-SFT-GRPO 10.4 / 49.8 / 25.6, ACRE 17.3 / 74.6 / 29.6",
    metric:
      "min over parts of: final OSCR of GRPO minus the cold start's; final OSCR of ACRE minus GRPO's (ACRE scenario, per seed, held-out)",
    direction: 1,
    variants: ["rlvr", "acre"],
    stability: false,
    runs: ["acre"],
    parts: [
      {
        label: "OSCR: GRPO − cold start",
        perSeed: ({ rows }, seed) =>
          finalValue(rows, "rlvr", seed, "oscr") - startValue(rows, "rlvr", seed, "oscr"),
      },
      {
        label: "OSCR: ACRE − GRPO",
        perSeed: ({ rows }, seed) =>
          finalValue(rows, "acre", seed, "oscr") - finalValue(rows, "rlvr", seed, "oscr"),
      },
    ],
    plot: { metric: "oscr", variants: ["rlvr", "acre"], yLabel: "OSCR (held-out, ACRE scenario)" },
  },
  {
    id: "acre-cacr",
    paper: "ACRE",
    statement: "ACRE ends with a higher CoT–answer consistency rate (CACR) than GRPO.",
    paper_figure:
      "ACRE Table 1, CACR (%): MathVista 81.3 (CoT-SFT-GRPO) → 87.5 (ACRE), MMVU 79.7 → 82.8; CoT-SFT 85.2 / 82.3",
    metric:
      "final CACR of ACRE minus GRPO's (rule-based consistency judge; ACRE scenario, per seed, held-out)",
    direction: 1,
    variants: ["rlvr", "acre"],
    stability: false,
    runs: ["acre"],
    perSeed: ({ rows }, seed) =>
      finalValue(rows, "acre", seed, "cacr") - finalValue(rows, "rlvr", seed, "cacr"),
    plot: { metric: "cacr", variants: ["rlvr", "acre"], yLabel: "CACR (held-out, ACRE scenario)" },
  },
];

/**
 * The claims, a claim of parts with `perSeed` = the minimum of its parts'
 * figures (positive only when every part is).
 */
export const CLAIMS: readonly ClaimSpec[] = CLAIM_TABLE.map((c) =>
  c.parts && !c.perSeed
    ? { ...c, perSeed: (inputs, seed) => Math.min(...c.parts!.map((p) => p.perSeed(inputs, seed))) }
    : c,
);

/**
 * The claims named in a comma list, in table order.
 * @throws Error naming an unknown id and listing the known ones.
 */
export function selectClaims(ids: readonly string[] | undefined): ClaimSpec[] {
  if (!ids) return [...CLAIMS];
  for (const id of ids)
    if (!(CLAIM_IDS as readonly string[]).includes(id))
      throw new Error(`unknown claim '${id}'; known: ${CLAIM_IDS.join(", ")}`);
  return CLAIMS.filter((c) => ids.includes(c.id));
}
