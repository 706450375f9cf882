/**
 * Digit arithmetic (docs/design.md "Tasks", the default family): 2 or 3 real MNIST
 * digits side by side, image 28×(28·n)×1 in [0, 1]. Reference steps read each
 * digit (`first digit = \boxed{3}`), then compute (`3 + 4 = \boxed{7}`).
 */
import type { ResolvedTaskConfig } from "./config";
import { assemblePrompt, step, type LabTaskPrompt, type Misread, type ProblemSpec } from "./format";
import type { DigitSplit } from "./mnist-data";
import { MNIST_SIDE } from "./mnist-data";
import type { Rng } from "./rng";

const ORDINALS = ["first", "second", "third"] as const;
const COUNT_WORDS = { 2: "two", 3: "three" } as const;

/** Builds the question and steps for given digit labels and question kind. */
function digitProblem(
  labels: readonly number[],
  op: ResolvedTaskConfig["digitOps"][number],
): ProblemSpec {
  const n = labels.length as 2 | 3;
  const reads = labels.map((d, i) => step(`${ORDINALS[i]} digit`, d));
  const nWord = COUNT_WORDS[n];
  switch (op) {
    case "sum": {
      const v = labels.reduce((a, b) => a + b, 0);
      return {
        kind: "sum",
        question: `What is the sum of the ${nWord} digits?`,
        steps: [...reads, step(labels.join(" + "), v)],
        answer: v,
        allowNegative: false,
      };
    }
    case "difference": {
      if (n === 2) {
        const v = labels[0] - labels[1];
        return {
          kind: "difference",
          question: "What is the first digit minus the second digit?",
          steps: [...reads, step(`${labels[0]} - ${labels[1]}`, v)],
          answer: v,
          allowNegative: true,
        };
      }
      const v = labels[0] + labels[1] - labels[2];
      return {
        kind: "difference",
        question: "What is the first digit plus the second digit minus the third digit?",
        steps: [...reads, step(`${labels[0]} + ${labels[1]} - ${labels[2]}`, v)],
        answer: v,
        allowNegative: true,
      };
    }
    case "largest": {
      const v = Math.max(...labels);
      return {
        kind: "largest",
        question: `What is the largest of the ${nWord} digits?`,
        steps: [...reads, step(`max ${labels.join(" ")}`, v)],
        answer: v,
        allowNegative: false,
      };
    }
    case "product": {
      if (n !== 2) throw new Error("digitProblem: product needs exactly 2 digits");
      const v = labels[0] * labels[1];
      return {
        kind: "product",
        question: "What is the product of the two digits?",
        steps: [...reads, step(`${labels[0]} * ${labels[1]}`, v)],
        answer: v,
        allowNegative: false,
      };
    }
  }
}

/**
 * Every single-digit misread of `labels` under `op`: position i read as each
 * digit 0–9 other than labels[i], the steps and answer recomputed from the
 * misread labels (position-major, digits ascending). ProblemSpec.misreads.
 */
function digitMisreads(
  labels: readonly number[],
  op: ResolvedTaskConfig["digitOps"][number],
): Misread[] {
  const out: Misread[] = [];
  labels.forEach((label, i) => {
    for (let d = 0; d <= 9; d++) {
      if (d === label) continue;
      const read = labels.map((x, j) => (j === i ? d : x));
      const spec = digitProblem(read, op);
      out.push({ step: i + 1, steps: spec.steps, answer: spec.answer });
    }
  });
  return out;
}

/**
 * Generates one digit prompt from a split of the packed subset (train prompts
 * use the train split, eval prompts the eval split, so they never share an
 * image). Labels are uniform 0–9, then an image of that label is uniform
 * within the split. Throws if the split has no image of a drawn label.
 */
export function generateDigitPrompt(
  id: string,
  cfg: ResolvedTaskConfig,
  data: DigitSplit,
  split: "train" | "eval",
  rng: Rng,
): LabTaskPrompt {
  const n = cfg.numDigits;
  const op = rng.pick(cfg.digitOps);
  const labels: number[] = [];
  const local: number[] = [];
  for (let i = 0; i < n; i++) {
    const label = rng.int(0, 9);
    const pool = data.byLabel[label];
    if (pool.length === 0)
      throw new Error(`generateDigitPrompt: the ${split} split has no image of digit ${label}`);
    labels.push(label);
    local.push(rng.pick(pool));
  }
  const S = MNIST_SIDE;
  const W = S * n;
  const image = new Float32Array(S * W);
  local.forEach((k, j) => {
    const base = k * S * S;
    for (let r = 0; r < S; r++) {
      for (let c = 0; c < S; c++) image[r * W + j * S + c] = data.pixels[base + r * S + c] / 255;
    }
  });
  // One faint digit (TaskConfig.faintContrast); drawn only when on, so other runs' prompts stay put.
  const faint = cfg.faintContrast < 1 ? rng.int(0, n - 1) : -1;
  if (faint >= 0) {
    for (let r = 0; r < S; r++)
      for (let c = 0; c < S; c++) image[r * W + faint * S + c] *= cfg.faintContrast;
  }
  const base = digitProblem(labels, op);
  // Only the knobs that read them pay for the misreads (TaskConfig.distractorRule, misreadRate).
  const spec =
    cfg.distractorRule === "off-misread" || cfg.misreadRate > 0
      ? { ...base, misreads: digitMisreads(labels, op) }
      : base;
  return assemblePrompt(id, "digits", spec, { image, height: S, width: W, channels: 1 }, cfg, rng, {
    split,
    kind: spec.kind,
    digitIndices: local.map((k) => data.packedIndex[k]),
    digitLabels: labels,
    ...(faint >= 0 && { faintDigit: faint }),
  });
}
