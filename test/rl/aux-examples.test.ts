/**
 * StructReward's auxiliary batch (src/rl/aux-examples.ts) on the default
 * task (multiple choice, 3 steps, the default text shape): the rows hold
 * exactly what the builders of src/rewards/structreward.ts return, in their
 * order and with their targets, the text round-trips through the tokenizer,
 * the loss mask covers the target tokens and nothing else, each row carries
 * its prompt's image, and the counts per kind are the builders' counts.
 */
import { describe, expect, it } from "vitest";
import { mnistFor } from "../../src/cli/node-run";
import {
  buildPairwiseExamples,
  buildPointwiseExamples,
  makeHardNegative,
  mulberry32,
} from "../../src/rewards/index";
import {
  buildAuxBatch,
  compactResponse,
  JUDGE_MARK_ID,
  type AuxKind,
} from "../../src/rl/aux-examples";
import { findVariant, parseExperiment } from "../../src/settings/experiment";
import { runModel } from "../../src/engine/lab-model";
import { taskGeneratorFor } from "../../src/run/lab-run";
import { applyVariantSetting } from "../../src/settings/variant-settings";
import { VARIANT_TABLE, typedEntry, type VariantWeightsOf } from "../../src/settings/variant-table";
import { Rng } from "../../src/tasks/rng";
import { decode, EOS_ID, PAD_ID, SEP_ID } from "../../src/tasks/tokenizer";

const exp = parseExperiment({ variants: [{ name: "structreward" }] });
const tasks = taskGeneratorFor(exp, mnistFor(exp));
const { shape } = runModel(exp.modelSize, tasks, 8);
const prompts = tasks.sampleBatch(2, new Rng(3));
/** Per group: two right traces (the reference) and two wrong ones (the reference with another letter boxed last). */
const wrongFor = (i: number) => {
  const t = prompts[i].sftTarget;
  const at = t.lastIndexOf("\\boxed{");
  const wrong = ["A", "B", "C", "D"].find((l) => l !== prompts[i].answer.letter);
  return `${t.slice(0, at)}\\boxed{${wrong}}`;
};
const texts = prompts.map((p, i) => [p.sftTarget, wrongFor(i), p.sftTarget, wrongFor(i)]);
const L = shape.promptLen + shape.maxNew;

/** The examples the builders return, in the order buildAuxBatch draws them (one rng, prompt by prompt). */
function fromBuilders(seed: number, recycle: boolean, hard: boolean) {
  const rng = mulberry32(seed);
  const out: { kind: AuxKind; prompt: number; texts: string[]; target: string }[] = [];
  prompts.forEach((prompt, p) => {
    if (recycle) {
      for (const e of buildPointwiseExamples({ prompt, texts: texts[p] }))
        out.push({ kind: "pointwise", prompt: p, texts: [e.response], target: e.target });
      for (const e of buildPairwiseExamples({ prompt, texts: texts[p], rng }))
        out.push({
          kind: "pairwise",
          prompt: p,
          texts: [e.responseA, e.responseB],
          target: e.target,
        });
    }
    if (hard)
      for (const text of texts[p]) {
        const hn = makeHardNegative({ prompt, text, rng });
        if (!hn) continue;
        out.push({
          kind: "locate",
          prompt: p,
          texts: [hn.locate.response],
          target: `Incorrect ${hn.locate.target}`,
        });
        out.push({
          kind: "choose",
          prompt: p,
          texts: [hn.choose.responseA, hn.choose.responseB],
          target: hn.choose.target,
        });
      }
  });
  return out;
}

/** Row i's columns: the non-PAD prompt-column tokens, the response-column tokens, the mask. */
function rowOf(tokens: Int32Array, mask: Float32Array, i: number) {
  const r = tokens.subarray(i * L, (i + 1) * L);
  const m = mask.subarray(i * L, (i + 1) * L);
  return {
    context: Array.from(r.subarray(0, shape.promptLen)).filter((t) => t !== PAD_ID),
    response: Array.from(r.subarray(shape.promptLen)),
    mask: Array.from(m),
  };
}

