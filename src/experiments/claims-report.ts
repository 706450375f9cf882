/**
 * Writers for the claims report (Node only; used by the `claims` CLI): a
 * seed-averaged curve plot as a self-contained SVG, its PNG rendering
 * (resvg), and the markdown table of claim results.
 *
 * Nothing here computes statistics; the numbers come from src/experiments/seed-stats
 * (mean and 95 % Student-t interval over seeds).
 */
import { Resvg, type ResvgRenderOptions } from "@resvg/resvg-js";

/** One paired comparison of a claim, judged on its own (docs/reward-spec.md §2). */
export type ComparisonResult = {
  label: string;
  /** +1: the paper's side is > 0. */
  direction: 1 | -1;
  mean: number;
  /** Sample sd over seeds (0 for one seed). */
  sd: number;
  ci95: [number, number];
  per_seed: number[];
  /** Minimum detectable effect at this N (95 %, power 0.8, paired t); null for one seed. */
  mde: number | null;
  /** The paper's own effect in the lab's units, or null when the paper gives no number. */
  paper_effect: number | null;
  /** Seeds the paper's effect would need at this sd; null without a paper effect; a string past the search bound. */
  n_needed: number | string | null;
  verdict: "reproduced" | "not reproduced" | "inconclusive";
  /** Printed beside the claim's comparisons, not part of its verdict (e.g. SCS App. A's best checkpoint). */
  beside?: true;
};

/** One claim of a paper checked against the lab's runs. */
export type ClaimResult = {
  id: string;
  paper: string;
  statement: string;
  paper_figure: string;
  /** The first comparison's summary (the only one for most claims). */
  lab: { mean: number; ci95: [number, number]; per_seed: number[] } | null;
  /** Every paired comparison; the verdict is their intersection–union. */
  comparisons?: ComparisonResult[];
  verdict: "reproduced" | "not reproduced" | "inconclusive" | "not runnable";
  /**
   * Whether N seeds decide the claim: "yes" when its verdict is reached; for
   * an inconclusive claim "no" when an inconclusive comparison's paper
   * effect needs more seeds than N, else "unknown" (no paper effect).
   */
  decidable?: "yes" | "no" | "unknown";
  command: string;
  reason?: string;
  metric?: string;
  /** The value of the setting the claim is repeated over ("σ_b 0.1", "PRM sft-cold-start"). */
  level?: string;
  /** Whether the scenario keeps the flaw the paper fixes (printed with the claim's verdict). */
  premise?: string;
  /** Comparisons printed beside the claim's that its runs could not give, each with why. */
  skipped?: string[];
};

/** A plot of seed-averaged curves: x (e.g. RL step) against mean with its [lo, hi] band. */
export interface CurvesPlot {
  title: string;
  xLabel: string;
  yLabel: string;
  /** Draw a dashed line at y = 0 (and keep 0 in the y range): a paired-difference plot. */
  zeroLine?: boolean;
  series: {
    label: string;
    /** Any SVG/CSS colour, e.g. "#1f77b4". */
    color: string;
    points: { x: number; mean: number; lo: number; hi: number }[];
  }[];
}

/** SVG canvas size in px (lab choice). */
export const SVG_WIDTH = 640;
export const SVG_HEIGHT = 400;

// Plot area in px (lab choice): room for the y tick labels on the left, the
// legend column on the right, the title on top and the x labels below.
const PLOT = { left: 64, right: SVG_WIDTH - 170, top: 40, bottom: SVG_HEIGHT - 52 };
const FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif";

/** Escapes text for XML character data and attribute values (& < > " '). */
export function escapeXml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!,
  );
}

/**
 * "Nice" tick step for a range: 1, 2, 5 or 10 × 10^k with about `target`
 * ticks (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990).
 */
function niceStep(range: number, target: number): number {
  const raw = range / Math.max(1, target);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  const nice = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  return nice * mag;
}

