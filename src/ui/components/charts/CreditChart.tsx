/**
 * "What each variant pays for": per variant and rollout class, one line over
 * the training steps of the class's mean advantage (or mean reward, or share
 * of rollouts), in the variant's colour, the class told by its marker and
 * dash (src/ui/lib/class-marks.ts), with the 95 % seed band where the run has
 * several seeds. A class with no rollout at a step has no point there. The
 * legend names each class with its one-line definition. Draws only what it
 * is handed (./CreditPanel.tsx reads the store).
 */
import { memo } from "react";
import { useFirstTurn, useStaggered } from "./stagger";
import {
  Area,
  CartesianGrid,
  ComposedChart,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipProps,
} from "recharts";
import {
  creditAxes,
  gapPoints,
  type CreditClass,
  type CreditLine,
  type CreditMeasure,
  type GapPoint as ChartPoint,
} from "../../lib/credit-data";
import { classMark, isOutline, markPath } from "../../lib/class-marks";
import { attrKey } from "../../lib/series-meta";
import { variantColor, variantLabel } from "../../../settings/variant-meta";

export interface CreditChartProps {
  lines: readonly CreditLine[];
  classes: readonly CreditClass[];
  /** The run's variants, in legend order (a variant without a line is still named). */
  variants: readonly string[];
  measure: CreditMeasure;
  height?: number;
  /** Thicker lines and larger ticks (presentation size). */
  bold?: boolean;
}

const signed = (v: number) => `${v > 0 ? "+" : v < 0 ? "−" : ""}${Math.abs(v).toFixed(2)}`;

/** The y axis title of each measure. */
export const MEASURE_TITLE: Record<CreditMeasure, string> = {
  advantage: "mean advantage",
  reward: "mean reward",
  share: "share of rollouts",
};

/** One class's marker as an inline SVG (legend, tooltip). */
function ClassGlyph({ cls, color = "#333" }: { cls: string; color?: string }) {
  const m = classMark(cls);
  return (
    <svg width={30} height={12} className="class-glyph" aria-hidden="true">
      <line
        x1={1}
        y1={6}
        x2={29}
        y2={6}
        stroke={color}
        strokeWidth={1.5}
        strokeDasharray={m.dash}
      />
      <path
        d={markPath(m.shape, 15, 6, 4)}
        fill={isOutline(m.shape) ? "white" : color}
        stroke={color}
        strokeWidth={1.5}
      />
    </svg>
  );
}

interface DotProps {
  cx?: number;
  cy?: number;
}

/** recharts dot renderer drawing a class's marker. */
function dotOf(cls: string, color: string, r: number) {
  const m = classMark(cls);
  return (p: DotProps) => {
    if (p.cx === undefined || p.cy === undefined || !Number.isFinite(p.cy))
      return <g key={`${p.cx}`} />;
    return (
      <path
        key={`${p.cx}:${p.cy}`}
        d={markPath(m.shape, p.cx, p.cy, r)}
        fill={isOutline(m.shape) ? "white" : color}
        stroke={color}
        strokeWidth={1.5}
      />
    );
  };
}

function CreditTooltip({
  active,
  payload,
  label,
  measure,
}: TooltipProps<number, string> & { measure: CreditMeasure }) {
  if (!active || !payload?.length) return null;
  const rows = payload.filter((p) => p.dataKey === "y" && (p.payload as ChartPoint).y !== null);
  return (
    <div className="chart-tooltip">
      <div className="muted">
        step {String(label)} · {MEASURE_TITLE[measure]}
      </div>
      {rows.map((p) => {
        const pt = p.payload as ChartPoint;
        return (
          <div key={String(p.name)} className="tt-row">
            <span>{String(p.name)}:</span>
            <span>
              {measure === "share" ? (pt.y ?? 0).toFixed(2) : signed(pt.y ?? 0)}
              {pt.band
                ? ` · 95 % CI [${signed(pt.band[0])}, ${signed(pt.band[1])}] · n ${pt.n}`
                : ""}
            </span>
          </div>
        );
      })}
    </div>
  );
}

