/**
 * Shape arithmetic (docs/design.md "Tasks"): colored shapes on a small grid, RGB
 * image imageSize×imageSize×3 in [0, 1], black background. "How many red
 * shapes plus blue squares?"; reference steps are the counts and the
 * operation.
 */
import type { ResolvedTaskConfig } from "./config";
import { assemblePrompt, step, type LabTaskPrompt, type ProblemSpec } from "./format";
import { fillRect, setPixel, type RGB } from "./raster";
import type { Rng } from "./rng";

/** Shape colors (lab choice: four well-separated RGB colors). */
const SHAPE_COLORS: Record<string, RGB> = {
  red: [0.95, 0.15, 0.15],
  green: [0.15, 0.85, 0.2],
  blue: [0.2, 0.4, 1.0],
  yellow: [1.0, 0.9, 0.1],
};
/** Shape kinds with their plural words. */
const SHAPE_KINDS: Record<string, string> = {
  square: "squares",
  circle: "circles",
  triangle: "triangles",
};

interface PlacedShape {
  row: number;
  col: number;
  color: string;
  kind: string;
}

interface Term {
  color?: string;
  kind?: string;
}

function termName(t: Term): string {
  const noun = t.kind ? SHAPE_KINDS[t.kind] : "shapes";
  return t.color ? `${t.color} ${noun}` : noun;
}

function countTerm(shapes: readonly PlacedShape[], t: Term): number {
  return shapes.filter((s) => (!t.color || s.color === t.color) && (!t.kind || s.kind === t.kind))
    .length;
}

/** Draws one shape into its grid cell (cell side `cell` px, 1 px margin). */
function drawShape(img: Float32Array, size: number, cell: number, s: PlacedShape): void {
  const rgb = SHAPE_COLORS[s.color];
  const m = cell >= 7 ? 1 : 0;
  const r0 = s.row * cell + m;
  const c0 = s.col * cell + m;
  const side = cell - 2 * m;
  if (s.kind === "square") {
    fillRect(img, size, size, r0, c0, r0 + side, c0 + side, rgb);
  } else if (s.kind === "circle") {
    const cx = c0 + (side - 1) / 2;
    const cy = r0 + (side - 1) / 2;
    const rad = side / 2;
    for (let r = r0; r < r0 + side; r++) {
      for (let c = c0; c < c0 + side; c++)
        if ((r - cy) ** 2 + (c - cx) ** 2 <= rad * rad * 0.95) setPixel(img, size, size, r, c, rgb);
    }
  } else {
    // upward triangle: apex at the top centre, base on the bottom row
    for (let i = 0; i < side; i++) {
      const half = ((i + 1) / side) * (side / 2);
      const cx = c0 + (side - 1) / 2;
      for (let c = c0; c < c0 + side; c++)
        if (Math.abs(c - cx) <= half - 0.25) setPixel(img, size, size, r0 + i, c, rgb);
    }
  }
}

/** Builds the question and steps for placed shapes (numSteps 1–4, see TaskConfig.numSteps). */
function shapeProblem(
  shapes: readonly PlacedShape[],
  numSteps: 1 | 2 | 3 | 4,
  rng: Rng,
): ProblemSpec {
  const colors = Object.keys(SHAPE_COLORS);
  const kinds = Object.keys(SHAPE_KINDS);
  const k = numSteps <= 2 ? 1 : numSteps - 1;
  let terms: Term[];
  if (k === 1) {
    const form = rng.int(0, 3);
    const color = rng.pick(colors);
    const kind = rng.pick(kinds);
    terms = [
      form === 0 ? { color } : form === 1 ? { color, kind } : form === 2 ? { kind } : { color },
    ];
  } else {
    terms = rng
      .sample(colors, k)
      .map((color) => (rng.chance(0.5) ? { color } : { color, kind: rng.pick(kinds) }));
  }
  const counts = terms.map((t) => countTerm(shapes, t));
  const reads = terms.map((t, i) => step(termName(t), counts[i]));
  if (numSteps === 1) {
    return {
      kind: "count",
      question: `How many ${termName(terms[0])}?`,
      steps: reads,
      answer: counts[0],
      allowNegative: false,
    };
  }
  if (numSteps === 2) {
    const op = rng.pick(["plus", "minus", "times"] as const);
    const c = op === "times" ? rng.int(2, 3) : rng.int(1, 3);
    const sym = op === "plus" ? "+" : op === "minus" ? "-" : "*";
    const v = op === "plus" ? counts[0] + c : op === "minus" ? counts[0] - c : counts[0] * c;
    return {
      kind: `count-${op}-constant`,
      question: `How many ${termName(terms[0])} ${op} ${c}?`,
      steps: [...reads, step(`${counts[0]} ${sym} ${c}`, v)],
      answer: v,
      allowNegative: op === "minus",
    };
  }
  const ops = Array.from({ length: k - 1 }, () => rng.pick(["plus", "minus"] as const));
  let v = counts[0];
  let expr = `${counts[0]}`;
  let q = termName(terms[0]);
  ops.forEach((op, i) => {
    v = op === "plus" ? v + counts[i + 1] : v - counts[i + 1];
    expr += ` ${op === "plus" ? "+" : "-"} ${counts[i + 1]}`;
    q += ` ${op} ${termName(terms[i + 1])}`;
  });
  return {
    kind: `count-${ops.join("-")}`,
    question: `How many ${q}?`,
    steps: [...reads, step(expr, v)],
    answer: v,
    allowNegative: ops.includes("minus"),
  };
}

/** Generates one shapes prompt: objectCount shapes in distinct random cells of a gridCells² grid. */
export function generateShapePrompt(
  id: string,
  cfg: ResolvedTaskConfig,
  split: "train" | "eval",
  rng: Rng,
): LabTaskPrompt {
  const size = cfg.imageSize;
  const g = cfg.gridCells;
  const cell = Math.floor(size / g);
  const cells = rng.sample(
    Array.from({ length: g * g }, (_, i) => i),
    cfg.objectCount,
  );
  const colors = Object.keys(SHAPE_COLORS);
  const kinds = Object.keys(SHAPE_KINDS);
  const shapes: PlacedShape[] = cells.map((i) => ({
    row: Math.floor(i / g),
    col: i % g,
    color: rng.pick(colors),
    kind: rng.pick(kinds),
  }));
  const image = new Float32Array(size * size * 3);
  for (const s of shapes) drawShape(image, size, cell, s);
  const spec = shapeProblem(shapes, cfg.numSteps, rng);
  return assemblePrompt(
    id,
    "shapes",
    spec,
    { image, height: size, width: size, channels: 3 },
    cfg,
    rng,
    { split, kind: spec.kind },
  );
}