/**
 * Axis domain extended to whole tick steps, and its ticks. A zero-width data
 * range is widened by ±1 (or ±|v|·10 %) so it has a visible extent (lab
 * choice); no data gives [0, 1].
 */
function axis(values: number[]): { min: number; max: number; ticks: number[]; decimals: number } {
  let lo = values.length ? Math.min(...values) : 0;
  let hi = values.length ? Math.max(...values) : 1;
  if (hi - lo === 0) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const step = niceStep(hi - lo, 5);
  const min = Math.floor(lo / step) * step;
  const max = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let i = 0; min + i * step <= max + step * 1e-9; i++) ticks.push(min + i * step);
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return { min, max, ticks, decimals };
}

/** Number with `decimals` decimals; −0 printed as 0. */
function fmt(v: number, decimals: number): string {
  const s = v.toFixed(decimals);
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}

/** px with 2 decimals (keeps the SVG small). */
const px = (v: number): string => (Math.round(v * 100) / 100).toString();

/**
 * A self-contained SVG (SVG_WIDTH × SVG_HEIGHT = 640 × 400 px, white
 * background) of seed-averaged curves: title, x and y axes with numbered
 * ticks (nice 1/2/5 × 10^k steps), axis labels, a legend (one colour swatch
 * and label per series, in series order), and per series its mean as one
 * `<polyline>` and its [lo, hi] band as one translucent `<polygon>`
 * (fill-opacity 0.2; upper edge along hi, lower edge along lo). A series
 * with a single point also gets a dot, since a one-point polyline draws
 * nothing.
 *
 * Points: sorted by x within a series (stable); a point with any non-finite
 * coordinate (x, mean, lo or hi) is skipped. A series with no finite point
 * still gets its legend entry and an empty polyline and polygon. No series
 * at all gives the axes only (domain [0, 1] × [0, 1]). Axis ranges span all
 * finite x and all finite mean/lo/hi of all series, rounded out to ticks.
 * All text (title, axis labels, legend labels, colours) is XML-escaped.
 * Units: whatever the points are in; px only for the drawing.
 */
export function curvesSvg(plot: CurvesPlot): string {
  return panelsSvg([plot]);
}

/**
 * Several plots side by side in one SVG (each panel SVG_WIDTH × SVG_HEIGHT,
 * drawn as `curvesSvg` draws one; panel k shifted right by k·SVG_WIDTH):
 * e.g. a claim's arms' curves beside the paired difference that is judged.
 * One panel gives exactly `curvesSvg`'s SVG.
 * @throws Error for an empty list.
 */
export function panelsSvg(plots: readonly CurvesPlot[]): string {
  if (plots.length === 0) throw new Error("panelsSvg: no plots");
  const width = SVG_WIDTH * plots.length;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${SVG_HEIGHT}" viewBox="0 0 ${width} ${SVG_HEIGHT}" font-family="${escapeXml(FONT)}" font-size="12">`,
  );
  out.push(`<rect x="0" y="0" width="${width}" height="${SVG_HEIGHT}" fill="#ffffff"/>`);
  plots.forEach((plot, k) => {
    if (plots.length > 1) out.push(`<g class="panel" transform="translate(${k * SVG_WIDTH},0)">`);
    out.push(...panel(plot));
    if (plots.length > 1) out.push(`</g>`);
  });
  out.push(`</svg>`);
  return `${out.join("\n")}\n`;
}

