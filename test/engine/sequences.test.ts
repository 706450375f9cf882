// CPU-side tensor building of the trainer: prompt left-padding, response
// masking up to and including EOS, SFT targets, and the SFT learning-rate schedule.
import { describe, expect, it } from "vitest";
import {
  joinPromptResponse,
  promptTensor,
  targetTensor,
  imageTensor,
} from "../../src/engine/sequences";
import { sftLearningRate } from "../../src/engine/sft";
import { BOS_ID, EOS_ID, PAD_ID, SEP_ID, encode } from "../../src/tasks/tokenizer";
import type { TaskPrompt } from "../../src/tasks/types";

const prompt = (id: string, pixel: number): TaskPrompt => ({
  id,
  family: "digits",
  image: new Float32Array([pixel, pixel, pixel, pixel]),
  height: 2,
  width: 2,
  channels: 1,
  question: "What is the sum of the two digits?",
  options: { A: "3", B: "4", C: "5", D: "6" },
  answer: { letter: "B", content: "4" },
  referenceSteps: [],
  sftTarget: "<think> Step 1: 1 + 3 = \\boxed{4} </think> \\boxed{B}",
});

describe("sequences", () => {
  it("left-pads prompts and repeats each G times", () => {
    const t = promptTensor([prompt("a", 0)], 30, 2);
    expect(t.length).toBe(60);
    const row0 = Array.from(t.subarray(0, 30));
    expect(
      row0.slice(0, 30 - row0.filter((x) => x !== PAD_ID).length).every((x) => x === PAD_ID),
    ).toBe(true);
    expect(row0[0]).toBe(PAD_ID);
    expect(row0[30 - 1]).toBe(SEP_ID);
    expect(Array.from(t.subarray(30, 60))).toEqual(row0);
    expect(row0.filter((x) => x === BOS_ID).length).toBe(1);
    expect(() => promptTensor([prompt("a", 0)], 5)).toThrow(
      /prompt a has \d+ tokens, over promptLen 5/,
    );
  });

  it("masks response tokens up to and including the first EOS", () => {
    const prompts = new Int32Array([7, 8, 9, 10]); // 2 rows × promptLen 2
    const responses = new Int32Array([20, EOS_ID, 21, 22, /* row 1, cut off: */ 30, 31, 32, 33]);
    const b = joinPromptResponse(prompts, responses, { promptLen: 2, maxNew: 4 });
    expect(Array.from(b.tokens)).toEqual([7, 8, 20, EOS_ID, PAD_ID, PAD_ID, 9, 10, 30, 31, 32, 33]);
    expect(Array.from(b.mask)).toEqual([0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(Array.from(b.lengths)).toEqual([2, 4]);
    expect(() =>
      joinPromptResponse(prompts, responses.subarray(1), { promptLen: 2, maxNew: 4 }),
    ).toThrow(/do not fit/);
  });

  it("writes SFT targets with EOS and images in group order", () => {
    const t = targetTensor([prompt("a", 0)], 24);
    const ids = [...encode(prompt("a", 0).sftTarget), EOS_ID];
    expect(Array.from(t.subarray(0, ids.length))).toEqual(ids);
    expect(t[ids.length]).toBe(PAD_ID);
    expect(() => targetTensor([prompt("a", 0)], 4)).toThrow(
      /target of a has \d+ tokens, over maxNew 4/,
    );
    expect(Array.from(imageTensor([prompt("a", 0.25), prompt("b", 0.5)], 2))).toEqual([
      ...Array(8).fill(0.25),
      ...Array(8).fill(0.5),
    ]);
  });
});

describe("sftLearningRate (nanoGPT get_lr)", () => {
  it("warms up linearly, decays by a cosine to a tenth, then stays there", () => {
    expect(sftLearningRate(0, 100, 1e-3)).toBeCloseTo(1e-3 / 5, 12); // warm-up 5 steps
    expect(sftLearningRate(4, 100, 1e-3)).toBeCloseTo(1e-3, 12);
    expect(sftLearningRate(5, 100, 1e-3)).toBeCloseTo(1e-3, 12);
    expect(sftLearningRate(52.5, 100, 1e-3)).toBeCloseTo(5.5e-4, 12); // cosine midpoint
    expect(sftLearningRate(100, 100, 1e-3)).toBeCloseTo(1e-4, 12);
    expect(sftLearningRate(500, 100, 1e-3)).toBeCloseTo(1e-4, 12);
  });
});
