/**
 * Bar chart (docs/design.md "Tasks"): objectCount bars of integer heights
 * 1..maxBarHeight, RGB image imageSize×imageSize×3 in [0, 1], black
 * background, bars standing on the bottom row. "What is the tallest bar minus
 * the shortest bar?" and the like; bars are numbered 1.. from the left.
 */
import type { ResolvedTaskConfig } from "./config";
import { assemblePrompt, step, type LabTaskPrompt, type ProblemSpec } from "./format";
import { fillRect, type RGB } from "./raster";
import type { Rng } from "./rng";

/** Bar colors, cycled left to right (lab choice). */
const BAR_COLORS: readonly RGB[] = [
  [0.95, 0.3, 0.3],
  [0.3, 0.85, 0.35],
  [0.35, 0.5, 1.0],
  [1.0, 0.85, 0.2],
  [0.2, 0.9, 0.9],
  [0.9, 0.35, 0.9],
];

type Term = { kind: "bar"; index: number } | { kind: "tallest" } | { kind: "shortest" };

function stepName(t: Term): string {
  return t.kind === "bar" ? `bar ${t.index + 1}` : `${t.kind} bar`;
}
function questionName(t: Term): string {
  return t.kind === "bar" ? `bar ${t.index + 1}` : `the ${t.kind} bar`;
}
function termValue(h: readonly number[], t: Term): number {
  return t.kind === "bar" ? h[t.index] : t.kind === "tallest" ? Math.max(...h) : Math.min(...h);
}

/** Builds the question and steps for bar heights (numSteps 1–4, see TaskConfig.numSteps). */
function barProblem(heights: readonly number[], numSteps: 1 | 2 | 3 | 4, rng: Rng): ProblemSpec {
  const pool: Term[] = [
    { kind: "tallest" },
    { kind: "shortest" },
    ...heights.map((_, index) => ({ kind: "bar" as const, index })),
  ];
  const k = numSteps <= 2 ? 1 : numSteps - 1;
  let terms: Term[];
  let ops: ("plus" | "minus")[];
  if (k === 2 && rng.chance(0.4)) {
    terms = [{ kind: "tallest" }, { kind: "shortest" }];
    ops = ["minus"];
  } else {
    terms = rng.sample(pool, k);
    ops = Array.from({ length: k - 1 }, () => rng.pick(["plus", "minus"] as const));
  }
  const vals = terms.map((t) => termValue(heights, t));
  const reads = terms.map((t, i) => step(stepName(t), vals[i]));
  if (numSteps === 1) {
    return {
      kind: `read-${terms[0].kind}`,
      question: `How tall is ${questionName(terms[0])}?`,
      steps: reads,
      answer: vals[0],
      allowNegative: false,
    };
  }
  if (numSteps === 2) {
    const op = rng.pick(["plus", "minus", "times"] as const);
    const c = op === "times" ? rng.int(2, 3) : rng.int(1, 3);
    const sym = op === "plus" ? "+" : op === "minus" ? "-" : "*";
    const v = op === "plus" ? vals[0] + c : op === "minus" ? vals[0] - c : vals[0] * c;
    return {
      kind: `${terms[0].kind}-${op}-constant`,
      question: `What is ${questionName(terms[0])} ${op} ${c}?`,
      steps: [...reads, step(`${vals[0]} ${sym} ${c}`, v)],
      answer: v,
      allowNegative: op === "minus",
    };
  }
  let v = vals[0];
  let expr = `${vals[0]}`;
  let q = questionName(terms[0]);
  ops.forEach((op, i) => {
    v = op === "plus" ? v + vals[i + 1] : v - vals[i + 1];
    expr += ` ${op === "plus" ? "+" : "-"} ${vals[i + 1]}`;
    q += ` ${op} ${questionName(terms[i + 1])}`;
  });
  return {
    kind: `${terms.map((t) => t.kind).join("-")}-${ops.join("-")}`,
    question: `What is ${q}?`,
    steps: [...reads, step(expr, v)],
    answer: v,
    allowNegative: ops.includes("minus"),
  };
}

/** Generates one bar-chart prompt. */
export function generateBarPrompt(
  id: string,
  cfg: ResolvedTaskConfig,
  split: "train" | "eval",
  rng: Rng,
): LabTaskPrompt {
  const size = cfg.imageSize;
  const n = cfg.objectCount;
  const heights = Array.from({ length: n }, () => rng.int(1, cfg.maxBarHeight));
  const unit = Math.floor((size - 2) / cfg.maxBarHeight);
  const slot = Math.floor(size / n);
  const gap = slot >= 5 ? 1 : 0;
  const left = Math.floor((size - slot * n) / 2);
  const image = new Float32Array(size * size * 3);
  heights.forEach((h, i) => {
    const c0 = left + i * slot + gap;
    const c1 = left + (i + 1) * slot - gap;
    fillRect(image, size, size, size - h * unit, c0, size, c1, BAR_COLORS[i % BAR_COLORS.length]);
  });
  const spec = barProblem(heights, cfg.numSteps, rng);
  return assemblePrompt(
    id,
    "bars",
    spec,
    { image, height: size, width: size, channels: 3 },
    cfg,
    rng,
    { split, kind: spec.kind },
  );
}
