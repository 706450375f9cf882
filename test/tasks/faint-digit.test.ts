// TaskConfig.faintContrast (docs/reward-spec.md §4.3): one digit of every
// prompt drawn at contrast c, the other untouched, the reference steps the
// true digits; off (1) the prompts are the ones drawn without the knob.
import { describe, expect, it } from "vitest";
import { createTaskGenerator, Rng } from "../../src/tasks/index";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";

const mnist = loadMnistSubsetNode();
const SIDE = 28;

/** Pixels of digit cell j (0-based) of a 28 × 56 image. */
function cell(image: Float32Array, j: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < SIDE; r++)
    for (let c = 0; c < SIDE; c++) out.push(image[r * 2 * SIDE + j * SIDE + c]);
  return out;
}

describe("faint digit (TaskConfig.faintContrast)", () => {
  const base = { multipleChoice: true, distractorRule: "off-misread" as const };
  it("scales one digit's pixels by c and leaves the other and the reference steps", () => {
    const plain = createTaskGenerator(base, { mnist }).sampleBatch(6, new Rng(3));
    const faint = createTaskGenerator({ ...base, faintContrast: 0.3 }, { mnist }).sampleBatch(
      6,
      new Rng(3),
    );
    // The first prompt draws its labels and images before the faint position: the same digits.
    const [p, f] = [plain[0], faint[0]];
    expect(f.meta.digitIndices).toEqual(p.meta.digitIndices);
    const j = f.meta.faintDigit!;
    expect([0, 1]).toContain(j);
    const scaled = cell(p.image, j).map((x) => x * 0.3);
    const got = cell(f.image, j);
    for (let i = 0; i < got.length; i++) expect(got[i]).toBeCloseTo(scaled[i], 6);
    expect(cell(f.image, 1 - j)).toEqual(cell(p.image, 1 - j));
    expect(Math.max(...cell(f.image, j))).toBeLessThanOrEqual(0.3 + 1e-6);
    expect(f.referenceSteps.slice(0, 2).map((s) => s.value)).toEqual(
      f.meta.digitLabels!.map(String),
    );
    // Every prompt has one, at both positions over a few prompts; off: none.
    expect(faint.every((q) => q.meta.faintDigit === 0 || q.meta.faintDigit === 1)).toBe(true);
    expect(new Set(faint.map((q) => q.meta.faintDigit)).size).toBe(2);
    expect(plain.every((q) => q.meta.faintDigit === undefined)).toBe(true);
  });

  it("refuses a contrast outside [0, 1] and a family without digits, naming the field", () => {
    expect(() => createTaskGenerator({ ...base, faintContrast: 1.5 }, { mnist })).toThrow(
      /faintContrast/,
    );
    expect(() => createTaskGenerator({ family: "shapes", faintContrast: 0.3 }, { mnist })).toThrow(
      /faintContrast/,
    );
  });
});
