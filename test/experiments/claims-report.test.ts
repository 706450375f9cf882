// Claims report writers: the curves SVG, its PNG (resvg, system fonts), and
// the markdown table.
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  claimsMarkdown,
  curvesSvg,
  escapeXml,
  panelsSvg,
  svgToPng,
  SVG_HEIGHT,
  SVG_WIDTH,
  type ClaimResult,
  type CurvesPlot,
} from "../../src/experiments/claims-report";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Chunks of a PNG file: type and data. */
function chunks(png: Uint8Array): { type: string; data: Uint8Array }[] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out: { type: string; data: Uint8Array }[] = [];
  for (let o = 8; o < png.length; ) {
    const len = view.getUint32(o);
    const type = String.fromCharCode(...png.subarray(o + 4, o + 8));
    out.push({ type, data: png.subarray(o + 8, o + 8 + len) });
    o += 12 + len;
  }
  return out;
}

/** Width, height, bit depth and colour type from IHDR (PNG spec §11.2.2). */
function ihdr(png: Uint8Array): {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
} {
  const c = chunks(png)[0];
  expect(c.type).toBe("IHDR");
  const v = new DataView(c.data.buffer, c.data.byteOffset, c.data.byteLength);
  return {
    width: v.getUint32(0),
    height: v.getUint32(4),
    bitDepth: c.data[8],
    colorType: c.data[9],
    interlace: c.data[12],
  };
}

/** Decoded 8-bit, non-interlaced RGB(A)/grey(A) pixels as rows of bytes (PNG spec §9 filters). */
function decodePixels(png: Uint8Array): { bpp: number; rows: Uint8Array[] } {
  const h = ihdr(png);
  expect(h.bitDepth).toBe(8);
  expect(h.interlace).toBe(0);
  const bpp = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[h.colorType];
  expect(bpp).toBeDefined();
  const idat = Buffer.concat(
    chunks(png)
      .filter((c) => c.type === "IDAT")
      .map((c) => c.data),
  );
  const raw = inflateSync(idat);
  const stride = h.width * bpp;
  const rows: Uint8Array[] = [];
  let prev = new Uint8Array(stride);
  for (let y = 0; y < h.height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp] : 0;
      const b = prev[i];
      const c = i >= bpp ? prev[i - bpp] : 0;
      let pred = 0;
      if (filter === 1) pred = a;
      else if (filter === 2) pred = b;
      else if (filter === 3) pred = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a),
          pb = Math.abs(p - b),
          pc = Math.abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      cur[i] = (line[i] + pred) & 0xff;
    }
    rows.push(cur);
    prev = cur;
  }
  return { bpp, rows };
}

/** Number of distinct pixel values in a PNG. */
function distinctColours(png: Uint8Array): number {
  const { bpp, rows } = decodePixels(png);
  const seen = new Set<string>();
  for (const r of rows)
    for (let i = 0; i < r.length; i += bpp) seen.add(r.subarray(i, i + bpp).join(","));
  return seen.size;
}

const plot: CurvesPlot = {
  title: 'RC-Acc <eval> & "seeds"',
  xLabel: "RL step",
  yLabel: "RC-Acc",
  series: [
    {
      label: "grr <λ=0.5> & 'PCS'",
      color: "#1f77b4",
      points: [
        { x: 10, mean: 0.5, lo: 0.4, hi: 0.6 },
        { x: 0, mean: 0.3, lo: 0.2, hi: 0.4 }, // out of order: sorted by x
        { x: 20, mean: NaN, lo: 0.1, hi: 0.9 }, // skipped
        { x: 30, mean: 0.6, lo: 0.5, hi: Infinity }, // skipped
        { x: 40, mean: 0.7, lo: 0.65, hi: 0.75 },
      ],
    },
    { label: "rlvr", color: "#d62728", points: [{ x: 0, mean: 0.3, lo: 0.3, hi: 0.3 }] },
    { label: "empty", color: "#2ca02c", points: [{ x: NaN, mean: 0, lo: 0, hi: 0 }] },
  ],
};

