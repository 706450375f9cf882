/**
 * What a metric is (the metric table's row type, src/settings/metric-table.ts):
 * shared by the metric table and the credit table
 * (src/settings/credit-table.ts), which derives its rows from the rollout
 * classes.
 */

/** Unit of a metric value. */
type MetricUnit =
  /** A share of prompts, rollouts or steps, in [0, 1]. */
  | "fraction"
  /** Reward units (each variant's own scale). */
  | "reward"
  | "nats"
  | "nats/token"
  | "tokens"
  | "ms"
  /** Number of events per step. */
  | "count"
  /** A number of distinct answer options, in [1, m]. */
  | "options"
  /** Euclidean norm of the gradient. */
  | "norm";

/** Chart section of a metric. */
export type MetricGroup = "paper" | "reward" | "component" | "credit" | "health" | "cost" | "other";

/**
 * Which rows carry a metric: held-out eval rows, RL step rows, SFT step rows,
 * RL step rows as a reward component (`components/<name>`), or RL step rows
 * of a variant that trains an auxiliary step (StructReward's recycling and
 * hard negatives, ../rl/aux-step.ts), or RL step rows as a rollout class's
 * credit (`credit/<class>/<part>`, ROLLOUT_CLASSES).
 */
export type MetricRowKind = "eval" | "train" | "sft" | "component" | "aux" | "credit";

/** One metric. */
export interface MetricDef {
  /** The key in MetricRow.values, exactly as produced. */
  key: string;
  /** Chart title. */
  label: string;
  unit: MetricUnit;
  /** How it is computed, in symbols. */
  formula: string;
  /** Paper and section, or "lab metric". */
  source: string;
  description: string;
  group: MetricGroup;
  /** Lower sorts first on the page; RC-Acc (the primary metric) is 0. */
  order: number;
  rows: readonly MetricRowKind[];
}
