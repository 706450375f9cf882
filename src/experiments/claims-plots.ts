/**
 * A claim's plot (the `claims` CLI's report): its arms' eval curves beside
 * the statistic that is judged, each paired difference per eval step with
 * its 95 % band over seeds (overlapping per-arm bands say little about a
 * paired difference).
 */
import type { CurvesPlot } from "./claims-report";
import { comparisonsOf, type ClaimInputs, type ClaimSpec } from "./claims";
import { sigmaBSweep } from "./claims-plan";
import { aggregateCurves, summarizeSeeds } from "./seed-stats";
import type { JudgeSettings } from "../rewards/judges";
import { variantColor } from "../settings/variant-meta";

/** Summary points of per-seed values at each x: mean and 95 % band over the seeds present there. */
function bandPoints(
  bySeed: ReadonlyArray<ReadonlyMap<number, number>>,
): CurvesPlot["series"][number]["points"] {
  const xs = [...new Set(bySeed.flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
  return xs.map((x) => {
    const vals = bySeed.flatMap((m) => (m.has(x) ? [m.get(x)!] : []));
    const s = summarizeSeeds(vals);
    return { x, mean: s.mean, lo: s.ci95[0], hi: s.ci95[1] };
  });
}

const DIFF_COLORS = ["#111111", "#8e44ad", "#16a085", "#c0392b"];

/**
 * The plot of a claim: its arms' eval curves (mean, 95 % band) beside the
 * judged statistic, each comparison's paired difference per eval step (mean
 * and 95 % band over seeds, a dashed 0 line); for the stability claim the
 * variances against σ_b beside their paired difference.
 */
export function plotFor(
  c: ClaimSpec,
  inputs: ClaimInputs,
  seeds: number[],
  judge: JudgeSettings,
): CurvesPlot[] | null {
  if (c.stability) {
    const sweep = sigmaBSweep(judge);
    const at = (s: number, sigmaB: number) =>
      inputs.stability.get(s)!.find((p) => p.sigmaB === sigmaB)!;
    const series = (["pointwise", "groupwise"] as const).map((k, i) => ({
      label: k === "pointwise" ? "pointwise GR" : "GRR (groupwise)",
      color: i === 0 ? variantColor("pointwise-gr") : variantColor("grr"),
      points: bandPoints(seeds.map((s) => new Map(sweep.map((b) => [b, at(s, b)[k]])))),
    }));
    const diff = bandPoints(
      seeds.map((s) => new Map(sweep.map((b) => [b, at(s, b).pointwise - at(s, b).groupwise]))),
    );
    return [
      {
        title: `${c.id}: per-rollout reward variance vs σ_b`,
        xLabel: `σ_b (${judge.name}; default ${judge.sigmaB})`,
        yLabel: "reward variance",
        series,
      },
      {
        title: `judged: pointwise − groupwise, ${seeds.length} seeds, 95 %`,
        xLabel: "σ_b",
        yLabel: "variance difference",
        zeroLine: true,
        series: [{ label: "pointwise − groupwise", color: DIFF_COLORS[0], points: diff }],
      },
    ];
  }
  if (!c.plot) return null;
  const curves = aggregateCurves([...inputs.rows], { kind: "eval", metric: c.plot.metric });
  const series = c.plot.variants
    .filter((v) => curves.has(v))
    .map((v) => ({
      label: v,
      color: variantColor(v),
      points: curves.get(v)!.map((p) => ({ x: p.step, mean: p.mean, lo: p.lo, hi: p.hi })),
    }));
  const left: CurvesPlot = {
    title: `${c.level ? `${c.id} (${c.level})` : c.id}: ${c.plot.yLabel}, mean of ${seeds.length} seeds, 95 % band`,
    xLabel: "RL step",
    yLabel: c.plot.yLabel,
    series,
  };
  const diffs = [
    ...new Map(
      comparisonsOf(c)
        .filter((k) => k.perStep)
        .map((k) => [k.series, k]),
    ).values(),
  ];
  if (diffs.length === 0) return [left];
  const right: CurvesPlot = {
    title: `judged: paired differences, ${seeds.length} seeds, 95 %`,
    xLabel: "RL step",
    yLabel: "paired difference (per seed)",
    zeroLine: true,
    series: diffs.map((k, i) => ({
      label: k.series,
      color: DIFF_COLORS[i % DIFF_COLORS.length],
      points: bandPoints(seeds.map((s) => k.perStep!(inputs, s))),
    })),
  };
  return [left, right];
}
