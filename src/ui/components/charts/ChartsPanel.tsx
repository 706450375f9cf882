/**
 * The charts: first the overview (the few held-out metrics the chosen
 * experiment is about, large, rates on [0, 1] unless zoomed, with the seed
 * band, or one seed's held-out sampling band), then the other metrics one
 * click away in groups (held-out, training, rewards, cost). Each chart draws
 * the current run's variants and forks, and the runs checked for overlay
 * (series keys of src/ui/lib/series-meta.ts). The panel reads the store and
 * hands every chart, the toolbar and the marker list what they draw.
 */
import { useMemo, useState, type ReactNode } from "react";
import { useLab, labStore, type OverlayRun } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import type { Experiment } from "../../../settings/experiment";
import type { MetricRow } from "../../../run/run-types";
import { buildChart, MAX_POINTS_PER_LINE, type XAxisKind } from "../../lib/chart-data";
import { sortMetricKeys } from "../../lib/metric-meta";
import { isFraction } from "../../lib/bands";
import { splitSpecs, type MetricGroupName } from "../../lib/metric-groups";
import { overviewMetrics } from "../../../store/lesson";
import { overlayKey, seriesStyle, type SeriesStyle } from "../../lib/series-meta";
import { MetricChart } from "./MetricChart";
import { ChartToolbar, type ChartToolbarActions } from "./ChartToolbar";
import { downloadText } from "../../lib/csv";
import { exportRunJson } from "../../lib/export-json";
import { useThrottledMetrics } from "./useThrottledMetrics";
import { MarkerList } from "./MarkerList";
import { READ_ORDER } from "../../lib/guide-text";

import type { ChartSpec } from "../../lib/metric-groups";

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

/** How a group of charts is drawn. */
interface ChartLook {
  height?: number;
  /** Rates on [0, 1] (false: fitted to the data). */
  rateDomain: boolean;
  /** One-seed eval charts get the held-out sampling band over this many answers. */
  samplingN?: number;
  bold: boolean;
}

function Charts({
  m,
  specs: shown,
  smoothing,
  xAxis,
  overlays,
  current,
  focus,
  look,
}: {
  m: MetricsData;
  specs: ChartSpec[];
  smoothing: number;
  xAxis: XAxisKind;
  overlays: OverlayRun[];
  current: Experiment;
  /** The chart a callout's "show chart" asks for, with its ask count (null: none). */
  focus: { chart: string; n: number } | null;
  look: ChartLook;
}) {
  const kind = shown[0]?.kind ?? "eval";
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
  const { samplingN } = look;
  const built = useMemo(
    () =>
      shown.map((s) => {
        const series = buildChart(rowsByVariant, s.key, {
          smoothing,
          xAxis,
          maxPoints: MAX_POINTS_PER_LINE,
          ...(samplingN !== undefined && isFraction(s.key) ? { samplingN } : {}),
        });
        const totals: Record<string, number> = {};
        for (const [v, rows] of Object.entries(rowsByVariant))
          totals[v] = rows.filter((r) => Number.isFinite(r.values[s.key])).length;
        return { spec: s, series, totals };
      }),
    [shown, rowsByVariant, smoothing, xAxis, samplingN],
  );
  if (shown.length === 0) return null;
  return (
    <div className={look.height ? "chart-grid large" : "chart-grid"}>
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
          height={look.height}
          yDomain={look.rateDomain && isFraction(spec.key) ? RATE_DOMAIN : undefined}
          bold={look.bold}
          explain={look.height !== undefined}
          focus={focus?.chart === spec.testId ? focus.n : null}
          onExportError={reportPageError}
        />
      ))}
    </div>
  );
}

/** A chart's failed export, on the page's error banner (not fatal). */
const reportPageError = (message: string) =>
  labStore.getState().reportError(message, false, "page");

/** The toolbar's controls: the store's actions, looked up at the click. */
const toolbarActions: ChartToolbarActions = {
  setSmoothing: (v) => labStore.getState().setSmoothing(v),
  setXAxis: (k) => labStore.getState().setXAxis(k),
  setZoomToData: (z) => labStore.getState().setZoomToData(z),
  overlayRecording: (preset) => void labStore.getState().overlayRecording(preset),
  exportJson: (metrics) => {
    const s = labStore.getState();
    downloadText(
      "reward-lab-run.json",
      exportRunJson(s.sentExperiment ?? s.experiment, metrics),
      "application/json",
    );
  },
};

/** The y range of a rate unless zoomed to the data. */
const RATE_DOMAIN: [number, number] = [0, 1];

/** The groups of "more metrics", each one click away. */
const GROUP_TITLES: Record<MetricGroupName, string> = {
  "held-out": "Held-out",
  training: "Training",
  rewards: "Rewards",
  credit: "Credit per rollout class",
  cost: "Cost",
};

