/**
 * A claim's curves as markdown tables (the `claims` report prints them after
 * the claims table): per tracked metric, each arm's mean and 95 % interval
 * over seeds at every eval step, so a long run's curve is read, not only its
 * last step (GRR §4.3.1 gives RLVR's IncR at steps 60 and 140).
 */
import type { ClaimCurve, ClaimInputs, ClaimSpec } from "./claims";
import { aggregateCurves } from "./seed-stats";

/** Number to 3 decimals; −0.000 printed as 0.000. */
function num3(v: number): string {
  const s = v.toFixed(3);
  return s === "-0.000" ? "0.000" : s;
}

/** The curves a claim tracks: its plot's metric and arms first, then its `curves`. */
function trackedCurves(c: ClaimSpec): ClaimCurve[] {
  return [
    ...(c.plot ? [{ metric: c.plot.metric, arms: c.plot.variants, rows: "eval" as const }] : []),
    ...(c.curves ?? []),
  ];
}

/**
 * One curve as a markdown table: a row per eval step (the steps of the arms'
 * eval rows; "train" curves read the training row of each such step after
 * the cold start), a column per arm the rows hold, cells `mean [lo, hi]`
 * (95 % t-interval over the seeds present, "—" where an arm has no value).
 * Returns "" when no arm of the curve has a row.
 * @throws aggregateCurves' errors (a duplicate row, a non-finite value).
 */
function curveMarkdown(curve: ClaimCurve, inputs: ClaimInputs): string {
  const kind = curve.rows ?? "eval";
  const rows = [...inputs.rows];
  const curves = aggregateCurves(rows, { kind, metric: curve.metric });
  const arms = curve.arms.filter((a) => curves.has(a));
  if (arms.length === 0) return "";
  const evalSteps = [
    ...new Set(
      rows.filter((r) => r.kind === "eval" && arms.includes(r.variant)).map((r) => r.step),
    ),
  ]
    .filter((s) => kind === "eval" || s > 0)
    .sort((a, b) => a - b);
  const lines = [
    `| step | ${arms.join(" | ")} |`,
    `| ---: | ${arms.map(() => "---").join(" | ")} |`,
  ];
  for (const step of evalSteps) {
    const cells = arms.map((a) => {
      const p = curves.get(a)!.find((x) => x.step === step);
      return p ? `${num3(p.mean)} [${num3(p.lo)}, ${num3(p.hi)}]` : "—";
    });
    lines.push(`| ${step} | ${cells.join(" | ")} |`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Every curve a claim tracks, each under a line naming the claim (and its
 * level), the metric and the rows it reads; "" when none has rows.
 */
export function claimCurvesMarkdown(c: ClaimSpec, inputs: ClaimInputs, seeds: number): string {
  const parts: string[] = [];
  for (const curve of trackedCurves(c)) {
    const table = curveMarkdown(curve, inputs);
    if (!table) continue;
    const id = c.level ? `${c.id} (${c.level})` : c.id;
    const rows =
      (curve.rows ?? "eval") === "eval"
        ? "held-out eval"
        : "training rollouts of the step (train rows)";
    parts.push(
      `**${id}: ${curve.metric}**, ${rows}; mean and 95 % t-interval over ${seeds} seeds per arm and step\n\n${table}`,
    );
  }
  return parts.join("\n");
}
