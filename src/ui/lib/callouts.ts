/**
 * The guided view's live callouts: one table of rules over a run's held-out
 * metric rows (and its weight-change markers). Each rule looks at the bands
 * of ./bands.ts (the 95 % interval over seeds, or of one seed's held-out
 * sample) and fires at the first eval step where its condition holds; its
 * text is built from the values at that step and the latest one, so nothing
 * is canned. A callout names the chart it is about and the kind of rollout
 * that shows it (resolved against the run's inspector groups by
 * ./callout-examples.ts).
 *
 * The rules (lab choices, 2026-12-03, fixed before any was computed on a run):
 *   moved         a variant's metric at step t and at step 0 have bands that do not overlap;
 *   parted        two variants' bands of a metric overlapped at an earlier step and do not at t;
 *   drift         a variant's IncR band at t lies wholly above its step-0 band while its Acc
 *                 band at t does not lie wholly below its step-0 band (answers stay right or
 *                 get righter while more of them contradict their own steps);
 *   after-change  after a weight-change marker at step s, a variant's metric band at t > s
 *                 does not overlap its band at the last eval at or before s.
 * Metrics: the overview's (the preset's `overview`); drift always reads IncR and Acc.
 * Variants: the run's own (forks and overlays are left out). Pure: tested on
 * recorded metric rows (test/ui/callouts.test.ts).
 */
import type { Marker, MetricRow } from "../../run/run-types";
import { metricDef } from "../../settings/metric-table";
import { bandsOverlap, metricBands, type BandKind, type BandPoint } from "./bands";
import { variantLabel } from "../../settings/variant-meta";

/** What kind of rollout illustrates a callout (./callout-examples.ts finds one). */
export type ExampleWant =
  /** A right answer whose steps do not support it (verifier passed, judged inconsistent). */
  | "right-inconsistent"
  /** A right answer its steps support. */
  | "right-consistent"
  /** A wrong answer. */
  | "wrong"
  /** An ACRE re-ask whose answer names other option content than the first answer. */
  | "reask-changed";

/** One callout: what a rule found, where, and what to show. */
export interface Callout {
  /** Stable id: rule, variants, metric (and the marker's step). */
  id: string;
  rule: CalloutRuleId;
  /** Eval step at which the condition first held. */
  step: number;
  variants: string[];
  metric: string;
  text: string;
  /** The chart's data-testid suffix (`chart-<metric>`). */
  chart: string;
  /** The rollout to show: of this variant, at (or nearest before) `step`. */
  example: { variant: string; want: ExampleWant } | null;
}

type CalloutRuleId = "moved" | "parted" | "drift" | "after-change";

/** What the rules read. */
export interface CalloutInput {
  /** Eval rows per variant key (the run's MetricsData.byVariant[v].eval). */
  evalRows: Readonly<Record<string, readonly MetricRow[]>>;
  markers: readonly Marker[];
  /** Held-out prompts per eval (Experiment.evalSize): the one-seed band's n. */
  evalSize: number;
  /** Metrics the rules look at (the overview's). */
  metrics: readonly string[];
}

/** A rule of the table. */
interface CalloutRule {
  id: CalloutRuleId;
  /** The rule in words, for the guided view's "how callouts are made". */
  description: string;
  find(ctx: RuleContext): Callout[];
}

/** Bands per variant and metric, computed once per call. */
interface RuleContext extends CalloutInput {
  variants: string[];
  band(variant: string, metric: string): BandPoint[];
}

/** "RC-Acc" for "RC-Acc (primary)": the metric table's label without its note. */
export function metricName(key: string): string {
  return (metricDef(key)?.label ?? key).replace(/\s*\(.*\)$/, "");
}

/** Two decimals, as the charts' ticks show a share. */
const f2 = (v: number) => v.toFixed(2);
const bandText = (b: BandPoint) => `${f2(b.lo)}–${f2(b.hi)}`;
const kindText = (k: BandKind) => (k === "seeds" ? "seed band" : "sampling band");
const at = (points: readonly BandPoint[], step: number) => points.find((p) => p.step === step);
const last = (points: readonly BandPoint[]) => points[points.length - 1];

