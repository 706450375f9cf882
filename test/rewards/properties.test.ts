/**
 * Property tests (fast-check): random and mutated traces and judge replies
 * through every parser and reward. No throw, documented ranges, centering,
 * tier monotonicity, R_rule never raised by a repeated step, and a
 * Monte-Carlo check of expectedDistinctAnswers. About 15,000 generated cases.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  acreConsistency,
  answersEquivalent,
  auditTrace,
  createAuditorJudge,
  expectedDistinctAnswers,
  extractBoxed,
  extractOptionLetter,
  judgeConsistency,
  mulberry32,
  parseJudgeRanking,
  parseJudgeScore,
  parseTrace,
  rankRewards,
  scoreGRR,
  scorePointwiseGR,
  scsConsistency,
  structReward,
  verifyRollout,
} from "../../src/rewards/index";
import { groupAdvantages } from "../../src/kernels/advantages/reference";
import { digitSumPrompt, trace } from "./fixtures";

const prompt = digitSumPrompt({ digits: [3, 4] });
const REF = ["3", "4", "7"];
const SEED = 20261129;

// ------------------------------------------------------------ generators

const value = fc.oneof(
  fc.integer({ min: -20, max: 40 }).map(String),
  fc.constantFrom(
    "7",
    "B",
    "\\frac{14}{2}",
    "7.0",
    "3+4",
    "x",
    "",
    "{",
    "\\boxed{7}",
    "7 cm",
    "1,000",
  ),
);
const stepBody = fc
  .tuple(fc.constantFrom("first digit", "second digit", "3 + 4", "a", ""), value)
  .map(([w, v]) => `${w} = \\boxed{${v}}`);
const validTrace = fc
  .tuple(
    fc.array(stepBody, { minLength: 0, maxLength: 6 }),
    fc.oneof(value, fc.constantFrom("A", "B", "C", "D")),
  )
  .map(([steps, final]) => trace(steps, final));

const NOISE_TOKENS = [
  "<think>",
  "</think>",
  "\\boxed{",
  "\\boxed",
  "\\fbox{",
  "}",
  "{",
  "Step 1:",
  "Step 2:",
  "Step 9:",
  "<answer>",
  "</answer>",
  "Answer:",
  "\\",
  "$",
  "**",
  "(B)",
  " ",
  "\n",
  "😀",
  "−",
  "Final Answer: C",
];
type Edit = {
  kind: "insert" | "delete" | "truncate" | "duplicate";
  at: number;
  len: number;
  token: string;
};
const edit = fc.record({
  kind: fc.constantFrom<Edit["kind"]>("insert", "delete", "truncate", "duplicate"),
  at: fc.nat(),
  len: fc.integer({ min: 1, max: 30 }),
  token: fc.constantFrom(...NOISE_TOKENS),
});
function applyEdits(text: string, edits: Edit[]): string {
  let s = text;
  for (const e of edits) {
    const at = s.length === 0 ? 0 : e.at % (s.length + 1);
    if (e.kind === "insert") s = s.slice(0, at) + e.token + s.slice(at);
    else if (e.kind === "delete") s = s.slice(0, at) + s.slice(at + e.len);
    else if (e.kind === "truncate") s = s.slice(0, at);
    else s = s.slice(0, at) + s.slice(at, at + e.len) + s.slice(at);
  }
  return s;
}
const mutatedTrace = fc
  .tuple(validTrace, fc.array(edit, { maxLength: 6 }))
  .map(([t, e]) => applyEdits(t, e));
const anyTrace = fc.oneof(
  { weight: 3, arbitrary: mutatedTrace },
  { weight: 1, arbitrary: validTrace },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.constantFrom(...NOISE_TOKENS, "7", "B", "x"), { maxLength: 40 })
      .map((a) => a.join("")),
  },
);

// ------------------------------------------------------------ traces

describe("traces through every parser and reward", () => {
  it("never throws and stays in range (4,000 traces)", () => {
    fc.assert(
      fc.property(anyTrace, (text) => {
        const b = extractBoxed({ text });
        expect(b === null || (typeof b === "string" && b.length > 0 && b === b.trim())).toBe(true);
        const p = parseTrace({ text });
        expect(p.stepCount).toBe(p.steps.length);
        if (p.formatOk) expect(p.thinkBlocks.length).toBe(1);
        if (!p.thinkClosed) expect(p.finalAnswer === null || p.thinkBlocks.length === 0).toBe(true);
        const letter = extractOptionLetter({ text, letters: "ABCD" });
        expect(letter === null || "ABCD".includes(letter)).toBe(true);
        const s = structReward({ text, referenceSteps: REF, gold: "B", options: prompt.options });
        for (const k of ["fmt", "right", "cons"] as const) expect([0, 1]).toContain(s[k]);
        expect(s.rule).toBeGreaterThanOrEqual(0);
        expect(s.rule).toBeLessThanOrEqual(1);
        expect(s.total).toBeGreaterThanOrEqual(0);
        expect(s.total).toBeLessThanOrEqual(1.2125 + 1e-12);
        if (s.right === 0) expect(s.total).toBeLessThanOrEqual(0.1 + 1e-12); // gated
        const v = verifyRollout({ text, prompt });
        expect([0, 1]).toContain(v.rVer);
        if (v.na) expect(v.rVer).toBe(0);
        expect(["consistent", "inconsistent", "na"]).toContain(
          judgeConsistency({ text, options: prompt.options }).judgment,
        );
        const a = auditTrace({ prompt, text });
        expect(a.score).toBeGreaterThanOrEqual(0);
        expect(a.score).toBeLessThanOrEqual(1 + 1e-12);
      }),
      { numRuns: 4000, seed: SEED },
    );
  });

  it("answersEquivalent never throws, is reflexive on non-empty answers and symmetric (2,000 pairs)", () => {
    const answer = fc.oneof(
      value,
      fc.string({ maxLength: 30 }),
      fc.constantFrom("(1,2)", "\\{1,2\\}", "2^{2^{2^{10}}}", "50%", "0.5", "\\sqrt[3]{-8}", "-2"),
    );
    fc.assert(
      fc.property(answer, answer, (a, b) => {
        const ab = answersEquivalent({ predicted: a, gold: b });
        expect(typeof ab).toBe("boolean");
        if (a.trim().length > 0 && a === b) expect(ab).toBe(true);
        expect(answersEquivalent({ predicted: b, gold: a })).toBe(ab);
        expect(typeof answersEquivalent({ predicted: a, gold: b, options: prompt.options })).toBe(
          "boolean",
        );
      }),
      { numRuns: 2000, seed: SEED },
    );
  });

  // Repeating = writing a step again right after itself; the reference values
  // are distinct (with a repeated reference value, a repeated step may rightly match it).
  it("repeating a step never raises R_rule (1,000 traces)", () => {
    fc.assert(
      fc.property(
        fc.array(stepBody, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.integer({ min: 1, max: 3 }),
        (steps, from, times) => {
          const before = structReward({
            text: trace(steps, "7"),
            referenceSteps: REF,
            gold: "7",
          }).rule;
          const i = from % steps.length;
          const repeated = steps.slice();
          repeated.splice(i + 1, 0, ...new Array<string>(times).fill(steps[i]));
          const after = structReward({
            text: trace(repeated, "7"),
            referenceSteps: REF,
            gold: "7",
          }).rule;
          expect(after).toBeLessThanOrEqual(before + 1e-12);
        },
      ),
      { numRuns: 1000, seed: SEED },
    );
  });
});

// ------------------------------------------------------------ judge replies

const rankingEntries = fc
  .integer({ min: 1, max: 8 })
  .chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(fc.integer({ min: 1, max: n }), { minLength: n, maxLength: n }),
    ),
  );
type Wrap = "plain" | "fence" | "prose" | "trailing" | "strings" | "think";
function render(ranks: number[], wrap: Wrap): string {
  const entries = ranks.map((r, i) =>
    wrap === "strings"
      ? { index: String(i + 1), rank: ` ${r} ` }
      : { index: i + 1, rank: r, justification: "ok {x} [y]", errors: [] },
  );
  let json = JSON.stringify({ solutions: entries }, null, wrap === "fence" ? 2 : undefined);
  if (wrap === "trailing")
    json = json.replace(/\}/g, ",}").replace(/\]/g, ",]").replace(/,,/g, ",");
  if (wrap === "fence") return `\`\`\`json\n${json}\n\`\`\``;
  if (wrap === "prose") return `Sure! Ranking below.\n${json}\nHope this helps {really}.`;
  if (wrap === "think") return `<think>candidate 2 {maybe} is [best</think>\n${json}`;
  return json;
}

describe("judge replies", () => {
  it("well-formed rankings in any wrapper are read exactly (2,000 replies)", () => {
    fc.assert(
      fc.property(
        rankingEntries,
        fc.constantFrom<Wrap>("plain", "fence", "prose", "trailing", "strings", "think"),
        ([n, ranks], wrap) => {
          const r = parseJudgeRanking({ text: render(ranks, wrap), numCandidates: n });
          expect(r.ranks).toEqual(ranks);
          expect(r.ok && r.complete).toBe(true);
        },
      ),
      { numRuns: 2000, seed: SEED },
    );
  });

  it("mutated and random replies never throw and keep the result shape (3,000 replies)", () => {
    const reply = fc.oneof(
      fc
        .tuple(
          rankingEntries,
          fc.constantFrom<Wrap>("plain", "fence", "prose", "trailing", "strings", "think"),
          fc.array(edit, { maxLength: 5 }),
        )
        .map(([[n, ranks], wrap, edits]) => ({ n, text: applyEdits(render(ranks, wrap), edits) })),
      fc
        .tuple(fc.integer({ min: 0, max: 8 }), fc.string({ maxLength: 200 }))
        .map(([n, text]) => ({ n, text })),
      fc.tuple(fc.integer({ min: 1, max: 8 }), fc.json()).map(([n, text]) => ({ n, text })),
    );
    fc.assert(
      fc.property(reply, ({ n, text }) => {
        const r = parseJudgeRanking({ text, numCandidates: n });
        expect(r.ranks.length).toBe(n);
        for (const x of r.ranks) expect(x === null || (Number.isInteger(x) && x >= 1)).toBe(true);
        expect(r.missing).toEqual(r.ranks.flatMap((x, i) => (x === null ? [i + 1] : [])));
        expect(r.ok).toBe(r.ranks.some((x) => x !== null));
        expect(r.complete).toBe(r.missing.length === 0);
        const s = parseJudgeScore({ text });
        if (s.ok) {
          expect(s.score).toBeGreaterThanOrEqual(0);
          expect(s.score).toBeLessThanOrEqual(1);
        } else expect(s.score).toBeNull();
      }),
      { numRuns: 3000, seed: SEED },
    );
  });

  it("GRR and pointwise GR on random groups: ranges, centering, judge failures counted (300 groups)", () => {
    fc.assert(
      fc.property(
        fc.array(anyTrace, { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.nat(),
        (texts, failureRate, seed) => {
          const judge = createAuditorJudge({ failureRate });
          const g = scoreGRR(prompt, texts, { judge }, mulberry32(seed));
          const rr = g.rollouts.map((r) => r.components.rRank);
          expect(Math.abs(rr.reduce((a, b) => a + b, 0))).toBeLessThan(1e-9);
          for (const [i, r] of g.rollouts.entries()) {
            expect(Math.abs(rr[i])).toBeLessThanOrEqual(0.5 + 1e-12);
            if (!r.verifierPassed) expect(r.total).toBe(0);
          }
          expect(g.judgeFailures).toBeLessThanOrEqual(g.judgeCalls);
          const p = scorePointwiseGR(prompt, texts, { judge }, mulberry32(seed));
          for (const r of p.rollouts) {
            expect(r.components.rGr).toBeGreaterThanOrEqual(0);
            expect(r.components.rGr).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 300, seed: SEED },
    );
  });
});

// ------------------------------------------------------------ rank rewards, advantages, SCS, ACRE

describe("numeric rewards", () => {
  it("rank rewards: sum 0, bounded, a better tier never gets less (4 × 500 groups)", () => {
    for (const mapping of ["pcs", "edn", "trs", "irn"] as const) {
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 10 }), (ranks) => {
          const r = rankRewards({ ranks, mapping });
          expect(r.length).toBe(ranks.length);
          expect(Math.abs(r.reduce((a, b) => a + b, 0))).toBeLessThan(1e-9);
          const bound = mapping === "pcs" ? 0.5 : 1;
          for (const x of r) expect(Math.abs(x)).toBeLessThanOrEqual(bound + 1e-12);
          for (let i = 0; i < ranks.length; i++) {
            for (let j = 0; j < ranks.length; j++) {
              if (ranks[i] < ranks[j]) expect(r[i]).toBeGreaterThanOrEqual(r[j]);
              if (ranks[i] === ranks[j]) expect(r[i]).toBe(r[j]);
            }
          }
        }),
        { numRuns: 500, seed: SEED },
      );
    }
  });

  it("advantages are finite, 0 for unscorable, GRPO groups centered (1,000 batches)", () => {
    const reward = fc.oneof(
      { weight: 8, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
      { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity, null, 0.35, 1e9) },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 4 }),
        fc.array(reward, { minLength: 32, maxLength: 32 }),
        fc.constantFrom(
          "grpo",
          "rloo",
          "reinforce++",
          "reinforce++-baseline",
          "grpo-stable" as const,
        ),
        (g, groups, pool, method) => {
          const rewards = pool.slice(0, g * groups) as (number | null)[];
          const adv = groupAdvantages({
            rewards,
            groupSize: g,
            estimator: method,
            std: "sample",
            eps: 1e-6,
          });
          expect(adv.length).toBe(rewards.length);
          adv.forEach((a, i) => {
            expect(Number.isFinite(a)).toBe(true);
            if (typeof rewards[i] !== "number" || !Number.isFinite(rewards[i] as number))
              expect(a).toBe(0);
          });
          if (method === "grpo" || method === "rloo") {
            for (let k = 0; k < groups; k++) {
              const s = adv.slice(k * g, (k + 1) * g).reduce((a, b) => a + b, 0);
              const scale = Math.max(1, ...adv.slice(k * g, (k + 1) * g).map(Math.abs));
              expect(Math.abs(s)).toBeLessThan(1e-6 * scale);
            }
          }
          if (method === "grpo-stable")
            for (const a of adv) expect(Math.abs(a)).toBeLessThanOrEqual(3);
        },
      ),
      { numRuns: 1000, seed: SEED },
    );
  });

  it("SCS and ACRE rewards stay in range (500 cases)", () => {
    const ans = fc.oneof(fc.constant(null), value);
    fc.assert(
      fc.property(
        fc.array(ans, { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        ans,
        ans,
        (answers, c, a, b) => {
          const m = answers.length;
          const r = scsConsistency({ answers, c });
          expect(r).toBeGreaterThanOrEqual(-1e-12);
          expect(r).toBeLessThanOrEqual((c * (m - 1)) / m + 1e-12);
          const rel = scsConsistency({
            answers: answers.map((x) => (x === null ? null : `<answer>${x}</answer>`)),
            form: "released",
          });
          expect(rel).toBeGreaterThanOrEqual(0.3 * (5 - m - 1) - 1e-12);
          expect([0, 0.3, 0.9, 1]).toContain(acreConsistency({ first: a, second: b, gold: "7" }));
        },
      ),
      { numRuns: 500, seed: SEED },
    );
  });

  it("Monte-Carlo distinct-answer count matches expectedDistinctAnswers within 2%", () => {
    const rng = mulberry32(77);
    for (const [N, p, M] of [
      [4, 0.25, 4],
      [4, 0.6, 8],
      [5, 0.1, 16],
      [2, 0.5, 3],
      [4, 1, 4],
    ]) {
      const trials = 40000;
      let total = 0;
      for (let t = 0; t < trials; t++) {
        const seen = new Set<number>();
        for (let k = 0; k < M; k++) {
          // correct with probability p, else one of the N − 1 wrong options uniformly
          seen.add(rng() < p ? 0 : 1 + Math.floor(rng() * (N - 1)));
        }
        total += seen.size;
      }
      const expected = expectedDistinctAnswers({ numOptions: N, p, trials: M });
      expect(Math.abs(total / trials - expected) / expected).toBeLessThan(0.02);
    }
  });
});
