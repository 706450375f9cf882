import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  createTaskGenerator,
  reaskWithShuffledOptions,
  resolveTaskConfig,
  shuffleImages,
  Rng,
  EVAL_SIZE,
  fnv1a,
  type LabTaskPrompt,
  type TaskConfig,
} from "../../src/tasks/index";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";
import { checkNormalizedFormat, configArb, imageBytes } from "./helpers";

const mnist = loadMnistSubsetNode();
const families = ["digits", "shapes", "bars"] as const;

function gen(cfg: Partial<TaskConfig>) {
  return createTaskGenerator(cfg, { mnist });
}

/** Structural checks every prompt must pass. */
function checkPrompt(p: LabTaskPrompt, cfg: Partial<TaskConfig>): void {
  expect(p.image).toBeInstanceOf(Float32Array);
  expect(p.image.length).toBe(p.height * p.width * p.channels);
  for (const v of p.image)
    if (!(v >= 0 && v <= 1)) throw new Error(`pixel ${v} outside [0, 1] in ${p.id}`);
  if (p.family === "digits") {
    expect([p.height, p.width, p.channels]).toEqual([28, 28 * (cfg.numDigits ?? 2), 1]);
  } else {
    expect([p.height, p.width, p.channels]).toEqual([cfg.imageSize ?? 28, cfg.imageSize ?? 28, 3]);
  }
  const { stepValues, final, check } = checkNormalizedFormat(p.sftTarget);
  expect(stepValues).toEqual(p.referenceSteps.map((s) => s.value));
  expect(
    p.referenceSteps.map((s) => s.text).every((t) => /^[^{}]* = \\boxed\{-?\d+\}$/.test(t)),
  ).toBe(true);
  expect(stepValues[stepValues.length - 1]).toBe(p.answer.content);
  const expectedSteps = p.family === "digits" ? (cfg.numDigits ?? 2) + 1 : (cfg.numSteps ?? 3);
  expect(p.referenceSteps.length).toBe(expectedSteps);
  if (cfg.multipleChoice === false) {
    expect(p.options).toBeNull();
    expect(p.answer.letter).toBeNull();
    expect(final).toBe(p.answer.content);
    expect(check).toBeNull();
  } else {
    const letters = "ABCDE".slice(0, cfg.numOptions ?? 4).split("");
    expect(Object.keys(p.options!).sort()).toEqual(letters);
    expect(new Set(Object.values(p.options!)).size).toBe(letters.length);
    expect(p.options![p.answer.letter!]).toBe(p.answer.content);
    expect(final).toBe(p.answer.letter);
    // The answer checks every option in letter order and marks the one it boxes.
    expect(check).toEqual(letters.map((l) => ({ content: p.options![l], correct: l === final })));
  }
}

