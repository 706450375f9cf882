/** All live charts: evaluation metrics first (RC-Acc leads), then training metrics. */
import { useMemo } from "react";
import { useLab, labStore } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import type { MetricRow } from "../../../workers/protocol";
import { buildChart, MAX_POINTS_PER_LINE, type XAxisKind } from "../../lib/chart-data";
import { sortMetricKeys } from "../../lib/metric-meta";
import { MetricChart } from "./MetricChart";
import { ChartToolbar } from "./ChartToolbar";
import { useThrottledMetrics } from "./useThrottledMetrics";
import { MarkerList } from "./MarkerList";

export interface ChartSpec {
  key: string;
  testId: string;
  kind: "train" | "eval";
}

/** Charts to draw: eval keys as `chart-<key>`, train keys as `chart-<key>` (or `chart-train-<key>` if eval has the key too). */
export function chartSpecs(m: MetricsData): ChartSpec[] {
  const evalKeys = sortMetricKeys(m.keys.eval);
  const trainKeys = sortMetricKeys(m.keys.train);
  const inEval = new Set(evalKeys);
  return [
    ...evalKeys.map((key) => ({ key, testId: key, kind: "eval" as const })),
    ...trainKeys.map((key) => ({ key, testId: inEval.has(key) ? `train-${key}` : key, kind: "train" as const })),
  ];
}

function Charts({ m, kind, smoothing, xAxis }: { m: MetricsData; kind: "train" | "eval"; smoothing: number; xAxis: XAxisKind }) {
  const specs = useMemo(() => chartSpecs(m).filter((s) => s.kind === kind), [m, kind]);
  const rowsByVariant = useMemo(() => {
    const out: Record<string, MetricRow[]> = {};
    for (const [v, r] of Object.entries(m.byVariant)) out[v] = r[kind];
    return out;
  }, [m, kind]);
  const allRows = useMemo(() => {
    const out: Record<string, MetricRow[]> = {};
    for (const [v, r] of Object.entries(m.byVariant)) out[v] = r.train.length ? r.train : r.eval;
    return out;
  }, [m]);
  const built = useMemo(
    () =>
      specs.map((s) => {
        const series = buildChart(rowsByVariant, s.key, { smoothing, xAxis, maxPoints: MAX_POINTS_PER_LINE });
        const totals: Record<string, number> = {};
        for (const [v, rows] of Object.entries(rowsByVariant)) totals[v] = rows.filter((r) => Number.isFinite(r.values[s.key])).length;
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
  const empty = m.keys.eval.length === 0 && m.keys.train.length === 0;
  return (
    <section className="charts-panel" aria-label="Charts">
      <ChartToolbar metrics={m} />
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
            <b>No curves yet.</b> Press <b>Train</b> (or <b>Step</b>) to start. Every step each variant samples G answers per prompt, scores them with
            its reward, and updates its own copy of the model.
          </p>
          <p className="muted">
            Watch <b>RC-Acc</b> (right answers whose reasoning supports them) against plain <b>Acc</b>: under outcome-only RLVR the gap (CBIR) tends to
            grow, because nothing rewards sound reasoning.
          </p>
        </div>
      ) : (
        <>
          {m.keys.eval.length > 0 && <h3 className="chart-section">Evaluation · held-out set, greedy decoding, every {evalEvery} steps</h3>}
          <Charts m={m} kind="eval" smoothing={smoothing} xAxis={xAxis} />
          {m.keys.train.length > 0 && <h3 className="chart-section">Training · every step, on the sampled rollouts</h3>}
          <Charts m={m} kind="train" smoothing={smoothing} xAxis={xAxis} />
        </>
      )}
    </section>
  );
}
