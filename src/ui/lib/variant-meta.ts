/**
 * What the UI says about each reward variant: colour (fixed per variant so a
 * line keeps its colour on every chart), the paper, the formula as text, and
 * which weights and judge knobs it reads (docs/reward-spec.md §2, §3).
 */
import type { VariantName } from "../../rl/experiment";
import { baseVariant, parseForkKey } from "../../rl/fork-key";

export interface VariantMeta {
  label: string;
  color: string;
  paper: string;
  formula: string[];
  /** Weight fields the variant uses (keys of VariantWeights). */
  weights: ("lambda" | "mapping" | "fmt" | "right" | "rule" | "cons")[];
  /** Whether the variant calls the (noisy) judge. */
  judge: "none" | "pointwise" | "groupwise";
  blurb: string;
}

export const VARIANT_META: Record<VariantName, VariantMeta> = {
  rlvr: {
    label: "RLVR",
    color: "#5f6b7a",
    paper: "Outcome-only baseline of “Prioritizing the Best: Groupwise Ranking Reward” (GRR)",
    formula: ["R = r_ver", "r_ver = 1[final answer ≡ ground truth]"],
    weights: [],
    judge: "none",
    blurb:
      "Rewards only the final answer. Nothing checks the reasoning, so a lucky answer with wrong steps is rewarded too.",
  },
  "pointwise-gr": {
    label: "Pointwise GR",
    color: "#e08a1e",
    paper: "Pointwise generative reward baseline of the GRR paper (§2)",
    formula: [
      "R = r_ver + λ·judge score",
      "judge score ∈ {1, .8, .5, .2, 0}, one judge call per rollout",
    ],
    weights: ["lambda"],
    judge: "pointwise",
    blurb:
      "A judge scores each rollout's reasoning on its own. Each call has its own calibration offset (σ_b), which makes the reward noisier.",
  },
  grr: {
    label: "GRR",
    color: "#2a7de1",
    paper: "“Prioritizing the Best: Groupwise Ranking Reward” (GRR, §3)",
    formula: [
      "R = r_ver + λ·r_rank",
      "r_rank = s̃ − mean s̃ (over the K passed rollouts)",
      "s̃ = (b + c/2)/(K−1)  (b: ranked lower, c: tied)",
    ],
    weights: ["lambda", "mapping"],
    judge: "groupwise",
    blurb:
      "One judge call ranks all passed rollouts of a group into tiers; only the relative order matters, so a per-call offset cancels.",
  },
  structreward: {
    label: "StructReward",
    color: "#2e9e5b",
    paper: "“StructReward: structured process rewards” (§3, eq. 11 GRPO-stable)",
    formula: [
      "R = λ_fmt R_fmt + λ_right R_right + λ_rule R_right R_rule (1 + λ_cons R_cons)",
      "max 1.2125 with the defaults",
    ],
    weights: ["fmt", "right", "rule", "cons"],
    judge: "none",
    blurb:
      "Checks the structure: format, right answer, steps that match the reference steps, and a final answer consistent with the last step.",
  },
};

const FALLBACK_COLORS = ["#9b59b6", "#c0392b", "#16a085", "#7f8c8d"];

/** Colour of a variant's line (known variants fixed; others by name hash); a fork key ("grr@fork12") takes its base variant's colour. */
export function variantColor(key: string): string {
  const name = baseVariant(key);
  const m = (VARIANT_META as Record<string, VariantMeta | undefined>)[name];
  if (m) return m.color;
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return FALLBACK_COLORS[h % FALLBACK_COLORS.length];
}

/** Display name of a variant ("GRR"); a fork key reads "GRR fork@12" ("GRR fork@12.2" for a second fork at that step). */
export function variantLabel(key: string): string {
  const fork = parseForkKey(key);
  if (fork)
    return `${variantLabel(fork.parent)} fork@${fork.step}${fork.n > 1 ? `.${fork.n}` : ""}`;
  return (VARIANT_META as Record<string, VariantMeta | undefined>)[key]?.label ?? key;
}

/** GRR tier → score mappings (docs/reward-spec.md §2); PCS is the paper's. */
export const MAPPINGS = [
  { value: "pcs", label: "PCS: pairwise comparison score (paper)", formula: "s̃ = (b + c/2)/(K−1)" },
  {
    value: "edn",
    label: "EDN: exponential decay by tier",
    formula: "γ^(m−1), γ = 0.5 (lab choice), min–max normalized",
  },
  { value: "trs", label: "TRS: evenly spaced tiers", formula: "(M − m)/(M − 1)" },
  { value: "irn", label: "IRN: inverse rank", formula: "1/rank, min–max normalized" },
] as const;
