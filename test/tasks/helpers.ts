import fc from "fast-check";
import type { TaskConfig } from "../../src/tasks/config";
import type { TaskPrompt } from "../../src/tasks/types";

/** Arbitrary valid task config covering every family and knob. */
export const configArb: fc.Arbitrary<Partial<TaskConfig>> = fc
  .record({
    family: fc.constantFrom("digits", "shapes", "bars") as fc.Arbitrary<TaskConfig["family"]>,
    numDigits: fc.constantFrom(2, 3) as fc.Arbitrary<2 | 3>,
    ops: fc.subarray(["sum", "difference", "largest", "product"] as const, { minLength: 1 }),
    numSteps: fc.constantFrom(1, 2, 3, 4) as fc.Arbitrary<1 | 2 | 3 | 4>,
    multipleChoice: fc.boolean(),
    numOptions: fc.integer({ min: 2, max: 5 }),
    optionSkew: fc.double({ min: 0, max: 1, noNaN: true }),
    skewIdx: fc.nat(),
    distractorCloseness: fc.double({ min: 0, max: 1, noNaN: true }),
    imageSize: fc.integer({ min: 16, max: 64 }),
    u1: fc.double({ min: 0, max: 0.999, noNaN: true }),
    u2: fc.double({ min: 0, max: 0.999, noNaN: true }),
    u3: fc.double({ min: 0, max: 0.999, noNaN: true }),
  })
  .map((r) => {
    const pickInt = (u: number, lo: number, hi: number) => lo + Math.floor(u * (hi - lo + 1));
    const c: Partial<TaskConfig> = {
      family: r.family,
      numSteps: r.numSteps,
      multipleChoice: r.multipleChoice,
      numOptions: r.numOptions,
      optionSkew: r.optionSkew,
      skewLetter: "ABCDE"[r.skewIdx % r.numOptions],
      distractorCloseness: r.distractorCloseness,
      imageSize: r.imageSize,
    };
    if (r.family === "digits") {
      c.numDigits = r.numDigits;
      const ops = r.numDigits === 3 ? r.ops.filter((o) => o !== "product") : [...r.ops];
      c.digitOps = ops.length > 0 ? ops : ["sum"];
    } else if (r.family === "shapes") {
      const g = pickInt(r.u1, 2, Math.min(6, Math.floor(r.imageSize / 5)));
      c.gridCells = g;
      c.objectCount = pickInt(r.u2, 1, Math.min(16, g * g));
    } else {
      const maxH = pickInt(r.u1, 3, Math.min(12, Math.floor((r.imageSize - 2) / 2)));
      c.maxBarHeight = maxH;
      c.objectCount = pickInt(
        r.u2,
        r.numSteps === 4 ? 3 : 2,
        Math.min(6, Math.floor(r.imageSize / 3)),
      );
    }
    return c;
  });

/**
 * Independent check of the normalized format (docs/reward-spec.md §0 / §3 R_fmt):
 * exactly one think block, Step 1.. consecutively, one \boxed{} local result
 * per step, one final \boxed{} after </think>. Returns the step values and the
 * final box, or throws describing the violation.
 */
export function checkNormalizedFormat(text: string): {
  stepValues: string[];
  final: string;
  /** The option check before the box (multiple choice: content and mark per option), else null. */
  check: { content: string; correct: boolean }[] | null;
} {
  const count = (s: string) => text.split(s).length - 1;
  if (count("<think>") !== 1 || count("</think>") !== 1)
    throw new Error(`not exactly one think block: ${text}`);
  const m = /^<think> (.*) <\/think> ((?:-?\d+ (?:Correct|Incorrect) )*)\\boxed\{([^{}]+)\}$/.exec(
    text,
  );
  if (!m) throw new Error(`not <think> … </think> [v Correct|Incorrect …] \\boxed{…}: ${text}`);
  const body = m[1];
  const markers = [...body.matchAll(/Step (\d+):/g)];
  if (markers.length === 0 || markers[0].index !== 0)
    throw new Error(`body does not start with Step 1: ${body}`);
  const stepValues: string[] = [];
  markers.forEach((mk, i) => {
    if (Number(mk[1]) !== i + 1) throw new Error(`step ${i + 1} numbered ${mk[1]}`);
    const stepText = body.slice(
      mk.index! + mk[0].length,
      i + 1 < markers.length ? markers[i + 1].index : body.length,
    );
    const boxes = [...stepText.matchAll(/\\boxed\{([^{}]*)\}/g)];
    if (boxes.length !== 1) throw new Error(`step ${i + 1} has ${boxes.length} boxes: ${stepText}`);
    stepValues.push(boxes[0][1]);
  });
  const words = m[2].trim() === "" ? [] : m[2].trim().split(" ");
  const check =
    words.length === 0
      ? null
      : Array.from({ length: words.length / 2 }, (_, i) => ({
          content: words[2 * i],
          correct: words[2 * i + 1] === "Correct",
        }));
  return { stepValues, final: m[3], check };
}

/** Bytes of a Float32Array (for exact image comparisons). */
export function imageBytes(p: TaskPrompt): Uint8Array {
  return new Uint8Array(p.image.buffer, p.image.byteOffset, p.image.byteLength);
}
