/**
 * Titles and plain-language explanations of the metrics the trainer sends,
 * read from the metric table (src/settings/metric-table.ts), where the producers'
 * keys are typed. A key is looked up exactly first, then loosely (case, `_`,
 * `-`, `/` ignored; a `train/`, `eval/`, `components/`… prefix dropped) so
 * rows of older runs still get their titles; unknown keys are still plotted
 * under their own name.
 */
import { COMPONENT_PREFIX, METRIC_TABLE, metricDef } from "../../settings/metric-table";
import type { MetricGroup } from "../../settings/metric-def";

export interface MetricMeta {
  title: string;
  description: string;
  group: MetricGroup;
  /** Lower sorts first; RC-Acc (the primary metric) is 0. */
  order: number;
  /** From the metric table; absent for keys it does not know. */
  unit?: string;
  formula?: string;
  source?: string;
}

/** The table entry as the charts show it: the tooltip gives the formula, unit and source too. */
function fromDef(key: string): MetricMeta | undefined {
  const d = metricDef(key);
  return (
    d && {
      title: d.label,
      description: `${d.description} Formula: ${d.formula}. Unit: ${d.unit}. Source: ${d.source}.`,
      group: d.group,
      order: d.order,
      unit: d.unit,
      formula: d.formula,
      source: d.source,
    }
  );
}

/** Normalized key → table key; a component also under its bare name ("rrank"). */
const LOOSE: ReadonlyMap<string, string> = new Map(
  METRIC_TABLE.flatMap((m): [string, string][] => {
    const bare = m.key.startsWith(COMPONENT_PREFIX) ? m.key.slice(COMPONENT_PREFIX.length) : null;
    return bare
      ? [
          [normalizeKey(m.key), m.key],
          [normalizeKey(bare), m.key],
        ]
      : [[normalizeKey(m.key), m.key]];
  }),
);

const PREFIXES = [
  "components",
  "component",
  "comp",
  "reward",
  "rewards",
  "eval",
  "train",
  "charts",
  "metrics",
];

/** Lower-case alphanumerics only: `frac_reward_zero_std` → `fracrewardzerostd`. */
function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** Meta for a metric key, or a generic one naming the key. */
export function metricMeta(key: string): MetricMeta {
  const exact = fromDef(key);
  if (exact) return exact;
  const loose = LOOSE.get(normalizeKey(key));
  if (loose) return fromDef(loose)!;
  const segs = key.toLowerCase().split(/[/.:]/);
  if (segs.length > 1 && PREFIXES.includes(segs[0])) {
    const rest = LOOSE.get(normalizeKey(segs.slice(1).join("")));
    if (rest) return fromDef(rest)!;
    if (segs[0].startsWith("comp"))
      return {
        title: key,
        group: "component",
        order: 28,
        description: `Reward component '${segs.slice(1).join("/")}'.`,
      };
  }
  if (/^r_|^r[A-Z]/.test(key))
    return { title: key, group: "component", order: 28, description: `Reward component '${key}'.` };
  return {
    title: key,
    group: "other",
    order: 90,
    description: `Metric '${key}' as sent by the trainer.`,
  };
}

/** Sorts metric keys: known ones by their order (RC-Acc first), then the rest by name. */
export function sortMetricKeys(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => metricMeta(a).order - metricMeta(b).order || a.localeCompare(b));
}