/** The elements of one panel (title, ticks, axes, bands, lines, legend) in its own 640 × 400 frame. */
function panel(plot: CurvesPlot): string[] {
  const series = plot.series.map((s) => ({
    ...s,
    points: s.points
      .filter((p) =>
        [p.x, p.mean, p.lo, p.hi].every((v) => typeof v === "number" && Number.isFinite(v)),
      )
      .sort((a, b) => a.x - b.x),
  }));
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.flatMap((p) => [p.mean, p.lo, p.hi]));
  if (plot.zeroLine) ys.push(0);
  const ax = axis(xs);
  const ay = axis(ys);
  const sx = (x: number): number =>
    PLOT.left + ((x - ax.min) / (ax.max - ax.min)) * (PLOT.right - PLOT.left);
  const sy = (y: number): number =>
    PLOT.bottom - ((y - ay.min) / (ay.max - ay.min)) * (PLOT.bottom - PLOT.top);

  const out: string[] = [];
  out.push(
    `<text x="${SVG_WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold" fill="#111111">${escapeXml(plot.title)}</text>`,
  );

  // Grid and ticks.
  out.push(`<g class="ticks" fill="#333333" stroke="none">`);
  for (const t of ax.ticks) {
    const x = px(sx(t));
    out.push(
      `<line x1="${x}" y1="${PLOT.top}" x2="${x}" y2="${PLOT.bottom}" stroke="#e6e6e6" stroke-width="1"/>`,
    );
    out.push(
      `<line x1="${x}" y1="${PLOT.bottom}" x2="${x}" y2="${PLOT.bottom + 5}" stroke="#333333" stroke-width="1"/>`,
    );
    out.push(
      `<text x="${x}" y="${PLOT.bottom + 18}" text-anchor="middle">${fmt(t, ax.decimals)}</text>`,
    );
  }
  for (const t of ay.ticks) {
    const y = px(sy(t));
    out.push(
      `<line x1="${PLOT.left}" y1="${y}" x2="${PLOT.right}" y2="${y}" stroke="#e6e6e6" stroke-width="1"/>`,
    );
    out.push(
      `<line x1="${PLOT.left - 5}" y1="${y}" x2="${PLOT.left}" y2="${y}" stroke="#333333" stroke-width="1"/>`,
    );
    out.push(
      `<text x="${PLOT.left - 8}" y="${y}" text-anchor="end" dominant-baseline="central">${fmt(t, ay.decimals)}</text>`,
    );
  }
  out.push(`</g>`);

  // Axes and their labels.
  out.push(
    `<path d="M${PLOT.left},${PLOT.top} V${PLOT.bottom} H${PLOT.right}" fill="none" stroke="#333333" stroke-width="1.2"/>`,
  );
  out.push(
    `<text x="${(PLOT.left + PLOT.right) / 2}" y="${SVG_HEIGHT - 14}" text-anchor="middle" fill="#111111">${escapeXml(plot.xLabel)}</text>`,
  );
  const yMid = (PLOT.top + PLOT.bottom) / 2;
  out.push(
    `<text x="16" y="${yMid}" text-anchor="middle" transform="rotate(-90 16 ${yMid})" fill="#111111">${escapeXml(plot.yLabel)}</text>`,
  );

  if (plot.zeroLine) {
    const y0 = px(sy(0));
    out.push(
      `<line class="zero" x1="${PLOT.left}" y1="${y0}" x2="${PLOT.right}" y2="${y0}" stroke="#333333" stroke-width="1" stroke-dasharray="4 3"/>`,
    );
  }

  // Bands first, then lines on top.
  for (const s of series) {
    const upper = s.points.map((p) => `${px(sx(p.x))},${px(sy(p.hi))}`);
    const lower = s.points.map((p) => `${px(sx(p.x))},${px(sy(p.lo))}`).reverse();
    out.push(
      `<polygon class="band" points="${[...upper, ...lower].join(" ")}" fill="${escapeXml(s.color)}" fill-opacity="0.2" stroke="none"/>`,
    );
  }
  for (const s of series) {
    const pts = s.points.map((p) => `${px(sx(p.x))},${px(sy(p.mean))}`).join(" ");
    out.push(
      `<polyline class="mean" points="${pts}" fill="none" stroke="${escapeXml(s.color)}" stroke-width="2" stroke-linejoin="round"/>`,
    );
    if (s.points.length === 1) {
      const p = s.points[0];
      out.push(
        `<circle cx="${px(sx(p.x))}" cy="${px(sy(p.mean))}" r="3" fill="${escapeXml(s.color)}"/>`,
      );
    }
  }

  // Legend column right of the plot.
  out.push(`<g class="legend">`);
  series.forEach((s, i) => {
    const y = PLOT.top + 8 + i * 20;
    const x = PLOT.right + 16;
    out.push(
      `<rect x="${x}" y="${y - 6}" width="18" height="12" fill="${escapeXml(s.color)}" fill-opacity="0.2"/>`,
    );
    out.push(
      `<line x1="${x}" y1="${y}" x2="${x + 18}" y2="${y}" stroke="${escapeXml(s.color)}" stroke-width="2"/>`,
    );
    out.push(
      `<text x="${x + 24}" y="${y}" dominant-baseline="central" fill="#111111">${escapeXml(s.label)}</text>`,
    );
  });
  out.push(`</g>`);
  return out;
}