function CreditChartImpl(props: CreditChartProps) {
  // The data attributes and the legend follow the newest props at once; the plot redraws at this chart's
  // turn (./stagger.ts), in its own task: drawn with the others, it made one task of the whole page's charts.
  const { classes, variants, bold } = props;
  const latest = props.lines;
  const { lines, measure, height = 220 } = useStaggered(props);
  const ready = useFirstTurn();
  const label = new Map(classes.map((c) => [c.key, c.label]));
  const data = lines.map((l) => ({ line: l, points: gapPoints(l) }));
  // The axes follow the lines (seed means), not their bands (creditAxes); a wider band is cut at the edge.
  const { x, y } = creditAxes(
    data.map((d) => d.points),
    measure,
  );
  const attrs: Record<string, string | number> = { "data-lines": latest.length };
  for (const l of latest) attrs[`data-line-${attrKey(l.variant)}-${l.cls}`] = l.points.length;
  const tick = bold ? 15 : 11;
  const r = bold ? 6 : 4;
  return (
    <div
      className="credit-chart-body"
      data-testid="credit-chart"
      data-measure={props.measure}
      data-drawn-measure={measure}
      {...attrs}
    >
      <div className="credit-plot" style={ready ? undefined : { height }}>
        {ready && (
          <ResponsiveContainer width="100%" height={height}>
            <ComposedChart margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e4e7eb" />
              <XAxis
                dataKey="x"
                type="number"
                domain={x.domain}
                ticks={x.ticks}
                interval={0}
                fontSize={tick}
                allowDuplicatedCategory={false}
              />
              <YAxis
                width={bold ? 62 : 48}
                domain={y.domain}
                allowDataOverflow
                ticks={y.ticks}
                interval={0}
                fontSize={tick}
                tickFormatter={(v: number) => (measure === "share" ? String(v) : signed(v))}
              />
              <Tooltip content={<CreditTooltip measure={measure} />} />
              {measure !== "share" && <ReferenceLine y={0} stroke="#888" />}
              {data.map(({ line, points }) =>
                points.some((p) => p.band) ? (
                  <Area
                    key={`${line.variant}:${line.cls}:band`}
                    data={points}
                    dataKey="band"
                    stroke="none"
                    fill={variantColor(line.variant)}
                    fillOpacity={0.1}
                    isAnimationActive={false}
                    legendType="none"
                    activeDot={false}
                  />
                ) : null,
              )}
              {data.map(({ line, points }) => {
                const c = variantColor(line.variant);
                return (
                  <Line
                    key={`${line.variant}:${line.cls}`}
                    className={`credit-line credit-${attrKey(line.variant)}-${line.cls}`}
                    data={points}
                    dataKey="y"
                    name={`${variantLabel(line.variant)} · ${label.get(line.cls) ?? line.cls}`}
                    stroke={c}
                    strokeWidth={bold ? 3 : 1.8}
                    strokeDasharray={classMark(line.cls).dash}
                    dot={dotOf(line.cls, c, r)}
                    activeDot={false}
                    isAnimationActive={false}
                    connectNulls={false}
                  />
                );
              })}
            </ComposedChart>
          </ResponsiveContainer>
        )}
      </div>
      <div className="credit-legend" data-testid="credit-legend">
        <ul className="credit-variants">
          {variants.map((v) => (
            <li key={v}>
              <span className="swatch" style={{ background: variantColor(v) }} />
              {variantLabel(v)}
            </li>
          ))}
        </ul>
        <ul className="credit-classes">
          {classes.map((c) => (
            <li key={c.key} data-class={c.key}>
              <ClassGlyph cls={c.key} />
              <b>{c.label}</b>: <span className="muted">{c.definition}</span>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

export const CreditChart = memo(CreditChartImpl);
