/**
 * Which charts go where: the overview's metrics (held-out, the chosen
 * experiment's), and every other chart in one of five groups by the metric
 * table's group (src/settings/metric-table.ts): other held-out metrics;
 * training (paper metrics on the rollouts, health, other); rewards (reward
 * and its components); credit (each rollout class's share, mean reward and
 * mean advantage); cost (times and GPU work). Pure: tested in Node.
 */
import { metricMeta } from "./metric-meta";

/** One chart: a metric key of one row kind, and its data-testid suffix. */
export interface ChartSpec {
  key: string;
  testId: string;
  kind: "train" | "eval";
}

export type MetricGroupName = "held-out" | "training" | "rewards" | "credit" | "cost";

/** The group of a chart that is not in the overview. */
function groupOf(spec: ChartSpec): MetricGroupName {
  if (spec.kind === "eval") return "held-out";
  const g = metricMeta(spec.key).group;
  if (g === "reward" || g === "component") return "rewards";
  if (g === "credit") return "credit";
  if (g === "cost") return "cost";
  return "training";
}

/**
 * The overview's charts (eval charts of `overview`'s keys, in its order) and
 * the rest by group (each in the given order).
 */
export function splitSpecs(
  specs: readonly ChartSpec[],
  overview: readonly string[],
): { overview: ChartSpec[]; groups: Record<MetricGroupName, ChartSpec[]> } {
  const groups: Record<MetricGroupName, ChartSpec[]> = {
    "held-out": [],
    training: [],
    rewards: [],
    credit: [],
    cost: [],
  };
  const top: ChartSpec[] = [];
  for (const s of specs) {
    if (s.kind === "eval" && overview.includes(s.key)) top.push(s);
    else groups[groupOf(s)].push(s);
  }
  top.sort((a, b) => overview.indexOf(a.key) - overview.indexOf(b.key));
  return { overview: top, groups };
}