/** Which rollout shows a metric moving in a direction (lab choice). */
function exampleFor(metric: string, up: boolean): ExampleWant {
  if (metric === "incR" || metric === "cbir") return up ? "right-inconsistent" : "right-consistent";
  if (metric === "oscr") return up ? "right-consistent" : "reask-changed";
  return up ? "right-consistent" : "right-inconsistent";
}

/** ", now 0.52 at step 20" when the run has gone on past the callout's step. */
function nowText(points: readonly BandPoint[], step: number): string {
  const l = last(points);
  return l && l.step > step ? `; now ${f2(l.mean)} at step ${l.step}` : "";
}

const moved: CalloutRule = {
  id: "moved",
  description:
    "A variant's metric has moved by more than its band since step 0: the 95 % bands at step 0 and now do not overlap.",
  find(ctx) {
    const out: Callout[] = [];
    for (const v of ctx.variants)
      for (const k of ctx.metrics) {
        const pts = ctx.band(v, k);
        const start = at(pts, 0);
        if (!start) continue;
        const hit = pts.find((p) => p.step > 0 && !bandsOverlap(p, start));
        if (!hit) continue;
        const up = hit.mean > start.mean;
        out.push({
          id: `moved:${v}:${k}`,
          rule: "moved",
          step: hit.step,
          variants: [v],
          metric: k,
          text: `${variantLabel(v)}'s ${metricName(k)} ${up ? "rose" : "fell"} from ${f2(start.mean)} at step 0 to ${f2(hit.mean)} at step ${hit.step}, more than its ${kindText(hit.kind)} (${bandText(start)} then, ${bandText(hit)} at step ${hit.step})${nowText(pts, hit.step)}.`,
          chart: k,
          example: { variant: v, want: exampleFor(k, up) },
        });
      }
    return out;
  },
};

const parted: CalloutRule = {
  id: "parted",
  description:
    "Two variants' 95 % bands of a metric overlapped at an earlier eval and no longer do.",
  find(ctx) {
    const out: Callout[] = [];
    for (let i = 0; i < ctx.variants.length; i++)
      for (let j = i + 1; j < ctx.variants.length; j++)
        for (const k of ctx.metrics) {
          const [a, b] = [ctx.variants[i], ctx.variants[j]];
          const pa = ctx.band(a, k);
          const pb = ctx.band(b, k);
          let overlapped = false;
          let hit: { step: number; x: BandPoint; y: BandPoint } | null = null;
          for (const x of pa) {
            const y = at(pb, x.step);
            if (!y) continue;
            if (bandsOverlap(x, y)) overlapped = true;
            else if (overlapped && x.step > 0) {
              hit = { step: x.step, x, y };
              break;
            }
          }
          if (!hit) continue;
          const [hi, lo] = hit.x.mean >= hit.y.mean ? [a, b] : [b, a];
          const [bh, bl] = hi === a ? [hit.x, hit.y] : [hit.y, hit.x];
          const la = last(ctx.band(hi, k));
          const lb = last(ctx.band(lo, k));
          const now =
            la && lb && la.step === lb.step && la.step > hit.step
              ? `; at step ${la.step} ${f2(la.mean)} vs ${f2(lb.mean)}${bandsOverlap(la, lb) ? ", overlapping again" : ""}`
              : "";
          out.push({
            id: `parted:${a}:${b}:${k}`,
            rule: "parted",
            step: hit.step,
            variants: [hi, lo],
            metric: k,
            text: `At step ${hit.step} the ${metricName(k)} bands of ${variantLabel(hi)} (${f2(bh.mean)}, ${bandText(bh)}) and ${variantLabel(lo)} (${f2(bl.mean)}, ${bandText(bl)}) stopped overlapping: ${variantLabel(hi)} is ${f2(bh.mean - bl.mean)} higher${now}.`,
            chart: k,
            example: {
              variant: k === "incR" || k === "cbir" ? hi : lo,
              want: exampleFor(k, k === "incR" || k === "cbir"),
            },
          });
        }
    return out;
  },
};

