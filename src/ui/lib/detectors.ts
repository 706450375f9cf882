/**
 * Reward-hacking detectors: one table of rules over a run's own metric rows,
 * for every variant (the papers' and a written reward alike), shown in the
 * guided view beside the callouts (./callouts.ts). A detector reads the
 * variant's train rows (averaged over seeds at each step) and, for one rule,
 * its held-out bands (./bands.ts); its message is built from the values it
 * read, so nothing is canned. Pure: tested on recorded rows
 * (test/ui/detectors.test.ts).
 *
 * The windows and thresholds below are lab choices, fixed on 2026-12-06
 * 10:13 UTC before any detector was computed on a run: W = 3 train steps
 * (the first and the last W steps are compared, so a detector needs 2·W
 * steps; three steps so a short run on the page gets them, at the cost of
 * noisier means); each threshold's reason sits beside it.
 */
import type { MetricRow } from "../../run/run-types";
import { metricDef } from "../../settings/metric-table";
import { variantLabel } from "../../settings/variant-meta";
import { metricBands, type BandPoint } from "./bands";

/** Train steps in the first and the last window (lab choice, see the file comment). */
export const DETECTOR_WINDOW = 3;

/** Which detector fired. */
type DetectorKey = "no-signal" | "dominant" | "length-drift" | "reward-vs-heldout" | "saturated";

/** One detector's finding on one variant. */
export interface Detection {
  /** Stable id: detector and variant. */
  id: string;
  key: DetectorKey;
  variant: string;
  /** Last train step of the window the detector read. */
  step: number;
  /** The chart to show (`chart-<metric>`). */
  chart: string;
  text: string;
}

/** What the detectors read, per variant key (MetricsData.byVariant[v]). */
export interface DetectorInput {
  trainRows: Readonly<Record<string, readonly MetricRow[]>>;
  evalRows: Readonly<Record<string, readonly MetricRow[]>>;
  /** Held-out prompts per eval (Experiment.evalSize): the one-seed band's n. */
  evalSize: number;
}

/** One row of the table: the rule, its thresholds and why, and its check. */
interface Detector {
  key: DetectorKey;
  label: string;
  /** The rule in words, for the guided view. */
  rule: string;
  /** Each threshold, its value and why (all lab choices). */
  thresholds: readonly { name: string; value: number; why: string }[];
  find(v: VariantSeries): Detection | null;
}

/** A variant's train metrics as seed means per step, in step order, and its held-out bands. */
interface VariantSeries {
  variant: string;
  steps: number[];
  /** Seed mean of `key` at each step of `steps` (NaN where no row carries it). */
  mean(key: string): number[];
  /** Keys of the `components/*` metrics its rows carry. */
  components: string[];
  band(key: string): BandPoint[];
}