const RESVG_FONT: ResvgRenderOptions["font"] = {
  loadSystemFonts: true,
  defaultFontFamily: "DejaVu Sans",
  sansSerifFamily: "DejaVu Sans",
};

let fontsRender: boolean | undefined;

/** Whether resvg draws any pixel for a text-only SVG (cached per process). */
function textRenders(): boolean {
  if (fontsRender === undefined) {
    const probe = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><text x="2" y="16" font-family="${escapeXml(FONT)}" font-size="16" fill="#000">Hg</text></svg>`;
    const px = new Resvg(probe, { font: RESVG_FONT, logLevel: "off" }).render().pixels;
    fontsRender = false;
    for (let i = 3; i < px.length; i += 4) {
      if (px[i] !== 0) {
        fontsRender = true;
        break;
      }
    }
  }
  return fontsRender;
}

/**
 * Renders an SVG to PNG bytes with resvg (`@resvg/resvg-js` 2.6.2) at its
 * own size (1 SVG px = 1 PNG px; 640 × 400 for curvesSvg), on a white
 * background. Fonts: resvg draws text only with loaded fonts, so system
 * fonts are loaded (`loadSystemFonts`, via fontdb: /usr/share/fonts etc. on
 * Linux) with DejaVu Sans as the default and sans-serif family (Debian:
 * package fonts-dejavu-core, usually present as a chromium dependency;
 * Liberation Sans / Arial are the fallbacks named in the SVG).
 * @throws Error when the SVG has `<text>` but no system font renders text
 *   (checked once per process by rendering a probe glyph), rather than
 *   writing a PNG without its labels; and resvg's own Error for SVG it
 *   cannot parse.
 */
export function svgToPng(svg: string): Uint8Array {
  if (/<text[\s>]/.test(svg) && !textRenders()) {
    throw new Error(
      "svgToPng: resvg found no system font that renders text (install e.g. fonts-dejavu-core); the SVG is fine, the PNG would have no labels",
    );
  }
  const png = new Resvg(svg, {
    font: RESVG_FONT,
    background: "#ffffff",
    fitTo: { mode: "original" },
    logLevel: "off",
  })
    .render()
    .asPng();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}

/** A markdown table cell: pipes escaped, line breaks as spaces. */
function cell(s: string): string {
  return s
    .replace(/\r?\n|\r/g, " ")
    .replace(/\|/g, "\\|")
    .trim();
}

/** Number to 3 decimals; −0.000 printed as 0.000; non-finite as its name (NaN, Infinity). */
function num3(v: number): string {
  return Number.isFinite(v) ? fmt(v, 3) : String(v);
}

/** What the table was printed at: the judge, the seeds and the size (the header line above the table). */
export interface ClaimsTableMeta {
  size: string;
  seeds: readonly number[];
  /** The judge of the judge arms and of the stability sweep, e.g. {name: "text-auditor", sigmaJ, sigmaB}. */
  judge: { name: string; sigmaJ: number; sigmaB: number; delta?: number };
}

/** The first table line: size, judge and seeds (each printed table says which judge it used). */
function claimsTableHeader(meta: ClaimsTableMeta): string {
  const j = meta.judge;
  const noise = `σ_j ${j.sigmaJ}, σ_b ${j.sigmaB}${j.name === "oracle-auditor" && j.delta !== undefined ? `, δ ${j.delta}` : ""}`;
  return `Size ${meta.size}, judge ${j.name} (${noise}), N = ${meta.seeds.length} seeds (${meta.seeds.join(", ")}); per comparison: mean and 95 % t-interval of the paired per-seed difference, its minimum detectable effect at N (α 0.05 two-sided, power 0.8), the paper's effect and the N it would need; the claim's verdict is the intersection–union of its comparisons.`;
}

/**
 * The claims as one markdown table (GitHub-flavoured), one row per paired
 * comparison, claims in input order; columns: id | paper | statement | paper
 * figure | comparison | lab mean | 95 % CI | per seed | MDE | paper effect |
 * N needed | verdict | claim verdict. The claim's own cells (id, with its
 * level in parentheses, to paper figure; claim verdict, with its premise
 * note in parentheses) are on its first row only; a comparison printed
 * beside the claim's says so in its verdict cell. Numbers to 3 decimals
 * (`0.123`, `[0.100, 0.146]`, per seed `0.100, 0.146` in seed order); N
 * needed as an integer ("—" without a paper effect). A claim without
 * `comparisons` is one row from `lab` (comparison, MDE, paper effect, N
 * needed "—"); a claim with `lab: null` shows "—" in the number columns and
 * its verdict adds the reason when there is one: `not runnable: <reason>`.
 * With `meta`, the table is preceded by `claimsTableHeader(meta)` and a
 * blank line. Text cells have `|` escaped and line breaks replaced by
 * spaces. Returns the table with a trailing newline; no claims gives the
 * header rows only.
 */
export function claimsMarkdown(claims: ClaimResult[], meta?: ClaimsTableMeta): string {
  const lines = [
    "| id | paper | statement | paper figure | comparison | lab mean | 95 % CI | per seed | MDE | paper effect | N needed | verdict | claim verdict |",
    "| --- | --- | --- | --- | --- | ---: | --- | --- | ---: | ---: | ---: | --- | --- |",
  ];
  for (const c of claims) {
    const verdictCell = [
      c.reason && c.verdict === "not runnable" ? `${c.verdict}: ${c.reason}` : c.verdict,
      ...(c.premise ? [`(${c.premise})`] : []),
    ].join(" ");
    const id = c.level ? `${c.id} (${c.level})` : c.id;
    const head = [id, c.paper, c.statement, c.paper_figure].map(cell);
    const blank = head.map(() => "");
    const rows =
      c.comparisons && c.comparisons.length > 0
        ? c.comparisons.map((k) => [
            cell(k.label),
            num3(k.mean),
            `[${num3(k.ci95[0])}, ${num3(k.ci95[1])}]`,
            k.per_seed.map(num3).join(", "),
            k.mde === null ? "—" : num3(k.mde),
            k.paper_effect === null ? "—" : num3(k.paper_effect),
            k.n_needed === null ? "—" : cell(String(k.n_needed)),
            k.beside ? `${k.verdict} (beside: not in the claim verdict)` : k.verdict,
          ])
        : [
            [
              "—",
              c.lab ? num3(c.lab.mean) : "—",
              c.lab ? `[${num3(c.lab.ci95[0])}, ${num3(c.lab.ci95[1])}]` : "—",
              c.lab ? c.lab.per_seed.map(num3).join(", ") : "—",
              "—",
              "—",
              "—",
              cell(verdictCell),
            ],
          ];
    rows.forEach((r, i) => {
      const cells = [...(i === 0 ? head : blank), ...r, i === 0 ? cell(verdictCell) : ""];
      lines.push(`| ${cells.join(" | ")} |`);
    });
  }
  const table = `${lines.join("\n")}\n`;
  return meta ? `${claimsTableHeader(meta)}\n\n${table}` : table;
}