/** The other metrics, grouped (held-out, training, rewards, credit, cost); one group open at a time. */
function MoreMetrics({
  groups,
  render,
  evalNote,
}: {
  groups: Record<MetricGroupName, ChartSpec[]>;
  render: (specs: ChartSpec[]) => ReactNode;
  evalNote: string;
}) {
  const [open, setOpen] = useState<MetricGroupName | null>(null);
  const names = (Object.keys(GROUP_TITLES) as MetricGroupName[]).filter(
    (g) => groups[g].length > 0,
  );
  if (names.length === 0) return null;
  return (
    <section className="more-metrics" aria-label="More metrics">
      <div className="seg" role="toolbar" aria-label="More metrics">
        <span className="label">More metrics:</span>
        {names.map((g) => (
          <button
            key={g}
            type="button"
            className={open === g ? "chip on" : "chip"}
            aria-pressed={open === g}
            data-testid={`metrics-group-${g}`}
            onClick={() => setOpen(open === g ? null : g)}
          >
            {GROUP_TITLES[g]} ({groups[g].length})
          </button>
        ))}
      </div>
      {names.map((g) => (
        // Closed groups stay mounted (their charts' data attributes follow the run) but draw nothing.
        <div key={g} hidden={open !== g} data-group={g}>
          {g === "held-out" && <h3 className="chart-section">{evalNote}</h3>}
          {g === "training" && (
            <h3 className="chart-section">Training · every step, on the sampled rollouts</h3>
          )}
          {render(groups[g])}
        </div>
      ))}
    </section>
  );
}

export function ChartsPanel() {
  const m = useThrottledMetrics();
  const smoothing = useLab((s) => s.smoothing);
  const xAxis = useLab((s) => s.xAxis);
  const viewing = useLab((s) => s.viewingRun);
  const shownExp = useLab((s) => s.sentExperiment ?? s.experiment);
  const { evalEvery } = shownExp.algorithm;
  // The charts describe the run that was sent, not an edit not yet applied.
  const { evalTemperature, evalSize } = shownExp;
  const overlays = useLab((s) => s.overlays);
  const presetName = useLab((s) => s.presetName);
  const zoom = useLab((s) => s.zoomToData);
  const bold = useLab((s) => s.presentation);
  const focus = useLab((s) => s.chartFocus);
  const canOverlay = useLab((s) => s.playback === null && s.recordings !== null);
  const variantNames = useMemo(() => shownExp.variants.map((v) => v.name), [shownExp]);
  const current = useLab(
    (s) =>
      (s.viewingRun !== null ? s.runs.find((r) => r.id === s.viewingRun)?.experiment : undefined) ??
      s.sentExperiment ??
      s.experiment,
  );
  const shown = useMemo(() => withOverlayKeys(m, overlays), [m, overlays]);
  const specs = useMemo(() => chartSpecs(shown), [shown]);
  const overviewKey = overviewMetrics(presetName, current).join(",");
  const split = useMemo(() => splitSpecs(specs, overviewKey.split(",")), [specs, overviewKey]);
  const empty = shown.keys.eval.length === 0 && shown.keys.train.length === 0;
  const banded = Object.values(m.byVariant).some(
    (r) => r.eval[0]?.seed !== undefined || r.train[0]?.seed !== undefined,
  );
  const decoding = evalTemperature === 0 ? "greedy decoding" : `sampled at τ = ${evalTemperature}`;
  const evalNote = `Held-out set · ${evalSize} prompts, ${decoding}, every ${evalEvery} steps`;
  const common = { m, smoothing, xAxis, overlays, current, focus };
  const small: ChartLook = { rateDomain: !zoom, bold };
  return (
    <section className="charts-panel" aria-label="Charts">
      <ChartToolbar
        metrics={m}
        overlays={overlays}
        current={current}
        variantNames={variantNames}
        smoothing={smoothing}
        xAxis={xAxis}
        zoomToData={zoom}
        overlayPreset={canOverlay ? presetName : null}
        actions={toolbarActions}
      />
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
          <h3 className="chart-section overview-note" data-testid="overview-note">
            {evalNote} · unsmoothed · band ={" "}
            {banded
              ? "95 % interval over seeds (Student t)"
              : `95 % interval of the ${evalSize} held-out answers (one seed)`}{" "}
            <span className="role-tag" data-testid="overview-role" title={READ_ORDER.overview.text}>
              {READ_ORDER.overview.tag}
            </span>
          </h3>
          {/* Held-out points are few and each has its band: the overview draws them unsmoothed. */}
          <Charts
            {...common}
            smoothing={0}
            specs={split.overview}
            look={{
              height: bold ? 340 : 260,
              rateDomain: !zoom,
              samplingN: banded ? undefined : evalSize,
              bold,
            }}
          />
          <MoreMetrics
            groups={split.groups}
            evalNote={evalNote}
            render={(g) => <Charts {...common} specs={g} look={small} />}
          />
        </>
      )}
    </section>
  );
}
