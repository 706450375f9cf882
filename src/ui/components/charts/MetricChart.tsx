/**
 * One metric, one line per series: the smoothed value (bold) over the raw
 * value (faint), markers where a weight changed, a fork branched (↱) or a
 * fault was got over (⚠: a lost device, a skipped update). A
 * seed-averaged series (PlotPoint.band) also gets its 95 % interval as a
 * translucent band in the same colour; forks and overlaid runs are dashed
 * (SeriesStyle). Knows nothing about training, and reads no store: it
 * draws what it is handed (ChartsPanel reads the store).
 */
import { memo, useEffect, useRef, useState } from "react";
import {
  Area,
  CartesianGrid,
  ComposedChart,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipProps,
} from "recharts";
import type { Marker, MetricRow } from "../../../run/run-types";
import {
  bandOverflows,
  chartToCsv,
  flatDomain,
  markerX,
  niceTicks,
  seriesExtent,
  type PlotPoint,
  type XAxisKind,
} from "../../lib/chart-data";
import { downloadText } from "../../lib/csv";
import { metricMeta } from "../../lib/metric-meta";
import { variantColor, variantLabel } from "../../../settings/variant-meta";
import { attrKey, type SeriesStyle } from "../../lib/series-meta";
import { Tip } from "../Field";
import { downloadSvgAsPng } from "../../lib/svg-png";
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
  /** How each series key is drawn and named (default: a plain variant line). */
  styles?: Record<string, SeriesStyle>;
  /** Plot height in px (default 170; the overview's charts are larger). */
  height?: number;
  /** A fixed y range (rates: [0, 1]); absent: fitted to the data. */
  yDomain?: [number, number];
  /** Thicker lines and larger ticks (presentation size). */
  bold?: boolean;
  /** Show the metric's meaning under the title (the overview's charts). */
  explain?: boolean;
  /**
   * A callout's "show chart" asking for this chart: a count that changes with
   * each ask (scroll here and flash); null: not asked for.
   */
  focus?: number | null;
  /** Told why a PNG export failed (the message starts "PNG export failed: "). */
  onExportError?: (message: string) => void;
}

/** The first sentence of a metric's description, and which way is better when it says. */
function captionOf(description: string): string {
  const first = description.split(/(?<=\.)\s/)[0].replace(/\.$/, "");
  const lower = /lower is better/i.test(description);
  const higher = /higher is better/i.test(description);
  return `${first}${lower ? " (lower is better)" : higher ? " (higher is better)" : ""}`;
}

const fmt = (v: number) => {
  if (!Number.isFinite(v)) return "";
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(1);
  return Number(v.toPrecision(a < 0.01 ? 2 : 3)).toString();
};

const styleOf = (styles: Record<string, SeriesStyle> | undefined, key: string): SeriesStyle =>
  styles?.[key] ?? {
    kind: "variant",
    color: variantColor(key),
    opacity: 1,
    label: variantLabel(key),
  };

