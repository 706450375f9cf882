import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  buildModelTokens,
  createTaskGenerator,
  decode,
  decodeResponse,
  encode,
  promptText,
  reaskWithShuffledOptions,
  renderOptions,
  Rng,
  tokenizeWords,
  VOCAB,
  vocabSize,
  PAD_ID,
  EOS_ID,
  BOS_ID,
  SEP_ID,
  MAX_PROMPT_TOKENS,
  MAX_RESPONSE_TOKENS,
  NUMBER_MIN,
  NUMBER_MAX,
} from "../../src/tasks/index";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";
import { configArb } from "./helpers";

const mnist = loadMnistSubsetNode();

describe("tokenizer", () => {
  it("has a fixed vocabulary without duplicates, PAD = 0, every number −40..99", () => {
    expect(new Set(VOCAB).size).toBe(VOCAB.length);
    expect(vocabSize).toBe(VOCAB.length);
    expect(PAD_ID).toBe(0);
    expect(new Set([PAD_ID, BOS_ID, EOS_ID, SEP_ID]).size).toBe(4);
    for (let n = NUMBER_MIN; n <= NUMBER_MAX; n++) expect(encode(String(n))).toHaveLength(1);
    for (const w of [
      "<think>",
      "</think>",
      "<answer>",
      "</answer>",
      "\\boxed{",
      "}",
      "Step",
      ":",
      "=",
      "+",
      "-",
      "A",
      "B",
      "C",
      "D",
      "E",
    ]) {
      expect(VOCAB).toContain(w);
    }
  });

  it("splits at the glue points and writes canonical spacing", () => {
    const t =
      "<think> Step 1: first digit = \\boxed{3} Step 2: 3 - 4 = \\boxed{-1} </think> \\boxed{B}";
    expect(tokenizeWords(t)).toEqual([
      "<think>",
      "Step",
      "1",
      ":",
      "first",
      "digit",
      "=",
      "\\boxed{",
      "3",
      "}",
      "Step",
      "2",
      ":",
      "3",
      "-",
      "4",
      "=",
      "\\boxed{",
      "-1",
      "}",
      "</think>",
      "\\boxed{",
      "B",
      "}",
    ]);
    expect(decode(encode(t))).toBe(t);
    expect(decode(encode("<answer>B</answer>"))).toBe("<answer> B </answer>");
    expect(decode(encode("  Step 1 :  \\boxed{ 7 }  "))).toBe("Step 1: \\boxed{7}");
    expect(decode(encode("How many red shapes? A: 1 B: 2"))).toBe("How many red shapes? A: 1 B: 2");
  });

  it("throws on a word outside the vocabulary, naming it", () => {
    expect(() => encode("What is the banana?")).toThrow(/"banana" is not in the vocabulary/);
    expect(() => encode("\\boxed{100}")).toThrow(/"100"/);
    expect(() => encode("3.5")).toThrow(/"\."/);
    expect(() => encode("007")).toThrow(/"007"/);
    expect(() => decode([vocabSize])).toThrow(/not in 0\.\./);
  });

  it("decode(encode(t)) === t for thousands of task texts of every family and knob (fast-check)", () => {
    let texts = 0;
    fc.assert(
      fc.property(configArb, fc.integer({ min: 0, max: 2 ** 31 }), (cfg, seed) => {
        const g = createTaskGenerator(cfg, { mnist });
        const rng = new Rng(seed);
        for (const p of [...g.sampleBatch(6, rng), ...g.evalSet({ size: 2 })]) {
          const all = [
            p.question,
            promptText(p),
            p.sftTarget,
            ...p.referenceSteps.map((s) => s.text),
          ];
          if (p.options) {
            all.push(renderOptions(p.options));
            const r = reaskWithShuffledOptions(p, rng);
            all.push(promptText(r.prompt), r.prompt.sftTarget);
          }
          for (const t of all) {
            expect(decode(encode(t))).toBe(t);
            texts++;
          }
          const { prompt, target } = buildModelTokens(p);
          expect(prompt.length).toBeLessThanOrEqual(MAX_PROMPT_TOKENS);
          expect(target.length).toBeLessThanOrEqual(MAX_RESPONSE_TOKENS);
          expect(prompt[0]).toBe(BOS_ID);
          expect(prompt[prompt.length - 1]).toBe(SEP_ID);
          expect(target[target.length - 1]).toBe(EOS_ID);
          expect(decodeResponse(target)).toBe(p.sftTarget);
        }
      }),
      { numRuns: 400, seed: 777 },
    );
    expect(texts).toBeGreaterThan(5000);
  });

  it("encode(decode(ids)) === ids for any id sequence", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: vocabSize - 1 }), { maxLength: 60 }),
        (ids) => {
          expect(encode(decode(ids))).toEqual(ids);
        },
      ),
      { numRuns: 3000, seed: 4242 },
    );
  });

  it("decodeResponse stops at EOS and drops PAD/BOS/SEP", () => {
    const ids = [BOS_ID, ...encode("</think> \\boxed{7}"), PAD_ID, EOS_ID, ...encode("Step")];
    expect(decodeResponse(ids)).toBe("</think> \\boxed{7}");
  });
});