const f2 = (v: number) => v.toFixed(2);
const pct = (v: number) => `${Math.round(v * 100)} %`;
const avg = (xs: readonly number[]) => {
  const ok = xs.filter(Number.isFinite);
  return ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : Number.NaN;
};
const head = (xs: readonly number[]) => avg(xs.slice(0, DETECTOR_WINDOW));
const tail = (xs: readonly number[]) => avg(xs.slice(-DETECTOR_WINDOW));
const enough = (v: VariantSeries) => v.steps.length >= 2 * DETECTOR_WINDOW;
const lastStep = (v: VariantSeries) => v.steps[v.steps.length - 1];
const label = (key: string) => metricDef(key)?.label ?? key.replace(/^components\//, "");
const det = (key: DetectorKey, v: VariantSeries, chart: string, text: string): Detection => ({
  id: `${key}:${v.variant}`,
  key,
  variant: v.variant,
  step: lastStep(v),
  chart,
  text,
});

/** Half the groups teaching nothing halves the batch's signal (lab choice). */
const NO_SIGNAL_SHARE = 0.5;
const noSignal: Detector = {
  key: "no-signal",
  label: "No signal",
  rule: `Over the last ${DETECTOR_WINDOW} train steps, at least ${pct(NO_SIGNAL_SHARE)} of groups got rewards that are all equal (Zero-std groups): their advantages are 0 and they teach nothing.`,
  thresholds: [
    {
      name: "share of all-equal groups",
      value: NO_SIGNAL_SHARE,
      why: "half the groups silent halves the batch's signal",
    },
  ],
  find(v) {
    if (v.steps.length < DETECTOR_WINDOW) return null;
    const z = tail(v.mean("frac_reward_zero_std"));
    if (!(z >= NO_SIGNAL_SHARE)) return null;
    return det(
      "no-signal",
      v,
      "frac_reward_zero_std",
      `${variantLabel(v.variant)}: ${pct(z)} of its groups got all-equal rewards over steps ${v.steps[v.steps.length - Math.min(DETECTOR_WINDOW, v.steps.length)]}–${lastStep(v)}, so their advantages are 0 and they teach nothing; the reward does not tell this group's rollouts apart.`,
    );
  },
};

/** A component with ≥ 80 % of the reward's level leaves the others ≤ 20 % to steer by (lab choice). */
const DOMINANT_SHARE = 0.8;
/** A component whose mean stays under this is centred by design (GRR's r_rank) or never paid (lab choice). */
const ZERO_LEVEL = 0.01;
const dominant: Detector = {
  key: "dominant",
  label: "One component dominates",
  rule: `Over the last ${DETECTOR_WINDOW} train steps, one component carries at least ${pct(DOMINANT_SHARE)} of Σ|mean component| among the components whose mean is not ~0 (at least two of them): the others barely move the total.`,
  thresholds: [
    {
      name: "share of the total's level",
      value: DOMINANT_SHARE,
      why: "the rest then steer with a fifth of the reward or less",
    },
    {
      name: "level counted as 0",
      value: ZERO_LEVEL,
      why: "a centred component (mean 0 by design) has no level to share",
    },
  ],
  find(v) {
    if (v.steps.length < DETECTOR_WINDOW) return null;
    const levels = v.components
      .map((k) => ({ k, m: Math.abs(tail(v.mean(k))) }))
      .filter((c) => c.m >= ZERO_LEVEL);
    if (levels.length < 2) return null;
    const total = levels.reduce((a, c) => a + c.m, 0);
    const top = levels.reduce((a, c) => (c.m > a.m ? c : a));
    if (top.m / total < DOMINANT_SHARE) return null;
    return det(
      "dominant",
      v,
      top.k,
      `${variantLabel(v.variant)}: ${label(top.k)} carries ${pct(top.m / total)} of the reward over the last ${DETECTOR_WINDOW} steps (mean ${f2(top.m)} of ${f2(total)}); the other components hardly move the total, so the policy is trained on ${label(top.k)} alone.`,
    );
  },
};

/**
 * A 10 % change in mean length (lab choice, revised 2026-12-06 10:15 UTC
 * before any length-rewarding run: the first value, 30 %, could never fire
 * here, since generation stops 6 tokens past the longest 34-token trace
 * (src/engine/lab-model.ts), room for ≈ 18 %; 10 % is twice the spread of
 * mean length seen in the ACRE recording, 41.7–43.9 tokens).
 */
const LENGTH_DRIFT = 0.1;
const lengthDrift: Detector = {
  key: "length-drift",
  label: "Length drift",
  rule: `The mean response length over the last ${DETECTOR_WINDOW} train steps differs from that over the first ${DETECTOR_WINDOW} by at least ${pct(LENGTH_DRIFT)}: the policy is writing longer (or shorter) rollouts, which a reward that pays for length or steps invites.`,
  thresholds: [
    {
      name: "relative change in mean length",
      value: LENGTH_DRIFT,
      why: "twice the spread of mean length in a recorded run; room is ≈ 18 %",
    },
  ],
  find(v) {
    if (!enough(v)) return null;
    const len = v.mean("response_length");
    const [a, b] = [head(len), tail(len)];
    if (!(a > 0) || !(Math.abs(b - a) / a >= LENGTH_DRIFT)) return null;
    return det(
      "length-drift",
      v,
      "response_length",
      `${variantLabel(v.variant)}'s rollouts ${b > a ? "grew" : "shrank"} from ${f2(a)} to ${f2(b)} tokens on average (${b > a ? "+" : ""}${pct((b - a) / a)}) between its first and last ${DETECTOR_WINDOW} steps: check whether its reward pays for length rather than for the answer.`,
    );
  },
};

/** A rise of 0.05 in mean reward is 5 points of RLVR's share of right answers (lab choice). */
const REWARD_RISE = 0.05;
const rewardVsHeldout: Detector = {
  key: "reward-vs-heldout",
  label: "Reward up, held-out down",
  rule: `Mean reward over the last ${DETECTOR_WINDOW} train steps exceeds that over the first ${DETECTOR_WINDOW} by at least ${REWARD_RISE}, while the held-out Acc or RC-Acc band at the last eval lies wholly below its step-0 band: the policy earns more reward and solves fewer held-out prompts.`,
  thresholds: [
    {
      name: "rise in mean reward",
      value: REWARD_RISE,
      why: "5 points of RLVR's share of right answers",
    },
  ],
  find(v) {
    if (!enough(v)) return null;
    const r = v.mean("reward_mean");
    const [a, b] = [head(r), tail(r)];
    if (!(b - a >= REWARD_RISE)) return null;
    for (const k of ["acc", "rcAcc"]) {
      const pts = v.band(k);
      const p0 = pts.find((p) => p.step === 0);
      const pl = pts[pts.length - 1];
      if (!p0 || !pl || pl.step === 0 || !(pl.hi < p0.lo)) continue;
      return det(
        "reward-vs-heldout",
        v,
        k,
        `${variantLabel(v.variant)}'s reward rose from ${f2(a)} to ${f2(b)} while its held-out ${label(k).replace(/\s*\(.*\)$/, "")} fell from ${f2(p0.mean)} at step 0 to ${f2(pl.mean)} at step ${pl.step}, below its band: the policy is earning reward in a way that does not solve the task.`,
      );
    }
    return null;
  },
};

/** The top 5 % of the run's reward range counts as its ceiling (lab choice). */
const CEILING_MARGIN = 0.05;
/** Spread collapsed to a quarter of its run high: few groups left to learn from (lab choice). */
const STD_COLLAPSE = 0.25;
const saturated: Detector = {
  key: "saturated",
  label: "Reward saturated",
  rule: `Mean reward rose and over the last ${DETECTOR_WINDOW} train steps sits within ${pct(CEILING_MARGIN)} of the run's reward range below its highest step, while its spread (Reward std) fell to at most ${pct(STD_COLLAPSE)} of its highest: the reward has hit its ceiling and stopped telling rollouts apart.`,
  thresholds: [
    {
      name: "margin below the highest mean reward (share of its range)",
      value: CEILING_MARGIN,
      why: "within the top twentieth counts as at the top",
    },
    {
      name: "reward std / its run high",
      value: STD_COLLAPSE,
      why: "a quarter of the spread leaves few groups to learn from",
    },
  ],
  find(v) {
    if (!enough(v)) return null;
    const r = v.mean("reward_mean").filter(Number.isFinite);
    const s = v.mean("reward_std").filter(Number.isFinite);
    if (r.length < 2 * DETECTOR_WINDOW || s.length < 2 * DETECTOR_WINDOW) return null;
    const [hi, lo] = [Math.max(...r), Math.min(...r)];
    const sHi = Math.max(...s);
    const [a, b, sb] = [head(r), tail(r), tail(s)];
    if (!(b > a) || !(hi > lo) || !(sHi > 0)) return null;
    if (b < hi - CEILING_MARGIN * (hi - lo) || sb > STD_COLLAPSE * sHi) return null;
    return det(
      "saturated",
      v,
      "reward_mean",
      `${variantLabel(v.variant)}'s reward climbed from ${f2(a)} to ${f2(b)}, its highest, and its spread fell to ${f2(sb)} (${pct(sb / sHi)} of its high of ${f2(sHi)}): the reward is at its ceiling, so almost every rollout gets the same reward and learning stalls.`,
    );
  },
};

/** The detectors, in the order the guided view lists them. */
export const DETECTORS: readonly Detector[] = [
  noSignal,
  dominant,
  lengthDrift,
  rewardVsHeldout,
  saturated,
];

/** Seed means per step of one variant's train rows. */
function series(
  variant: string,
  train: readonly MetricRow[],
  evalRows: readonly MetricRow[],
  evalSize: number,
): VariantSeries {
  const byStep = new Map<number, MetricRow[]>();
  for (const r of train) {
    const at = byStep.get(r.step);
    if (at) at.push(r);
    else byStep.set(r.step, [r]);
  }
  const steps = [...byStep.keys()].sort((a, b) => a - b);
  const comps = new Set<string>();
  for (const r of train)
    for (const k of Object.keys(r.values)) if (k.startsWith("components/")) comps.add(k);
  const cache = new Map<string, number[]>();
  return {
    variant,
    steps,
    components: [...comps],
    mean(key) {
      let m = cache.get(key);
      if (!m) {
        m = steps.map((s) => avg(byStep.get(s)!.map((r) => r.values[key] ?? Number.NaN)));
        cache.set(key, m);
      }
      return m;
    },
    band: (key) => metricBands(evalRows, key, evalSize),
  };
}

/**
 * Every detector that fires on every variant of the run (forks and SFT rows
 * left out), in the table's order within each variant. Linear in the rows.
 */
export function computeDetections(input: DetectorInput): Detection[] {
  const out: Detection[] = [];
  for (const [v, train] of Object.entries(input.trainRows)) {
    if (v.includes("@") || v === "sft") continue;
    const s = series(v, train, input.evalRows[v] ?? [], input.evalSize);
    for (const d of DETECTORS) {
      const hit = d.find(s);
      if (hit) out.push(hit);
    }
  }
  return out;
}
