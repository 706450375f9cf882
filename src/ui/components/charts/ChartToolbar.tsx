/** Smoothing, x-axis, legend and JSON export, shared by all charts. */
import { useLab, labStore } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import { downloadText } from "../../lib/csv";
import { variantColor, variantLabel } from "../../lib/variant-meta";
import { Slider } from "../Field";
import { exportRunJson } from "../../lib/export-json";

export function ChartToolbar({ metrics }: { metrics: MetricsData }) {
  const smoothing = useLab((s) => s.smoothing);
  const xAxis = useLab((s) => s.xAxis);
  const variants = useLab((s) => (s.sentExperiment ?? s.experiment).variants.map((v) => v.name).join(","));
  const names = Array.from(new Set([...variants.split(","), ...Object.keys(metrics.byVariant)])).filter(Boolean);
  const st = labStore.getState();
  return (
    <div className="chart-toolbar">
      <div className="legend" aria-label="Legend">
        {names.map((v) => (
          <span key={v} className="legend-item">
            <span className="swatch" style={{ background: variantColor(v) }} />
            {variantLabel(v)}
          </span>
        ))}
        <span className="legend-item muted small">bold = smoothed, faint = raw · ⚑ = weight changed</span>
      </div>
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
            <button key={k} type="button" role="radio" aria-checked={xAxis === k} className={xAxis === k ? "chip on" : "chip"} onClick={() => st.setXAxis(k)}>
              {k === "step" ? "Step" : "Wall time"}
            </button>
          ))}
        </div>
      </div>
      <button
        type="button"
        className="small-btn"
        title="Download every metric row, marker and the experiment as JSON"
        onClick={() => {
          const s = labStore.getState();
          downloadText("reward-lab-run.json", exportRunJson(s.sentExperiment ?? s.experiment, metrics), "application/json");
        }}
      >
        Export JSON
      </button>
    </div>
  );
}