const drift: CalloutRule = {
  id: "drift",
  description:
    "A variant's IncR band now lies wholly above its step-0 band while its Acc band does not lie wholly below its step-0 band: its answers stay right while more of them contradict its own steps.",
  find(ctx) {
    const out: Callout[] = [];
    for (const v of ctx.variants) {
      const inc = ctx.band(v, "incR");
      const acc = ctx.band(v, "acc");
      const i0 = at(inc, 0);
      const a0 = at(acc, 0);
      if (!i0 || !a0) continue;
      const hit = inc.find((p) => {
        const a = at(acc, p.step);
        return p.step > 0 && a !== undefined && p.lo > i0.hi && !(a.hi < a0.lo);
      });
      if (!hit) continue;
      const a = at(acc, hit.step)!;
      out.push({
        id: `drift:${v}`,
        rule: "drift",
        step: hit.step,
        variants: [v],
        metric: "incR",
        text: `${variantLabel(v)}'s reasoning is drifting from its answers: by step ${hit.step} its IncR rose from ${f2(i0.mean)} to ${f2(hit.mean)} while its Acc went from ${f2(a0.mean)} to ${f2(a.mean)}, so more right answers are not what its own steps conclude.`,
        chart: "incR",
        example: { variant: v, want: "right-inconsistent" },
      });
    }
    return out;
  },
};

const afterChange: CalloutRule = {
  id: "after-change",
  description:
    "After a weight change (⚑ on the charts), a variant's metric band no longer overlaps its band at the last eval before the change.",
  find(ctx) {
    const out: Callout[] = [];
    for (const m of ctx.markers) {
      if (m.fork || m.fault || !ctx.variants.includes(m.variant)) continue;
      for (const k of ctx.metrics) {
        const pts = ctx.band(m.variant, k);
        const before = [...pts].reverse().find((p) => p.step <= m.step);
        if (!before) continue;
        const hit = pts.find((p) => p.step > m.step && !bandsOverlap(p, before));
        if (!hit) continue;
        const up = hit.mean > before.mean;
        out.push({
          id: `after-change:${m.variant}:${m.step}:${k}`,
          rule: "after-change",
          step: hit.step,
          variants: [m.variant],
          metric: k,
          text: `After "${m.label}" at step ${m.step}, ${variantLabel(m.variant)}'s ${metricName(k)} ${up ? "rose" : "fell"} from ${f2(before.mean)} (step ${before.step}) to ${f2(hit.mean)} at step ${hit.step}, beyond its ${kindText(hit.kind)}${nowText(pts, hit.step)}.`,
          chart: k,
          example: { variant: m.variant, want: exampleFor(k, up) },
        });
      }
    }
    return out;
  },
};

/** The rules, in the order the guided view explains them. */
export const CALLOUT_RULES: readonly CalloutRule[] = [drift, parted, moved, afterChange];

/** True for a variant key of the run itself (not a fork `a@fork3`, not an SFT row). */
function ownVariant(key: string): boolean {
  return !key.includes("@") && key !== "sft";
}

/**
 * Every callout the rules find on a run, newest first (ties: the table's order).
 * Linear in the rows for each rule, variant pair and metric.
 */
export function computeCallouts(input: CalloutInput): Callout[] {
  const variants = Object.keys(input.evalRows).filter(ownVariant);
  const cache = new Map<string, BandPoint[]>();
  const ctx: RuleContext = {
    ...input,
    variants,
    band(v, k) {
      const key = `${v}\u0000${k}`;
      let b = cache.get(key);
      if (!b) {
        b = metricBands(input.evalRows[v] ?? [], k, input.evalSize);
        cache.set(key, b);
      }
      return b;
    },
  };
  const all = CALLOUT_RULES.flatMap((r, order) => r.find(ctx).map((c) => ({ c, order })));
  all.sort((x, y) => y.c.step - x.c.step || x.order - y.order);
  return all.map((x) => x.c);
}