describe("StructReward auxiliary batch (default task)", () => {
  it("holds the builders' examples, round-trips their text, masks only the targets", () => {
    const rows = 64;
    const aux = buildAuxBatch({
      prompts,
      texts,
      options: { recycle: true, hardNegatives: true },
      shape,
      rows,
      rng: mulberry32(5),
    });
    const want = fromBuilders(5, true, true);
    // 4 pointwise + 2·2 pairs + 2 hard negatives × (locate, choose) per prompt.
    expect(aux.built).toEqual({ pointwise: 8, pairwise: 8, locate: 4, choose: 4 });
    expect(aux.trained).toEqual(aux.built);
    expect(aux.dropped).toEqual({ tooLong: 0, untokenizable: 0, overBudget: 0 });
    expect(aux.examples.map((e) => [e.kind, e.prompt])).toEqual(
      want.map((w) => [w.kind, w.prompt]),
    );
    const size = prompts[0].image.length;
    for (const [i, w] of want.entries()) {
      const row = rowOf(aux.text.tokens, aux.text.mask, i);
      const sep = row.response.indexOf(JUDGE_MARK_ID);
      const end = row.response.indexOf(EOS_ID, sep);
      if (w.texts.length === 1) {
        // Prompt columns: the task prompt; response columns: response ? target <eos>.
        expect(decode(row.context)).toBe(decode(aux.examples[i].context));
        expect(row.context[row.context.length - 1]).toBe(SEP_ID);
        expect(decode(row.response.slice(0, sep))).toBe(w.texts[0]);
      } else {
        // Prompt columns: <bos> A' <sep>; response columns: B' ? target <eos>.
        expect(decode(row.context.slice(1, -1))).toBe(compactResponse(w.texts[0]));
        expect(decode(row.response.slice(0, sep))).toBe(compactResponse(w.texts[1]));
      }
      expect(decode(row.response.slice(sep + 1, end))).toBe(w.target);
      // The mask is 1 on the target and its <eos>, 0 everywhere else.
      const expected = row.mask.map((_, k) =>
        k >= shape.promptLen + sep + 1 && k <= shape.promptLen + end ? 1 : 0,
      );
      expect(row.mask).toEqual(expected);
      expect(row.response.slice(end + 1).every((t) => t === PAD_ID)).toBe(true);
      expect(Array.from(aux.images.subarray(i * size, (i + 1) * size))).toEqual(
        Array.from(prompts[w.prompt].image),
      );
    }
    // Rows past the examples: PAD, no loss.
    for (let i = want.length; i < rows; i++) {
      const row = rowOf(aux.text.tokens, aux.text.mask, i);
      expect(row.context).toEqual([]);
      expect(row.mask.every((x) => x === 0)).toBe(true);
    }
    // Pointwise targets follow the final answer: the reference is Correct, the other prompt's trace Incorrect.
    expect(want.filter((w) => w.kind === "pointwise").map((w) => w.target)).toEqual([
      "Correct",
      "Incorrect",
      "Correct",
      "Incorrect",
      "Correct",
      "Incorrect",
      "Correct",
      "Incorrect",
    ]);
  });

  it("each option alone builds only its own kinds; both off builds nothing", () => {
    const build = (recycle: boolean, hardNegatives: boolean) =>
      buildAuxBatch({
        prompts,
        texts,
        options: { recycle, hardNegatives },
        shape,
        rows: 8,
        rng: mulberry32(5),
      });
    expect(build(true, false).built).toEqual({ pointwise: 8, pairwise: 8, locate: 0, choose: 0 });
    expect(build(false, true).built).toEqual({ pointwise: 0, pairwise: 0, locate: 4, choose: 4 });
    const none = build(false, false);
    expect(none.examples).toEqual([]);
    expect(none.text.mask.every((x) => x === 0)).toBe(true);
  });

  it("keeps a seeded subset when more are built than the batch has rows", () => {
    const run = (seed: number) =>
      buildAuxBatch({
        prompts,
        texts,
        options: { recycle: true, hardNegatives: true },
        shape,
        rows: 8,
        rng: mulberry32(seed),
      });
    const a = run(5);
    expect(a.examples).toHaveLength(8);
    expect(a.dropped.overBudget).toBe(24 - 8);
    expect(Object.values(a.trained).reduce((x, y) => x + y, 0)).toBe(8);
    expect(run(5)).toEqual(a);
  });

  it("drops and counts what does not fit or does not tokenize", () => {
    const long = `${prompts[0].sftTarget} ${"7 ".repeat(shape.maxNew)}`.trim();
    const aux = buildAuxBatch({
      prompts: [prompts[0]],
      texts: [[long, "banana"]],
      options: { recycle: true, hardNegatives: false },
      shape,
      rows: 2,
      rng: mulberry32(1),
    });
    // Two pointwise examples and one pair (the long trace is right, "banana" wrong); the pair holds "banana".
    expect(aux.built).toEqual({ pointwise: 2, pairwise: 1, locate: 0, choose: 0 });
    expect(aux.examples).toEqual([]);
    expect(aux.dropped).toEqual({ tooLong: 1, untokenizable: 2, overBudget: 0 });
    expect(() =>
      buildAuxBatch({
        prompts,
        texts: [texts[0]],
        options: { recycle: true, hardNegatives: true },
        shape,
        rows: 2,
        rng: mulberry32(1),
      }),
    ).toThrow(/1 rollout groups for 2 prompts/);
  });

  it("compact form: the think block and the final box", () => {
    expect(
      compactResponse(
        "<think> Step 1: 2 + 3 = \\boxed{5} </think> 5 Correct 4 Incorrect \\boxed{A}",
      ),
    ).toBe("<think> Step 1: 2 + 3 = \\boxed{5} </think> \\boxed{A}");
    expect(compactResponse("<think> Step 1: \\boxed{5}")).toBe("<think> Step 1: \\boxed{5}");
    expect(compactResponse("<think> </think> 5")).toBe("<think> </think> 5");
  });
});