const pointsOf = (tag: string, svg: string): string[][] =>
  [...svg.matchAll(new RegExp(`<${tag} class="[a-z]+" points="([^"]*)"`, "g"))].map((m) =>
    m[1] === "" ? [] : m[1].split(" "),
  );

describe("curvesSvg", () => {
  const svg = curvesSvg(plot);

  it("is one fixed-size svg element with escaped text", () => {
    expect(
      svg.startsWith(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${SVG_WIDTH}" height="${SVG_HEIGHT}"`,
      ),
    ).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg.match(/<svg[\s>]/g)).toHaveLength(1);
    // Every & starts an entity; no raw < inside text.
    expect(svg.match(/&(?!(amp|lt|gt|quot|apos);)/g)).toBeNull();
    expect(svg).toContain(">RC-Acc &lt;eval&gt; &amp; &quot;seeds&quot;</text>");
    expect(svg).toContain(">grr &lt;λ=0.5&gt; &amp; &apos;PCS&apos;</text>");
    expect(svg).not.toContain("<λ=0.5>");
    expect(svg).toContain(">rlvr</text>");
    expect(svg).toContain(">empty</text>");
    expect(escapeXml(`<a href="x">&'`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&apos;");
  });

  it("draws one mean polyline and one band polygon per series, over the finite points only", () => {
    const lines = pointsOf("polyline", svg);
    const bands = pointsOf("polygon", svg);
    expect(lines.map((l) => l.length)).toEqual([3, 1, 0]);
    expect(bands.map((b) => b.length)).toEqual([6, 2, 0]); // hi edge + lo edge
    // Sorted by x: the polyline's x pixel coordinates increase.
    const xs = lines[0].map((p) => Number(p.split(",")[0]));
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(xs.every(Number.isFinite)).toBe(true);
    // The mean lies between the band's edges (SVG y grows downward).
    const hiY = Number(bands[0][0].split(",")[1]);
    const loY = Number(bands[0][5].split(",")[1]);
    const meanY = Number(lines[0][0].split(",")[1]);
    expect(hiY).toBeLessThan(meanY);
    expect(meanY).toBeLessThan(loY);
    expect(svg).toContain('fill-opacity="0.2"');
    // A one-point series also gets a dot.
    expect(svg.match(/<circle /g)).toHaveLength(1);
  });

  it("has numbered ticks on both axes", () => {
    const tickLabels = [...svg.matchAll(/<text [^>]*>(-?[0-9.]+)<\/text>/g)].map((m) => m[1]);
    // x spans 0..40, y spans 0.2..0.75 (finite values only).
    expect(tickLabels).toContain("0");
    expect(tickLabels).toContain("40");
    expect(tickLabels).toContain("0.2");
    expect(tickLabels.length).toBeGreaterThanOrEqual(6);
  });

  it("allows no series (axes only)", () => {
    const empty = curvesSvg({ title: "nothing yet", xLabel: "step", yLabel: "acc", series: [] });
    expect(empty).not.toContain("<polyline");
    expect(empty).not.toContain("<polygon");
    expect(empty).toContain(">nothing yet</text>");
    expect(empty).toContain(">0.0</text>"); // step 0.2: one decimal on every label
    expect(empty).toContain(">1.0</text>");
  });
});

describe("svgToPng", () => {
  it("renders a PNG of the SVG's size that is not one colour", () => {
    const png = svgToPng(curvesSvg(plot));
    expect(png).toBeInstanceOf(Uint8Array);
    expect(Array.from(png.subarray(0, 8))).toEqual(PNG_SIGNATURE);
    const h = ihdr(png);
    expect([h.width, h.height]).toEqual([SVG_WIDTH, SVG_HEIGHT]);
    expect(distinctColours(png)).toBeGreaterThan(10);
    // The empty plot renders too.
    const empty = svgToPng(curvesSvg({ title: "t", xLabel: "x", yLabel: "y", series: [] }));
    expect([ihdr(empty).width, ihdr(empty).height]).toEqual([SVG_WIDTH, SVG_HEIGHT]);
  });

  it("renders text (a system font is loaded)", () => {
    const textOnly = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="30"><text x="4" y="22" font-family="sans-serif" font-size="18">Reward Lab</text></svg>`;
    const png = svgToPng(textOnly);
    expect([ihdr(png).width, ihdr(png).height]).toEqual([120, 30]);
    expect(distinctColours(png)).toBeGreaterThan(2); // white plus antialiased glyph shades
  });
});

describe("claimsMarkdown: levels, premises and rows beside", () => {
  it("the level in the id cell, the premise with the claim verdict, a beside row marked", () => {
    const k = {
      direction: 1 as const,
      sd: 0.01,
      ci95: [0.01, 0.03] as [number, number],
      per_seed: [0.01, 0.03],
      mde: null,
      paper_effect: null,
      n_needed: null,
    };
    const md = claimsMarkdown([
      {
        id: "acre-oscr",
        level: "σ_b 0.1",
        paper: "ACRE",
        statement: "s",
        paper_figure: "f",
        lab: { mean: 0.02, ci95: [0.01, 0.03], per_seed: [0.01, 0.03] },
        comparisons: [
          { ...k, label: "last", mean: 0.02, verdict: "reproduced" },
          { ...k, label: "best", mean: 0.02, verdict: "reproduced", beside: true },
        ],
        verdict: "reproduced",
        command: "c",
        premise: "premise did not hold: x",
      },
    ]);
    const [, , first, second] = md.trimEnd().split("\n");
    expect(first).toBe(
      "| acre-oscr (σ_b 0.1) | ACRE | s | f | last | 0.020 | [0.010, 0.030] | 0.010, 0.030 | — | — | — | reproduced | reproduced (premise did not hold: x) |",
    );
    expect(second).toBe(
      "|  |  |  |  | best | 0.020 | [0.010, 0.030] | 0.010, 0.030 | — | — | — | reproduced (beside: not in the claim verdict) |  |",
    );
  });
});

describe("claimsMarkdown", () => {
  const claims: ClaimResult[] = [
    {
      id: "grr-1",
      paper: "GRR",
      statement: "GRR raises RC-Acc over RLVR | at equal Acc",
      paper_figure: "Fig. 3",
      lab: { mean: 0.04, ci95: [0.0203676, 0.0596324], per_seed: [0.02, 0.05, 0.03, 0.06, 0.04] },
      verdict: "reproduced",
      command: "npm run lab -- --preset grr-paper",
      metric: "rcAcc",
    },
    {
      id: "sr-2",
      paper: "StructReward",
      statement: "R_cons lowers\nIncR",
      paper_figure: "Tab. 2",
      lab: { mean: -0.00004, ci95: [-1.0706205, 1.4706205], per_seed: [0.1, 0.3] },
      verdict: "inconclusive",
      command: "npm run lab",
    },
    {
      id: "scs-1",
      paper: "SCS",
      statement: "SCS helps on charts",
      paper_figure: "Fig. 5",
      lab: null,
      verdict: "not runnable",
      command: "",
      reason: "needs a chart judge",
    },
  ];
  const md = claimsMarkdown(claims);
  const lines = md.trimEnd().split("\n");

  it("has the header and one row per claim without comparisons", () => {
    expect(lines[0]).toBe(
      "| id | paper | statement | paper figure | comparison | lab mean | 95 % CI | per seed | MDE | paper effect | N needed | verdict | claim verdict |",
    );
    expect(lines[1]).toMatch(/^\| --- \|/);
    expect(lines).toHaveLength(2 + claims.length);
    expect(claimsMarkdown([]).trimEnd().split("\n")).toHaveLength(2);
  });

  it("prints numbers to 3 decimals and escapes cells", () => {
    expect(lines[2]).toBe(
      "| grr-1 | GRR | GRR raises RC-Acc over RLVR \\| at equal Acc | Fig. 3 | — | 0.040 | [0.020, 0.060] | 0.020, 0.050, 0.030, 0.060, 0.040 | — | — | — | reproduced | reproduced |",
    );
    // −0.00004 rounds to 0.000 (no "-0.000"); the newline becomes a space.
    expect(lines[3]).toBe(
      "| sr-2 | StructReward | R_cons lowers IncR | Tab. 2 | — | 0.000 | [-1.071, 1.471] | 0.100, 0.300 | — | — | — | inconclusive | inconclusive |",
    );
    expect(lines[4]).toBe(
      "| scs-1 | SCS | SCS helps on charts | Fig. 5 | — | — | — | — | — | — | — | not runnable: needs a chart judge | not runnable: needs a chart judge |",
    );
  });

  it("prints one row per comparison, the claim's cells and verdict on its first, and the judge above", () => {
    const k = (label: string, mean: number, verdict: "reproduced" | "inconclusive") => ({
      label,
      direction: 1 as const,
      mean,
      sd: 0.02,
      ci95: [mean - 0.05, mean + 0.05] as [number, number],
      per_seed: [mean - 0.02, mean, mean + 0.02],
      mde: 0.0929,
      paper_effect: 0.024,
      n_needed: 15,
      verdict,
    });
    const two: ClaimResult = {
      id: "grr-rcacc",
      paper: "GRR",
      statement: "GRR ends higher",
      paper_figure: "App. D Table 2",
      lab: { mean: 0.12, ci95: [0.07, 0.17], per_seed: [0.1, 0.12, 0.14] },
      comparisons: [
        k("GRR − RLVR", 0.12, "reproduced"),
        k("GRR − pointwise GR", 0.03, "inconclusive"),
      ],
      verdict: "inconclusive",
      command: "",
    };
    const out = claimsMarkdown([two], {
      size: "ci",
      seeds: [31, 32, 33],
      judge: { name: "text-auditor", sigmaJ: 0.1, sigmaB: 0.2 },
    })
      .trimEnd()
      .split("\n");
    expect(out[0]).toMatch(
      /^Size ci, judge text-auditor \(σ_j 0\.1, σ_b 0\.2\), N = 3 seeds \(31, 32, 33\);/,
    );
    expect(out[1]).toBe("");
    expect(out[4]).toBe(
      "| grr-rcacc | GRR | GRR ends higher | App. D Table 2 | GRR − RLVR | 0.120 | [0.070, 0.170] | 0.100, 0.120, 0.140 | 0.093 | 0.024 | 15 | reproduced | inconclusive |",
    );
    expect(out[5]).toBe(
      "|  |  |  |  | GRR − pointwise GR | 0.030 | [-0.020, 0.080] | 0.010, 0.030, 0.050 | 0.093 | 0.024 | 15 | inconclusive |  |",
    );
  });
});

describe("panelsSvg", () => {
  it("puts panels side by side, one SVG; one panel is exactly curvesSvg; a zero line when asked", () => {
    const diff: CurvesPlot = {
      title: "judged",
      xLabel: "RL step",
      yLabel: "difference",
      zeroLine: true,
      series: [
        {
          label: "GRR − RLVR",
          color: "#111111",
          points: [{ x: 0, mean: 0.1, lo: 0.05, hi: 0.15 }],
        },
      ],
    };
    const two = panelsSvg([plot, diff]);
    expect(
      two.startsWith(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * SVG_WIDTH}" height="${SVG_HEIGHT}"`,
      ),
    ).toBe(true);
    expect(two.match(/<svg[\s>]/g)).toHaveLength(1);
    expect(two.match(/<g class="panel"/g)).toHaveLength(2);
    expect(two).toContain(`translate(${SVG_WIDTH},0)`);
    expect(two.match(/<line class="zero"/g)).toHaveLength(1);
    expect(panelsSvg([plot])).toBe(curvesSvg(plot));
    // 0 is inside the difference panel's y range although every value is above it.
    expect(two).toMatch(/>0\.00<\/text>|>0\.0<\/text>|>0<\/text>/);
    expect(() => panelsSvg([])).toThrow(/no plots/);
    const png = svgToPng(two);
    expect([ihdr(png).width, ihdr(png).height]).toEqual([2 * SVG_WIDTH, SVG_HEIGHT]);
  });
});