/** Tooltip: per series the (smoothed) value; for a seed-averaged series the mean, its 95 % interval and n. */
function ChartTooltip({
  active,
  payload,
  label,
  xAxis,
}: TooltipProps<number, string> & { xAxis: XAxisKind }) {
  if (!active || !payload?.length) return null;
  const seen = new Set<string>();
  const rows = payload.filter((p) => {
    const key = String(p.name ?? "");
    if (p.dataKey !== "smooth" || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return (
    <div className="chart-tooltip">
      <div className="muted">{`${xAxis === "step" ? "step" : "time (s)"} ${fmt(Number(label))}`}</div>
      {rows.map((p) => {
        const pt = p.payload as PlotPoint;
        return (
          <div key={String(p.name)} className="tt-row">
            <span className="swatch" style={{ background: p.color }} />
            <span>{String(p.name)}:</span>
            {pt.band && pt.n === 1 ? (
              <span>
                {fmt(pt.raw)} · held-out 95 % interval [{fmt(pt.band[0])}, {fmt(pt.band[1])}]
                {pt.smooth !== pt.raw ? ` · smoothed ${fmt(pt.smooth)}` : ""}
              </span>
            ) : pt.band ? (
              <span>
                mean {fmt(pt.raw)} · 95 % CI [{fmt(pt.band[0])}, {fmt(pt.band[1])}] · n {pt.n}
                {pt.smooth !== pt.raw ? ` · smoothed ${fmt(pt.smooth)}` : ""}
              </span>
            ) : (
              <span>
                {fmt(pt.smooth)}
                {pt.smooth !== pt.raw ? ` (raw ${fmt(pt.raw)})` : ""}
              </span>
            )}
          </div>
        );
      })}
    </div>
  );
}

function MetricChartImpl(props: MetricChartProps) {
  // Data attributes follow the newest data at once; the SVG redraws at this chart's turn.
  const { metricKey, testId, kind, totals, yDomain, bold, explain, onExportError } = props;
  const height = props.height ?? 170;
  const { series, rowsByVariant, markers, xAxis, smoothing, styles } = useStaggered(props);
  const latestSeries = props.series;
  const meta = metricMeta(metricKey);
  const variants = Object.keys(series);
  const attrs: Record<string, string | number> = {};
  for (const v of Object.keys(latestSeries)) {
    // Fork and overlay keys hold "@" or "/", which attribute names may not: attrKey("grr@fork12") = "grr_fork12".
    attrs[`data-points-${attrKey(v)}`] = latestSeries[v].length;
    attrs[`data-total-${attrKey(v)}`] = totals[v] ?? latestSeries[v].length;
    const first = latestSeries[v][0];
    if (first) attrs[`data-first-step-${attrKey(v)}`] = first.step;
    if (first?.band) attrs[`data-banded-${attrKey(v)}`] = 1;
    // The newest point as "step:value" (raw, unsmoothed): what page scripts and timings read.
    const last = latestSeries[v][latestSeries[v].length - 1];
    if (last) attrs[`data-last-${attrKey(v)}`] = `${last.step}:${last.raw}`;
  }
  // A band needs ComposedChart (LineChart draws only Lines); single-seed charts keep the plain LineChart.
  const Chart = variants.some((v) => series[v][0]?.band) ? ComposedChart : LineChart;
  const flat = flatDomain(series);
  const ext = seriesExtent(series);
  const yAxis = yDomain
    ? niceTicks(yDomain[0], yDomain[1], 5)
    : flat
      ? niceTicks(flat[0], flat[1], 3)
      : niceTicks(ext.y[0], ext.y[1], 5);
  // A band wider than the axis (few seeds) is clipped at the plot's edge, not allowed to stretch the axis.
  const clipBands = bandOverflows(series, yAxis.domain);
  const xAxisTicks = niceTicks(Math.min(0, ext.x[0]), Math.max(ext.x[1], 1), 6);
  const csv = () =>
    downloadText(`${metricKey}-${kind}.csv`, chartToCsv(metricKey, series, smoothing));
  const ref = useRef<HTMLElement>(null);
  // A callout's "show chart": scroll here and flash.
  const focus = props.focus ?? null;
  const focused = focus !== null;
  useEffect(() => {
    if (focus !== null) ref.current?.scrollIntoView?.({ block: "center", behavior: "smooth" });
  }, [focus]);
  const tick = bold ? 15 : 11;
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
        onExportError?.(`PNG export failed: ${e instanceof Error ? e.message : String(e)}`),
      );
  };
  if (!ready)
    return (
      <figure
        ref={ref}
        className="chart chart-pending"
        data-testid={`chart-${testId}`}
        data-metric={metricKey}
        data-kind={kind}
        {...attrs}
      />
    );
  return (
    <figure
      ref={ref}
      className={focused ? "chart focused" : "chart"}
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
        <button
          type="button"
          className="small-btn"
          onClick={csv}
          aria-label={`Export ${meta.title} as CSV`}
          title="Download exactly the plotted points (raw and smoothed) as CSV"
        >
          CSV
        </button>
        <button
          type="button"
          className="small-btn"
          onClick={png}
          aria-label={`Export ${meta.title} as PNG`}
          title="Download the chart as a PNG image"
        >
          PNG
        </button>
      </figcaption>
      {explain && (
        <p className="chart-caption" title={meta.description}>
          {captionOf(meta.description)}
        </p>
      )}
      {!inView ? (
        <div className="chart-offscreen" style={{ height }} aria-hidden="true" />
      ) : (
        <ResponsiveContainer width="100%" height={height}>
          <Chart margin={{ top: 6, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e4e7eb" />
            {/* Explicit ticks and interval 0: recharts then measures no tick labels in the DOM. */}
            <XAxis
              dataKey="x"
              type="number"
              domain={xAxisTicks.domain}
              ticks={xAxisTicks.ticks}
              interval={0}
              tickFormatter={xAxis === "time" ? (v: number) => `${fmt(v)}s` : fmt}
              fontSize={tick}
              allowDuplicatedCategory={false}
            />
            <YAxis
              width={bold ? 62 : 54}
              tickFormatter={fmt}
              fontSize={tick}
              domain={yAxis.domain}
              ticks={yAxis.ticks}
              interval={0}
              allowDataOverflow={clipBands}
            />
            {hover && <Tooltip content={<ChartTooltip xAxis={xAxis} />} />}
            {/* Bands first, so every line stays on top of every band. */}
            {variants.map((v) => {
              if (!series[v][0]?.band) return null;
              const st = styleOf(styles, v);
              return (
                <Area
                  key={`${v}-band`}
                  className={`seed-band band-${attrKey(v)}`}
                  data={series[v]}
                  dataKey="band"
                  name={`${st.label} (95 % CI)`}
                  stroke="none"
                  fill={st.color}
                  fillOpacity={st.kind === "overlay" ? 0.08 : 0.18}
                  isAnimationActive={false}
                  legendType="none"
                  activeDot={false}
                />
              );
            })}
            {variants.flatMap((v) => {
              const st = styleOf(styles, v);
              const c = st.color;
              const few = series[v].length <= 12;
              const raw =
                st.kind === "overlay" ? null : (
                  <Line
                    key={`${v}-raw`}
                    data={series[v]}
                    dataKey="raw"
                    name={`${st.label} (raw)`}
                    stroke={c}
                    strokeOpacity={0.28}
                    strokeWidth={bold ? 2 : 1}
                    strokeDasharray={st.dash}
                    dot={false}
                    isAnimationActive={false}
                    legendType="none"
                  />
                );
              return [
                raw,
                <Line
                  key={`${v}-smooth`}
                  className={`series-${st.kind} line-${attrKey(v)}`}
                  data={series[v]}
                  dataKey="smooth"
                  name={st.label}
                  stroke={c}
                  strokeOpacity={st.opacity}
                  strokeWidth={(st.kind === "overlay" ? 1.5 : 2) * (bold ? 2 : 1)}
                  strokeDasharray={st.dash}
                  dot={few && st.kind !== "overlay" ? { r: bold ? 4 : 2, fill: c } : false}
                  isAnimationActive={false}
                />,
              ];
            })}
            {markers.map((m) => {
              const x = markerX(m, rowsByVariant[m.variant] ?? [], xAxis);
              const c = variantColor(m.variant);
              return x === null ? null : (
                <ReferenceLine
                  key={`m${m.variant}@${m.step}:${m.label}`}
                  x={x}
                  stroke={c}
                  strokeDasharray="4 3"
                  ifOverflow="extendDomain"
                  label={{
                    value: m.fault ? "⚠" : m.fork ? "↱" : "⚑",
                    position: "insideTopLeft",
                    fontSize: tick,
                    fill: c,
                  }}
                />
              );
            })}
          </Chart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}

export const MetricChart = memo(MetricChartImpl);