describe("StructReward's auxiliary settings (variant table, --set)", () => {
  const entry = typedEntry("structreward");
  const aux = (settings: string[]) =>
    entry.auxiliary!(
      findVariant({ variants: settings.reduce(applyVariantSetting, exp.variants) }, "structreward")!
        .weights,
    );

  it("is off by default and on per option, with the learning-rate scale", () => {
    expect(exp.variants[0].weights).toMatchObject({
      recycle: "off",
      hardNegatives: "off",
      auxLr: 0.1,
    });
    expect(aux([])).toBeNull();
    expect(aux(["structreward.recycle=on"])).toEqual({
      recycle: true,
      hardNegatives: false,
      lrScale: 0.1,
    });
    expect(aux(["structreward.hardNegatives=on", "structreward.auxLr=0.5"])).toEqual({
      recycle: false,
      hardNegatives: true,
      lrScale: 0.5,
    });
    expect(() => aux(["structreward.auxLr=-1"])).toThrow(/structreward\.weights\.auxLr/);
    // No other variant trains an auxiliary step.
    for (const v of VARIANT_TABLE)
      if (v.name !== "structreward") expect(v.auxiliary).toBeUndefined();
  });

  it("the options do not change the reward", () => {
    const on = aux(["structreward.recycle=on", "structreward.hardNegatives=on"]);
    expect(on).not.toBeNull();
    const score = (weights: VariantWeightsOf<"structreward">) =>
      entry.score({
        prompt: prompts[0],
        texts: texts[0],
        weights,
        judge: exp.variants[0].judge,
        rng: mulberry32(1),
        passes: {},
      });
    expect(score(entry.weights.parse({ recycle: "on", hardNegatives: "on", auxLr: 3 }))).toEqual(
      score(entry.weights.parse({})),
    );
  });
});
