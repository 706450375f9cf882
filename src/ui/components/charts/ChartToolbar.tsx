/** Smoothing, x-axis, rate zoom, legend, a recording to overlay and JSON export, shared by all charts. */
import { useLab, labStore, type OverlayRun } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import type { Experiment } from "../../../settings/experiment";
import { downloadText } from "../../lib/csv";
import { attrKey, overlayKey, seriesStyle, type SeriesStyle } from "../../lib/series-meta";
import { Slider } from "../Field";
import { exportRunJson } from "../../lib/export-json";

function Swatch({ st }: { st: SeriesStyle }) {
  if (st.kind === "variant") return <span className="swatch" style={{ background: st.color }} />;
  return (
    <span
      className={st.kind === "fork" ? "swatch dashed" : "swatch dotted"}
      style={{ color: st.color }}
    />
  );
}

export function ChartToolbar({
  metrics,
  overlays = [],
  current,
}: {
  metrics: MetricsData;
  overlays?: OverlayRun[];
  current?: Experiment;
}) {
  const smoothing = useLab((s) => s.smoothing);
  const xAxis = useLab((s) => s.xAxis);
  const variants = useLab((s) =>
    (s.sentExperiment ?? s.experiment).variants.map((v) => v.name).join(","),
  );
  const fallback = useLab((s) => s.sentExperiment ?? s.experiment);
  const names = Array.from(
    new Set([...variants.split(","), ...Object.keys(metrics.byVariant)]),
  ).filter(Boolean);
  const keys = names.concat(
    overlays.flatMap((o) => Object.keys(o.metrics.byVariant).map((v) => overlayKey(o.id, v))),
  );
  const ctx = { current: current ?? fallback, markers: metrics.markers, overlays };
  // Rows of a multi-seed run all carry their seed: the first row tells.
  const banded = Object.values(metrics.byVariant).some(
    (r) => r.eval[0]?.seed !== undefined || r.train[0]?.seed !== undefined,
  );
  const hasForks = metrics.markers.some((m) => m.fork);
  const zoom = useLab((s) => s.zoomToData);
  const preset = useLab((s) => s.presetName);
  const canOverlay = useLab((s) => s.playback === null && s.recordings !== null);
  const overlaid = overlays.some((o) => o.id === `rec:${preset}`);
  const st = labStore.getState();
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
      {canOverlay && preset && (
        <button
          type="button"
          className="small-btn"
          disabled={overlaid}
          data-testid="overlay-recording"
          title="Draw the shipped recording of this experiment (several seeds, made with npm run record) over the live run"
          onClick={() => void st.overlayRecording(preset)}
        >
          {overlaid ? "Recording overlaid" : "Overlay recording"}
        </button>
      )}
      <button
        type="button"
        className="small-btn"
        title="Download every metric row, marker and the experiment as JSON"
        onClick={() => {
          const s = labStore.getState();
          downloadText(
            "reward-lab-run.json",
            exportRunJson(s.sentExperiment ?? s.experiment, metrics),
            "application/json",
          );
        }}
      >
        Export JSON
      </button>
    </div>
  );
}