describe("task generators", () => {
  it("every family and knob setting gives well-formed prompts (fast-check)", () => {
    fc.assert(
      fc.property(configArb, fc.integer({ min: 0, max: 2 ** 31 }), (cfg, seed) => {
        const g = gen(cfg);
        for (const p of g.sampleBatch(8, new Rng(seed))) checkPrompt(p, cfg);
        for (const p of g.evalSet({ size: 4 })) checkPrompt(p, cfg);
      }),
      { numRuns: 300, seed: 12345 },
    );
  });

  it.each(families)(
    "%s: same seed → identical prompts and image bytes; different seed → different",
    (family) => {
      const a = gen({ family }).sampleBatch(16, new Rng(7));
      const b = gen({ family }).sampleBatch(16, new Rng(7));
      const c = gen({ family }).sampleBatch(16, new Rng(8));
      expect(a.map((p) => ({ ...p, image: null }))).toEqual(b.map((p) => ({ ...p, image: null })));
      a.forEach((p, i) => {
        expect(Buffer.compare(imageBytes(p), imageBytes(b[i]))).toBe(0);
      });
      expect(a.map((p) => p.sftTarget + p.question)).not.toEqual(
        c.map((p) => p.sftTarget + p.question),
      );
      expect(a.some((p, i) => Buffer.compare(imageBytes(p), imageBytes(c[i])) !== 0)).toBe(true);
      // generate() is addressable by (split, index, seed)
      const g = gen({ family });
      expect(g.generate("train", 3, 99).sftTarget).toBe(
        gen({ family }).generate("train", 3, 99).sftTarget,
      );
    },
  );

  it.each(families)(
    "%s: the eval set is fixed, sized %#, unskewed and with stable ids",
    (family) => {
      const e1 = gen({ family, optionSkew: 1 }).evalSet();
      const e2 = gen({ family, optionSkew: 1 }).evalSet();
      expect(e1.length).toBe(EVAL_SIZE);
      expect(e1.map((p) => p.id)).toEqual(
        Array.from({ length: 64 }, (_, i) => `${family}/eval/${i}`),
      );
      expect(e1.map((p) => p.sftTarget)).toEqual(e2.map((p) => p.sftTarget));
      e1.forEach((p, i) => {
        expect(Buffer.compare(imageBytes(p), imageBytes(e2[i]))).toBe(0);
      });
      // eval skew defaults to 0 even when training is fully skewed
      expect(e1.filter((p) => p.answer.letter === "A").length).toBeLessThan(40);
      expect(e1.every((p) => p.meta.split === "eval")).toBe(true);
    },
  );

  it("train and eval digit prompts never share an image (packed index and pixel hash)", () => {
    const g = gen({ family: "digits", numDigits: 3 });
    const train = g.sampleBatch(2000, new Rng(1));
    const evalSet = g.evalSet({ size: 256 });
    const crops = (p: LabTaskPrompt) =>
      p.meta.digitIndices!.map((_, j) => {
        const b = new Uint8Array(784);
        for (let r = 0; r < 28; r++)
          for (let c = 0; c < 28; c++)
            b[r * 28 + c] = Math.round(p.image[r * p.width + j * 28 + c] * 255);
        return `${fnv1a(b)}:${b.reduce((x, y) => x + y, 0)}`;
      });
    const trainIdx = new Set(train.flatMap((p) => p.meta.digitIndices!));
    const evalIdx = new Set(evalSet.flatMap((p) => p.meta.digitIndices!));
    expect([...trainIdx].every((k) => k < mnist.train.count)).toBe(true);
    expect([...evalIdx].every((k) => k >= mnist.train.count)).toBe(true);
    expect([...evalIdx].some((k) => trainIdx.has(k))).toBe(false);
    const trainHashes = new Set(train.flatMap(crops));
    expect(evalSet.flatMap(crops).some((h) => trainHashes.has(h))).toBe(false);
    // labels of the crops are the reference reading steps
    for (const p of [...train.slice(0, 50), ...evalSet.slice(0, 50)]) {
      expect(p.referenceSteps.slice(0, 3).map((s) => Number(s.value))).toEqual(p.meta.digitLabels);
      p.meta.digitIndices!.forEach((k, j) => {
        const s = k < mnist.train.count ? mnist.train : mnist.eval;
        const local = k < mnist.train.count ? k : k - mnist.train.count;
        expect(s.labels[local]).toBe(p.meta.digitLabels![j]);
      });
    }
  });

  it("digit answers follow the question", () => {
    for (const p of gen({
      family: "digits",
      digitOps: ["sum", "difference", "largest", "product"],
    }).sampleBatch(400, new Rng(3))) {
      const [a, b] = p.meta.digitLabels!;
      const v = Number(p.answer.content);
      const expected = { sum: a + b, difference: a - b, largest: Math.max(a, b), product: a * b }[
        p.meta.kind as "sum"
      ];
      expect(v).toBe(expected);
    }
  });

  it("option-position skew: 1 puts every answer at the skew letter, 0 spreads them", () => {
    const skewed = gen({ family: "bars", optionSkew: 1, skewLetter: "C" }).sampleBatch(
      200,
      new Rng(4),
    );
    expect(skewed.every((p) => p.answer.letter === "C")).toBe(true);
    const flat = gen({ family: "bars", optionSkew: 0 }).sampleBatch(2000, new Rng(4));
    for (const l of "ABCD") {
      const n = flat.filter((p) => p.answer.letter === l).length;
      expect(n).toBeGreaterThan(400);
      expect(n).toBeLessThan(600);
    }
    const half = gen({ family: "bars", optionSkew: 0.5 }).sampleBatch(2000, new Rng(4));
    const nA = half.filter((p) => p.answer.letter === "A").length; // expected 0.5 + 0.5/4 = 0.625
    expect(nA / 2000).toBeGreaterThan(0.57);
    expect(nA / 2000).toBeLessThan(0.68);
  });

  it("distractor closeness: 1 gives near misses, 0 spreads further; the answer's rank is not a shortcut", () => {
    const dist = (ps: LabTaskPrompt[]) =>
      ps.flatMap((p) =>
        Object.values(p.options!).map((o) => Math.abs(Number(o) - Number(p.answer.content))),
      );
    const near = dist(
      gen({ family: "shapes", distractorCloseness: 1 }).sampleBatch(300, new Rng(5)),
    );
    const far = dist(
      gen({ family: "shapes", distractorCloseness: 0 }).sampleBatch(300, new Rng(5)),
    );
    expect(Math.max(...near)).toBeLessThanOrEqual(3);
    expect(Math.max(...far)).toBeLessThanOrEqual(10);
    expect(far.reduce((a, b) => a + b, 0)).toBeGreaterThan(near.reduce((a, b) => a + b, 0) * 1.5);
    // rank of the answer among the sorted option values is roughly uniform
    const ranks = [0, 0, 0, 0];
    for (const p of gen({ family: "bars", distractorCloseness: 0.8 }).sampleBatch(
      2000,
      new Rng(6),
    )) {
      const vals = Object.values(p.options!)
        .map(Number)
        .sort((a, b) => a - b);
      ranks[vals.indexOf(Number(p.answer.content))]++;
    }
    for (const r of ranks) expect(r).toBeGreaterThan(300);
    // counts never get negative distractors
    for (const p of gen({ family: "shapes", numSteps: 1 }).sampleBatch(300, new Rng(6))) {
      expect(Object.values(p.options!).every((o) => Number(o) >= 0)).toBe(true);
    }
  });

  it("object count and image size knobs reach the image", () => {
    const shapes = gen({
      family: "shapes",
      imageSize: 40,
      gridCells: 5,
      objectCount: 12,
    }).sampleBatch(5, new Rng(1));
    for (const p of shapes) {
      expect([p.height, p.width]).toEqual([40, 40]);
      // number of non-empty grid cells equals the object count
      let filled = 0;
      for (let gr = 0; gr < 5; gr++)
        for (let gc = 0; gc < 5; gc++) {
          let any = false;
          for (let r = gr * 8; r < gr * 8 + 8; r++)
            for (let c = gc * 8; c < gc * 8 + 8; c++)
              for (let ch = 0; ch < 3; ch++) any ||= p.image[(r * 40 + c) * 3 + ch] > 0;
          if (any) filled++;
        }
      expect(filled).toBe(12);
    }
    const bars = gen({ family: "bars", numSteps: 1, objectCount: 5 }).sampleBatch(50, new Rng(2));
    expect(bars.every((p) => !/bar [6-9]/.test(p.question))).toBe(true);
  });

  it("bar heights in the image match the reference values", () => {
    for (const p of gen({ family: "bars", numSteps: 1, objectCount: 4 }).sampleBatch(
      100,
      new Rng(9),
    )) {
      const m = /^How tall is bar (\d)\?$/.exec(p.question);
      if (!m) continue;
      const i = Number(m[1]) - 1;
      const col = Math.floor(28 / 4) * i + 3; // middle of bar i
      let px = 0;
      for (let r = 0; r < 28; r++)
        if (
          p.image[(r * 28 + col) * 3] +
            p.image[(r * 28 + col) * 3 + 1] +
            p.image[(r * 28 + col) * 3 + 2] >
          0
        )
          px++;
      expect(px).toBe(Number(p.answer.content) * 2); // unit = floor(26 / 9) = 2 px
    }
  });

  it("config errors name the field", () => {
    expect(() => resolveTaskConfig({ numDigits: 4 as 2 })).toThrow(/^TaskConfig\.numDigits/);
    expect(() => resolveTaskConfig({ family: "clocks" as "digits" })).toThrow(
      /^TaskConfig\.family/,
    );
    expect(() => resolveTaskConfig({ optionSkew: 1.5 })).toThrow(/^TaskConfig\.optionSkew/);
    expect(() => resolveTaskConfig({ distractorCloseness: NaN })).toThrow(
      /^TaskConfig\.distractorCloseness/,
    );
    expect(() => resolveTaskConfig({ numSteps: 5 as 1 })).toThrow(/^TaskConfig\.numSteps/);
    expect(() => resolveTaskConfig({ numOptions: 6 })).toThrow(/^TaskConfig\.numOptions/);
    expect(() => resolveTaskConfig({ skewLetter: "E" })).toThrow(/^TaskConfig\.skewLetter/);
    expect(() => resolveTaskConfig({ imageSize: 8 })).toThrow(/^TaskConfig\.imageSize/);
    expect(() => resolveTaskConfig({ family: "shapes", imageSize: 16, gridCells: 4 })).toThrow(
      /^TaskConfig\.gridCells/,
    );
    expect(() => resolveTaskConfig({ family: "shapes", objectCount: 17 })).toThrow(
      /^TaskConfig\.objectCount/,
    );
    expect(() => resolveTaskConfig({ family: "bars", objectCount: 9 })).toThrow(
      /^TaskConfig\.objectCount/,
    );
    expect(() => resolveTaskConfig({ numDigits: 3, digitOps: ["product"] })).toThrow(
      /^TaskConfig\.digitOps/,
    );
    expect(() => resolveTaskConfig({ multipleChoise: false } as Partial<TaskConfig>)).toThrow(
      /^TaskConfig\.multipleChoise is not a known field/,
    );
    expect(() => createTaskGenerator({ family: "digits" })).toThrow(/needs the MNIST subset/);
  });

  it("shuffleImages gives every prompt another prompt's image and keeps the rest", () => {
    for (const family of families) {
      const ps = gen({ family }).sampleBatch(32, new Rng(11));
      const sh = shuffleImages(ps, new Rng(12));
      expect(sh.length).toBe(ps.length);
      sh.forEach((p, i) => {
        expect(p.id).toBe(ps[i].id);
        expect(p.sftTarget).toBe(ps[i].sftTarget);
        expect(p.meta!.imageFrom).not.toBe(ps[i].id);
        const src = ps.find((q) => q.id === p.meta!.imageFrom)!;
        expect(Buffer.compare(imageBytes(p), imageBytes(src))).toBe(0);
      });
      // a permutation: every image used exactly once
      expect(new Set(sh.map((p) => p.meta!.imageFrom)).size).toBe(ps.length);
    }
    const mixed = [
      gen({ family: "digits" }).sampleBatch(1, new Rng(1))[0],
      gen({ family: "bars" }).sampleBatch(1, new Rng(1))[0],
    ];
    expect(() => shuffleImages(mixed, new Rng(1))).toThrow(/expected 28×56×1/);
  });

  it("reaskWithShuffledOptions permutes options and maps letters by content", () => {
    const rng = new Rng(13);
    for (const p of gen({ family: "digits" }).sampleBatch(200, new Rng(14))) {
      const r = reaskWithShuffledOptions(p, rng);
      expect(Object.keys(r.options).sort()).toEqual(["A", "B", "C", "D"]);
      expect(Object.values(r.options).sort()).toEqual(Object.values(p.options!).sort());
      expect(Object.keys(r.options).some((l) => r.options[l] !== p.options![l])).toBe(true);
      for (const l of Object.keys(r.options)) {
        expect(r.options[l]).toBe(p.options![r.toOriginal[l]]);
        expect(r.toNew[r.toOriginal[l]]).toBe(l);
      }
      expect(r.prompt.options![r.prompt.answer.letter!]).toBe(p.answer.content);
      expect(r.prompt.answer.content).toBe(p.answer.content);
      expect(r.prompt.image).toBe(p.image);
      const target = checkNormalizedFormat(r.prompt.sftTarget);
      expect(target.final).toBe(r.prompt.answer.letter);
      expect(target.check!.filter((c) => c.correct)).toEqual([
        { content: p.answer.content, correct: true },
      ]);
    }
    const open = gen({ family: "bars", multipleChoice: false }).sampleBatch(1, new Rng(1))[0];
    expect(() => reaskWithShuffledOptions(open, rng)).toThrow(/open-ended/);
  });
});
