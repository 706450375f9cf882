/**
 * The advantage estimators the lab trains with, one entry each (reward-spec
 * §1): the label and formula the page shows, the source, and how the KL
 * penalty enters. The experiment schema (algorithm and per-variant
 * estimator), the RL step, the CLI (`--estimator`) and the page read this
 * table; the math itself is the CPU reference (../kernels/advantages/reference.ts) and the GPU
 * kernel (src/kernels/advantages/launch.ts), which take the same names. The table is keyed
 * by those names (`satisfies Record<EstimatorName, …>`), so an estimator
 * without an entry, or an entry without an estimator, fails to typecheck.
 */
/**
 * The four estimators of the contract plus StructReward's stable GRPO, in the
 * order the page lists them (ESTIMATOR_TABLE below describes each).
 */
export const ESTIMATOR_NAMES = [
  "grpo",
  "grpo-stable",
  "rloo",
  "reinforce++",
  "reinforce++-baseline",
] as const;
export type EstimatorName = (typeof ESTIMATOR_NAMES)[number];
export type StdKind = "sample" | "population";

/**
 * Std kind / ε presets named after the libraries (docs/reward-spec.md §1): verl
 * unbiased 1e-6 (the lab default), TRL unbiased 1e-4, OpenRLHF unbiased 1e-9.
 * In the order the page's algorithm panel shows them.
 */
export const ADVANTAGE_PRESETS: Readonly<
  Record<"verl" | "trl" | "openrlhf", { std: StdKind; eps: number }>
> = {
  verl: { std: "sample", eps: 1e-6 },
  trl: { std: "sample", eps: 1e-4 },
  openrlhf: { std: "sample", eps: 1e-9 },
};

/** What the lab says and does about one estimator. */
export interface EstimatorDef {
  /** Display name ("GRPO"). */
  label: string;
  /** Advantage of rollout i, as the page shows it. */
  formula: string;
  /** Paper and section the formula comes from. */
  source: string;
  /**
   * true: β applies as a k1 penalty −β·Σ_t (logπ_old − logπ_ref) folded into
   * each rollout's reward before the advantages, and the loss has no KL term
   * (REINFORCE++, docs/reward-spec.md §1). false: β weights the k3 KL term of the loss.
   */
  klInReward: boolean;
}

/** The estimators, in the order the page lists them. */
export const ESTIMATOR_TABLE = {
  grpo: {
    label: "GRPO",
    formula: "A_i = (R_i − μ) / (σ + ε_A)",
    source: "GRR App. A, ACRE eq. 5",
    klInReward: false,
  },
  "grpo-stable": {
    label: "GRPO-stable",
    formula: "A_i = clip((R_i − μ)/(σ + 1e-8), −3, 3); group skipped if σ < 1e-4",
    source: "StructReward eq. 11",
    klInReward: false,
  },
  rloo: {
    label: "RLOO",
    formula: "A_i = R_i − mean_{j≠i} R_j",
    source: "SCS §3.1",
    klInReward: false,
  },
  "reinforce++": {
    label: "REINFORCE++",
    formula: "A_i = (R_i − m)/(s + ε_A), m, s over the whole batch; k1 KL folded into R",
    source: "SCS §3.1",
    klInReward: true,
  },
  "reinforce++-baseline": {
    label: "REINFORCE++-baseline",
    formula: "A_i = R_i − μ, then whitened over the batch; k1 KL folded into R",
    source: "SCS §3.1, verl",
    klInReward: true,
  },
} as const satisfies Record<EstimatorName, EstimatorDef>;

/**
 * The table entry of `name`.
 * @throws Error naming the unknown estimator and the known ones.
 */
export function estimatorEntry(name: string): EstimatorDef {
  if (!Object.hasOwn(ESTIMATOR_TABLE, name))
    throw new Error(`unknown estimator '${name}'; known: ${ESTIMATOR_NAMES.join(", ")}`);
  return ESTIMATOR_TABLE[name as EstimatorName];
}
