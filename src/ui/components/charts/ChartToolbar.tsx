/**
 * Smoothing, x-axis, rate zoom, legend, a recording to overlay and JSON
 * export, shared by all charts. Draws the settings it is handed and reports
 * a change through `actions`; reads no store.
 */
import type { OverlayRun } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import type { Experiment } from "../../../settings/experiment";
import type { XAxisKind } from "../../lib/chart-data";
import { attrKey, overlayKey, seriesStyle, type SeriesStyle } from "../../lib/series-meta";
import { Slider } from "../Field";

function Swatch({ st }: { st: SeriesStyle }) {
  if (st.kind === "variant") return <span className="swatch" style={{ background: st.color }} />;
  return (
    <span
      className={st.kind === "fork" ? "swatch dashed" : "swatch dotted"}
      style={{ color: st.color }}
    />
  );
}

/** What the toolbar's controls change (the panel passes the store's actions). */
export interface ChartToolbarActions {
  setSmoothing(v: number): void;
  setXAxis(k: XAxisKind): void;
  setZoomToData(z: boolean): void;
  /** Draws the shipped recording of `preset` over the live run. */
  overlayRecording(preset: string): void;
  /** Downloads every metric row of `metrics`, the markers and the shown experiment as JSON. */
  exportJson(metrics: MetricsData): void;
}

export interface ChartToolbarProps {
  metrics: MetricsData;
  overlays?: OverlayRun[];
  /** The experiment whose series the charts draw (legend names and styles). */
  current: Experiment;
  /** The variants of the experiment that was sent: in the legend before their first row. */
  variantNames: readonly string[];
  smoothing: number;
  xAxis: XAxisKind;
  zoomToData: boolean;
  /** The preset whose shipped recording can be overlaid (null: none can, e.g. during playback). */
  overlayPreset: string | null;
  actions: ChartToolbarActions;
}

export function ChartToolbar({
  metrics,
  overlays = [],
  current,
  variantNames,
  smoothing,
  xAxis,
  zoomToData: zoom,
  overlayPreset: preset,
  actions: st,
}: ChartToolbarProps) {
  const names = Array.from(new Set([...variantNames, ...Object.keys(metrics.byVariant)])).filter(
    Boolean,
  );
  const keys = names.concat(
    overlays.flatMap((o) => Object.keys(o.metrics.byVariant).map((v) => overlayKey(o.id, v))),
  );
  const ctx = { current, markers: metrics.markers, overlays };
  // Rows of a multi-seed run all carry their seed: the first row tells.
  const banded = Object.values(metrics.byVariant).some(
    (r) => r.eval[0]?.seed !== undefined || r.train[0]?.seed !== undefined,
  );
  const hasForks = metrics.markers.some((m) => m.fork);
  const overlaid = overlays.some((o) => o.id === `rec:${preset}`);
  return (
    <div className="chart-toolbar">
      <section className="legend" aria-label="Legend" data-testid="legend">
        {keys.map((k) => {
          const style = seriesStyle(k, ctx);
          return (
            <span key={k} className={`legend-item ${style.kind}`} data-series={attrKey(k)}>
              <Swatch st={style} />
              {style.label}
            </span>
          );
        })}
        <span className="legend-item muted small">
          bold = smoothed, faint = raw (below the overview) · ⚑ = weight changed
          {banded ? " · line = mean over seeds, band = 95 % interval (Student t)" : ""}
          {hasForks ? " · ↱ dashed = fork" : ""}
          {overlays.length ? " · dotted = overlaid run" : ""}
        </span>
      </section>
      <Slider
        label="Smoothing"
        value={smoothing}
        min={0}
        max={0.99}
        step={0.01}
        format={(v) => v.toFixed(2)}
        tip="TensorBoard's debiased exponential moving average. 0 = raw values. The faint line always shows the raw values."
        onChange={(v) => st.setSmoothing(v)}
      />
      <div className="field" role="radiogroup" aria-label="X axis">
        <span className="label">X axis</span>
        <div className="seg">
          {(["step", "time"] as const).map((k) => (
            <button
              key={k}
              type="button"
              aria-pressed={xAxis === k}
              className={xAxis === k ? "chip on" : "chip"}
              onClick={() => st.setXAxis(k)}
            >
              {k === "step" ? "Step" : "Wall time"}
            </button>
          ))}
        </div>
      </div>
      <div className="field" role="radiogroup" aria-label="Rate axis">
        <span className="label">Rates</span>
        <div className="seg">
          {([false, true] as const).map((z) => (
            <button
              key={String(z)}
              type="button"
              aria-pressed={zoom === z}
              className={zoom === z ? "chip on" : "chip"}
              title={
                z
                  ? "Fit each chart's y axis to its data: small moves look large"
                  : "Draw every rate on 0 to 1, so a small move looks small"
              }
              onClick={() => st.setZoomToData(z)}
            >
              {z ? "Zoom to data" : "0 to 1"}
            </button>
          ))}
        </div>
      </div>
      {preset && (
        <button
          type="button"
          className="small-btn"
          disabled={overlaid}
          data-testid="overlay-recording"
          title="Draw the shipped recording of this experiment (several seeds, made with npm run record) over the live run"
          onClick={() => st.overlayRecording(preset)}
        >
          {overlaid ? "Recording overlaid" : "Overlay recording"}
        </button>
      )}
      <button
        type="button"
        className="small-btn"
        title="Download every metric row, marker and the experiment as JSON"
        onClick={() => st.exportJson(metrics)}
      >
        Export JSON
      </button>
    </div>
  );
}
