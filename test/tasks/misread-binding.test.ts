// The SCS and ACRE scenarios' task knobs (docs/reward-spec.md §4.1, §5.1):
// distractors no one-digit misread reaches (TaskConfig.distractorRule
// off-misread), SFT targets that misread a digit and guess the letter
// (misreadRate), and targets that name their letter inside the reasoning
// (indexBindingRate). Other draws stay as they were; the bound form
// round-trips through the parser and the option-shuffle re-ask.
import { describe, expect, it } from "vitest";
import { createTaskGenerator, reaskWithShuffledOptions } from "../../src/tasks/generator";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";
import { Rng } from "../../src/tasks/rng";
import { buildModelTokens } from "../../src/tasks/tokenizer";
import { resolveTaskConfig, type TaskConfig } from "../../src/tasks/config";
import type { LabTaskPrompt } from "../../src/tasks/format";
import { evalMetrics, isLuckyGuess } from "../../src/rl/eval-metrics";
import { judgeConsistency, parseTrace } from "../../src/rewards/index";

const mnist = loadMnistSubsetNode();
const batch = (cfg: Partial<TaskConfig>, n = 2000, seed = 7) =>
  createTaskGenerator({ multipleChoice: true, ...cfg }, { mnist }).sampleBatch(n, new Rng(seed));

/** The answer of `labels` under the prompt's question kind (the digits' own arithmetic). */
function answerOf(kind: string, labels: number[]): number {
  if (kind === "sum") return labels.reduce((a, b) => a + b, 0);
  if (kind === "largest") return Math.max(...labels);
  if (kind === "product") return labels[0] * labels[1];
  return labels.length === 2 ? labels[0] - labels[1] : labels[0] + labels[1] - labels[2];
}

/** Every result a trace that misreads exactly one digit of `p` concludes. */
function misreadResults(p: LabTaskPrompt): Set<number> {
  const labels = p.meta.digitLabels!;
  const out = new Set<number>();
  labels.forEach((l, i) => {
    for (let d = 0; d <= 9; d++)
      if (d !== l)
        out.add(
          answerOf(
            p.meta.kind,
            labels.map((x, j) => (j === i ? d : x)),
          ),
        );
  });
  return out;
}

describe("distractors off the misreads (TaskConfig.distractorRule)", () => {
  it("no distractor is a one-digit misread's result; the answer is an option; options differ", () => {
    for (const numDigits of [2, 3] as const) {
      const ps = batch({ distractorRule: "off-misread", numDigits }, 600);
      for (const p of ps) {
        const contents = Object.values(p.options!);
        expect(new Set(contents).size).toBe(contents.length);
        expect(p.options![p.answer.letter!]).toBe(p.answer.content);
        const reach = misreadResults(p);
        for (const [l, c] of Object.entries(p.options!))
          if (l !== p.answer.letter) expect(reach.has(Number(c)), `${p.id} ${c}`).toBe(false);
      }
    }
  });

  it("near (the default) draws exactly as before; off-misread needs digits", () => {
    expect(batch({ distractorRule: "near" }, 200)).toEqual(batch({}, 200));
    expect(() => resolveTaskConfig({ family: "bars", distractorRule: "off-misread" })).toThrow(
      /TaskConfig\.distractorRule off-misread needs the digits family/,
    );
    expect(() =>
      resolveTaskConfig({ distractorRule: "far" as TaskConfig["distractorRule"] }),
    ).toThrow(/TaskConfig\.distractorRule must be one of near, off-misread/);
  });
});

describe("misread-and-guess SFT targets (TaskConfig.misreadRate)", () => {
  const cfg = { distractorRule: "off-misread", misreadRate: 0.4 } as const;

  it("leaves questions, images, options and the other targets as they were", () => {
    const a = batch({ distractorRule: "off-misread" }, 300);
    const b = batch(cfg, 300);
    expect(b.map((p) => [p.question, p.meta.digitIndices, p.options])).toEqual(
      a.map((p) => [p.question, p.meta.digitIndices, p.options]),
    );
    b.forEach((p, i) => {
      if (!p.meta.misread) expect(p.sftTarget).toBe(a[i].sftTarget);
    });
  });

  it("misreads one reading step, follows it through, checks every option Incorrect and guesses", () => {
    const ps = batch(cfg);
    const misread = ps.filter((p) => p.meta.misread);
    expect(misread.length / ps.length).toBeGreaterThan(0.37);
    expect(misread.length / ps.length).toBeLessThan(0.43);
    const guesses = new Map<string, number>();
    let lucky = 0;
    for (const p of misread) {
      const t = parseTrace({ text: p.sftTarget });
      const ref = p.referenceSteps;
      expect(t.steps).toHaveLength(ref.length);
      const wrong = t.steps.flatMap((s, k) => (s.boxed !== ref[k].value ? [k + 1] : []));
      // The misread reading step, and the result (which follows from it) differ from the reference.
      expect(wrong[0]).toBe(p.meta.misread!.step);
      expect(wrong.at(-1)).toBe(ref.length);
      const read = t.steps.slice(0, -1).map((s) => Number(s.boxed));
      expect(Number(t.steps.at(-1)!.boxed)).toBe(answerOf(p.meta.kind, read));
      expect(Object.values(p.options!)).not.toContain(t.steps.at(-1)!.boxed);
      expect(p.sftTarget).not.toMatch(/Correct/);
      expect(p.sftTarget).toMatch(/<\/think>( -?\d+ Incorrect){4} \\boxed\{[A-D]\}$/);
      const guess = p.meta.misread!.guess!;
      expect(t.finalAnswer).toBe(guess);
      guesses.set(guess, (guesses.get(guess) ?? 0) + 1);
      // A right guess is a lucky guess: correct, the reasoning not the reference's.
      expect(isLuckyGuess(p, p.sftTarget)).toBe(guess === p.answer.letter);
      if (guess === p.answer.letter) lucky++;
      expect(() => buildModelTokens(p)).not.toThrow();
    }
    // Guesses are uniform over A–D: a quarter of the misread targets are right by luck.
    for (const l of "ABCD") expect(guesses.get(l)! / misread.length).toBeGreaterThan(0.2);
    expect(lucky / misread.length).toBeGreaterThan(0.2);
    expect(lucky / misread.length).toBeLessThan(0.3);
  });

  it("open-ended: the box holds the misread result (consistent, wrong); shapes refuse it", () => {
    const ps = batch({ multipleChoice: false, misreadRate: 1 }, 200);
    for (const p of ps.filter((x) => x.meta.misread)) {
      const t = parseTrace({ text: p.sftTarget });
      expect(t.finalAnswer).toBe(t.steps.at(-1)!.boxed);
      expect(t.finalAnswer).not.toBe(p.answer.content);
      expect(judgeConsistency({ text: p.sftTarget }).judgment).toBe("consistent");
    }
    expect(() => resolveTaskConfig({ family: "shapes", misreadRate: 0.2 })).toThrow(
      /TaskConfig\.misreadRate needs the digits family/,
    );
    expect(() => resolveTaskConfig({ misreadRate: -0.1 })).toThrow(
      /TaskConfig\.misreadRate must be a number in \[0, 1\]/,
    );
  });
});

