/**
 * All live charts: evaluation metrics first (RC-Acc leads), then training
 * metrics. Each chart draws the current run's variants and forks, and the
 * runs checked for overlay (series keys of src/ui/lib/series-meta.ts).
 */
import { useMemo } from "react";
import { useLab, labStore, type OverlayRun } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import type { Experiment } from "../../../settings/experiment";
import type { MetricRow } from "../../../run/run-types";
import { buildChart, MAX_POINTS_PER_LINE, type XAxisKind } from "../../lib/chart-data";
import { sortMetricKeys } from "../../lib/metric-meta";
import { overlayKey, seriesStyle, type SeriesStyle } from "../../lib/series-meta";
import { MetricChart } from "./MetricChart";
import { ChartToolbar } from "./ChartToolbar";
import { useThrottledMetrics } from "./useThrottledMetrics";
import { MarkerList } from "./MarkerList";

interface ChartSpec {
  key: string;
  testId: string;
  kind: "train" | "eval";
}

/** Charts to draw: eval keys as `chart-<key>`, train keys as `chart-<key>` (or `chart-train-<key>` if eval has the key too). */
function chartSpecs(m: MetricsData): ChartSpec[] {
  const evalKeys = sortMetricKeys(m.keys.eval);
  const trainKeys = sortMetricKeys(m.keys.train);
  const inEval = new Set(evalKeys);
  return [
    ...evalKeys.map((key) => ({ key, testId: key, kind: "eval" as const })),
    ...trainKeys.map((key) => ({
      key,
      testId: inEval.has(key) ? `train-${key}` : key,
      kind: "train" as const,
    })),
  ];
}

/** Rows of one kind per series key: the shown run's variants and forks, then each overlay's (keys "r2/grr"). */
export function rowsBySeries(
  m: MetricsData,
  overlays: readonly Pick<OverlayRun, "id" | "metrics">[],
  kind: "train" | "eval",
): Record<string, MetricRow[]> {
  const out: Record<string, MetricRow[]> = {};
  for (const [v, r] of Object.entries(m.byVariant)) out[v] = r[kind];
  for (const o of overlays)
    for (const [v, r] of Object.entries(o.metrics.byVariant)) out[overlayKey(o.id, v)] = r[kind];
  return out;
}

/** Metric keys of the shown run and the overlays (an overlay's metric gets a chart even if the live run has none yet). */
function withOverlayKeys(m: MetricsData, overlays: readonly OverlayRun[]): MetricsData {
  if (overlays.length === 0) return m;
  const keys = { train: m.keys.train.slice(), eval: m.keys.eval.slice() };
  for (const o of overlays)
    for (const kind of ["train", "eval"] as const)
      for (const k of o.metrics.keys[kind]) if (!keys[kind].includes(k)) keys[kind].push(k);
  return { ...m, keys };
}

function Charts({
  m,
  kind,
  smoothing,
  xAxis,
  overlays,
  current,
}: {
  m: MetricsData;
  kind: "train" | "eval";
  smoothing: number;
  xAxis: XAxisKind;
  overlays: OverlayRun[];
  current: Experiment;
}) {
  const specs = useMemo(
    () => chartSpecs(withOverlayKeys(m, overlays)).filter((s) => s.kind === kind),
    [m, overlays, kind],
  );
  const rowsByVariant = useMemo(() => rowsBySeries(m, overlays, kind), [m, overlays, kind]);
  const styles = useMemo(() => {
    const out: Record<string, SeriesStyle> = {};
    for (const k of Object.keys(rowsByVariant))
      out[k] = seriesStyle(k, { current, markers: m.markers, overlays });
    return out;
  }, [rowsByVariant, current, m.markers, overlays]);
  const allRows = useMemo(() => {
    const out: Record<string, MetricRow[]> = {};
    for (const [v, r] of Object.entries(m.byVariant)) out[v] = r.train.length ? r.train : r.eval;
    return out;
  }, [m]);
  const built = useMemo(
    () =>
      specs.map((s) => {
        const series = buildChart(rowsByVariant, s.key, {
          smoothing,
          xAxis,
          maxPoints: MAX_POINTS_PER_LINE,
        });
        const totals: Record<string, number> = {};
        for (const [v, rows] of Object.entries(rowsByVariant))
          totals[v] = rows.filter((r) => Number.isFinite(r.values[s.key])).length;
        return { spec: s, series, totals };
      }),
    [specs, rowsByVariant, smoothing, xAxis],
  );
  if (specs.length === 0) return null;
  return (
    <div className="chart-grid">
      {built.map(({ spec, series, totals }) => (
        <MetricChart
          key={spec.testId}
          metricKey={spec.key}
          testId={spec.testId}
          kind={spec.kind}
          series={series}
          totals={totals}
          rowsByVariant={allRows}
          markers={m.markers}
          xAxis={xAxis}
          smoothing={smoothing}
          styles={styles}
        />
      ))}
    </div>
  );
}

export function ChartsPanel() {
  const m = useThrottledMetrics();
  const smoothing = useLab((s) => s.smoothing);
  const xAxis = useLab((s) => s.xAxis);
  const viewing = useLab((s) => s.viewingRun);
  const evalEvery = useLab((s) => (s.sentExperiment ?? s.experiment).algorithm.evalEvery);
  // The charts describe the run that was sent, not an edit not yet applied.
  const evalTemperature = useLab((s) => (s.sentExperiment ?? s.experiment).evalTemperature);
  const overlays = useLab((s) => s.overlays);
  const current = useLab(
    (s) =>
      (s.viewingRun !== null ? s.runs.find((r) => r.id === s.viewingRun)?.experiment : undefined) ??
      s.sentExperiment ??
      s.experiment,
  );
  const shownKeys = withOverlayKeys(m, overlays).keys;
  const empty = shownKeys.eval.length === 0 && shownKeys.train.length === 0;
  return (
    <section className="charts-panel" aria-label="Charts">
      <ChartToolbar metrics={m} overlays={overlays} current={current} />
      {viewing !== null && (
        <div className="banner info">
          Showing the archived run {viewing} (read-only).{" "}
          <button type="button" onClick={() => labStore.getState().viewRun(null)}>
            Back to the live run
          </button>
        </div>
      )}
      <MarkerList markers={m.markers} />
      {empty ? (
        <div className="empty-charts">
          <p>
            <b>No curves yet.</b> Press <b>Train</b> (or <b>Step</b>) to start. Every step each
            variant samples G answers per prompt, scores them with its reward, and updates its own
            copy of the model.
          </p>
          <p className="muted">
            Watch <b>RC-Acc</b> (right answers whose reasoning supports them) against plain{" "}
            <b>Acc</b>: under outcome-only RLVR the gap (CBIR) tends to grow, because nothing
            rewards sound reasoning.
          </p>
        </div>
      ) : (
        <>
          {shownKeys.eval.length > 0 && (
            <h3 className="chart-section">
              Evaluation · held-out set,{" "}
              {evalTemperature === 0 ? "greedy decoding" : `sampled at τ = ${evalTemperature}`},
              every {evalEvery} steps
            </h3>
          )}
          <Charts
            m={m}
            kind="eval"
            smoothing={smoothing}
            xAxis={xAxis}
            overlays={overlays}
            current={current}
          />
          {shownKeys.train.length > 0 && (
            <h3 className="chart-section">Training · every step, on the sampled rollouts</h3>
          )}
          <Charts
            m={m}
            kind="train"
            smoothing={smoothing}
            xAxis={xAxis}
            overlays={overlays}
            current={current}
          />
        </>
      )}
    </section>
  );
}
