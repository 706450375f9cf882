/**
 * One metric, one line per variant: the smoothed value (bold) over the raw
 * value (faint), markers where a weight changed. Knows nothing about training.
 */
import { memo, useRef, useState } from "react";
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Marker, MetricRow } from "../../../workers/protocol";
import { chartToCsv, flatDomain, markerX, niceTicks, seriesExtent, type PlotPoint, type XAxisKind } from "../../lib/chart-data";
import { downloadText } from "../../lib/csv";
import { metricMeta } from "../../lib/metric-meta";
import { variantColor, variantLabel } from "../../lib/variant-meta";
import { Tip } from "../Field";
import { downloadSvgAsPng } from "../../lib/svg-png";
import { labStore } from "../../../store";
import { useInView } from "./useInView";
import { useFirstTurn, useStaggered } from "./stagger";

export interface MetricChartProps {
  metricKey: string;
  testId: string;
  kind: "train" | "eval";
  series: Record<string, PlotPoint[]>;
  totals: Record<string, number>;
  rowsByVariant: Record<string, MetricRow[]>;
  markers: Marker[];
  xAxis: XAxisKind;
  smoothing: number;
}

const fmt = (v: number) => {
  if (!Number.isFinite(v)) return "";
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(1);
  return Number(v.toPrecision(a < 0.01 ? 2 : 3)).toString();
};

function MetricChartImpl(props: MetricChartProps) {
  // Data attributes follow the newest data at once; the SVG redraws at this chart's turn.
  const { metricKey, testId, kind, totals } = props;
  const { series, rowsByVariant, markers, xAxis, smoothing } = useStaggered(props);
  const latestSeries = props.series;
  const meta = metricMeta(metricKey);
  const variants = Object.keys(series);
  const attrs: Record<string, string | number> = {};
  for (const v of Object.keys(latestSeries)) {
    attrs[`data-points-${v}`] = latestSeries[v].length;
    attrs[`data-total-${v}`] = totals[v] ?? latestSeries[v].length;
  }
  const flat = flatDomain(series);
  const ext = seriesExtent(series);
  const yAxis = flat ? niceTicks(flat[0], flat[1], 3) : niceTicks(ext.y[0], ext.y[1], 5);
  const xAxisTicks = niceTicks(Math.min(0, ext.x[0]), Math.max(ext.x[1], 1), 6);
  const csv = () => downloadText(`${metricKey}-${kind}.csv`, chartToCsv(metricKey, series, smoothing));
  const ref = useRef<HTMLElement>(null);
  // Coming into view is a redraw too: it waits for this chart's turn.
  const inView = useStaggered(useInView(ref));
  // A new chart's header and body arrive at its first turn, not with all the others.
  const ready = useFirstTurn();
  // The tooltip machinery is mounted only while the pointer is over the chart.
  const [hover, setHover] = useState(false);
  const png = () => {
    const svg = ref.current?.querySelector<SVGSVGElement>("svg.recharts-surface");
    if (svg)
      downloadSvgAsPng(svg, `${metricKey}-${kind}.png`).catch((e) =>
        labStore.getState().reportError(`PNG export failed: ${e instanceof Error ? e.message : String(e)}`, false, "page"),
      );
  };
  if (!ready) return <figure ref={ref} className="chart chart-pending" data-testid={`chart-${testId}`} data-metric={metricKey} data-kind={kind} {...attrs} />;
  return (
    <figure
      ref={ref}
      className="chart"
      data-testid={`chart-${testId}`}
      data-metric={metricKey}
      data-kind={kind}
      {...attrs}
      onPointerEnter={() => setHover(true)}
      onPointerLeave={() => setHover(false)}
    >
      <figcaption className="chart-head">
        <span className="chart-title">{meta.title}</span>
        {meta.title !== metricKey && <code className="muted small">{metricKey}</code>}
        <Tip text={meta.description} />
        <span className="spacer" />
        <button type="button" className="small-btn" onClick={csv} aria-label={`Export ${meta.title} as CSV`} title="Download exactly the plotted points (raw and smoothed) as CSV">
          CSV
        </button>
        <button type="button" className="small-btn" onClick={png} aria-label={`Export ${meta.title} as PNG`} title="Download the chart as a PNG image">
          PNG
        </button>
      </figcaption>
      {!inView ? (
        <div className="chart-offscreen" style={{ height: 170 }} aria-hidden="true" />
      ) : (
      <ResponsiveContainer width="100%" height={170}>
        <LineChart margin={{ top: 6, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e4e7eb" />
          {/* Explicit ticks and interval 0: recharts then measures no tick labels in the DOM. */}
          <XAxis dataKey="x" type="number" domain={xAxisTicks.domain} ticks={xAxisTicks.ticks} interval={0} tickFormatter={xAxis === "time" ? (v: number) => `${fmt(v)}s` : fmt} fontSize={11} allowDuplicatedCategory={false} />
          <YAxis width={54} tickFormatter={fmt} fontSize={11} domain={yAxis.domain} ticks={yAxis.ticks} interval={0} />
          {hover && <Tooltip
            formatter={(v, name) => [fmt(Number(v)), String(name)]}
            labelFormatter={(l) => `${xAxis === "step" ? "step" : "time (s)"} ${fmt(Number(l))}`}
            contentStyle={{ fontSize: 12 }}
          />}
          {variants.flatMap((v) => {
            const c = variantColor(v);
            const few = series[v].length <= 12;
            return [
              <Line key={`${v}-raw`} data={series[v]} dataKey="raw" name={`${variantLabel(v)} (raw)`} stroke={c} strokeOpacity={0.28} strokeWidth={1} dot={false} isAnimationActive={false} legendType="none" />,
              <Line key={`${v}-smooth`} data={series[v]} dataKey="smooth" name={variantLabel(v)} stroke={c} strokeWidth={2} dot={few ? { r: 2, fill: c } : false} isAnimationActive={false} />,
            ];
          })}
          {markers.map((m, i) => {
            const x = markerX(m, rowsByVariant[m.variant] ?? [], xAxis);
            return x === null ? null : (
              <ReferenceLine key={`m${i}`} x={x} stroke={variantColor(m.variant)} strokeDasharray="4 3" ifOverflow="extendDomain" label={{ value: "⚑", position: "insideTopLeft", fontSize: 11, fill: variantColor(m.variant) }} />
            );
          })}
        </LineChart>
      </ResponsiveContainer>
      )}
    </figure>
  );
}

export const MetricChart = memo(MetricChartImpl);