describe("letter-bound SFT targets (TaskConfig.indexBindingRate)", () => {
  it("moves the check inside <think>, names the letter there, and boxes it", () => {
    const a = batch({}, 500);
    const b = batch({ indexBindingRate: 0.8 }, 500);
    const bound = b.filter((p) => p.meta.indexBound);
    expect(bound.length / b.length).toBeGreaterThan(0.74);
    expect(bound.length / b.length).toBeLessThan(0.86);
    b.forEach((p, i) => {
      expect(p.options).toEqual(a[i].options);
      if (!p.meta.indexBound) expect(p.sftTarget).toBe(a[i].sftTarget);
    });
    const p = bound[0];
    const letter = p.answer.letter!;
    expect(p.sftTarget).toMatch(
      new RegExp(`Correct( \\S+ Incorrect)* is ${letter} </think> \\\\boxed\\{${letter}\\}$`),
    );
    expect(() => buildModelTokens(p)).not.toThrow();
    // The parser: same steps and conclusion as the unbound target, the letter as the answer.
    const t = parseTrace({ text: p.sftTarget });
    const u = parseTrace({ text: a[b.indexOf(p)].sftTarget });
    expect(t.steps.map((s) => s.boxed)).toEqual(u.steps.map((s) => s.boxed));
    expect(t.finalAnswer).toBe(letter);
    expect(t.formatOk).toBe(true);
    expect(judgeConsistency({ text: p.sftTarget, options: p.options }).judgment).toBe("consistent");
    const m = evalMetrics(
      bound,
      bound.map((x) => x.sftTarget),
    );
    expect(m.acc).toBe(1);
    expect(m.cacr).toBe(1);
    expect(m.luckyGuess).toBe(0);
    expect(() => resolveTaskConfig({ multipleChoice: false, indexBindingRate: 0.5 })).toThrow(
      /TaskConfig\.indexBindingRate needs multiple choice/,
    );
  });

  it("re-asked with shuffled options and the reasoning kept, a bound policy repeats the letter: OSCR = share of prompts whose letter stayed", () => {
    const ps = batch({ indexBindingRate: 1 }, 400, 11);
    const rng = new Rng(5);
    const kept = (text: string) => text.slice(0, text.indexOf("</think>") + "</think>".length);
    const reasked = ps.map((p) => reaskWithShuffledOptions(p, rng));
    // The bound policy copies the letter named inside <think> (`is X`); the unbound one redoes the check.
    const named = (think: string) => /is ([A-E]) <\/think>$/.exec(think)![1];
    const boundTexts = ps.map((p) => `${kept(p.sftTarget)} \\boxed{${named(kept(p.sftTarget))}}`);
    const stayed = ps.filter((p, i) => reasked[i].toNew[p.answer.letter!] === p.answer.letter);
    const bound = evalMetrics(
      ps,
      ps.map((p) => p.sftTarget),
      { options: reasked.map((r) => r.options), texts: boundTexts },
    );
    expect(bound.oscr).toBeCloseTo(stayed.length / ps.length, 12);
    // 5 of the 23 non-identity permutations of four options fix a given letter: about 0.22.
    expect(bound.oscr!).toBeGreaterThan(0.12);
    expect(bound.oscr!).toBeLessThan(0.32);
    const unbound = evalMetrics(
      ps,
      ps.map((p) => p.sftTarget),
      {
        options: reasked.map((r) => r.options),
        texts: reasked.map((r, i) => `${kept(ps[i].sftTarget)} \\boxed{${r.prompt.answer.letter}}`),
      },
    );
    expect(unbound.oscr).toBe(1);
  });
});
