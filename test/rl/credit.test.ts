// The credit aggregation (docs/reward-spec.md §6) on two groups of four
// rollouts against a hand computation: classes, mean reward, and the mean
// advantage after GRPO, RLOO and REINFORCE++ (the CPU reference of the
// advantage kernel), and the within-group contrasts.
import { describe, expect, it } from "vitest";
import { creditValues, shuffleChanged, type CreditRollout } from "../../src/rl/credit";
import { rolloutFacts } from "../../src/rl/rollout-class";
import { groupAdvantages } from "../../src/kernels/advantages/reference";
import { CHOICE, CHOICE_TRACES, OPEN, OPEN_TRACES } from "./class-traces";

// Group 1 (open-ended): faithful right, flawed right, unsupported (right box), faithful wrong.
// Group 2 (multiple choice): faithful right, index-bound, unsupported (right box by guess), no answer.
const texts = [
  [
    OPEN_TRACES["faithful-right"],
    OPEN_TRACES["flawed-right"],
    OPEN_TRACES.unsupported,
    OPEN_TRACES["faithful-wrong"],
  ],
  [
    CHOICE_TRACES["faithful-right"],
    CHOICE_TRACES["index-bound"],
    CHOICE_TRACES.unsupported,
    CHOICE_TRACES["no-answer"],
  ],
];
const prompts = [OPEN, CHOICE];
const rewards = [1.5, 1.2, 1.0, 0, 2, 1, 1, 0];

function groupsWith(advantages: readonly number[]): CreditRollout[][] {
  return texts.map((g, gi) =>
    g.map((t, k) => ({
      facts: rolloutFacts(prompts[gi], t),
      reward: rewards[gi * 4 + k],
      advantage: advantages[gi * 4 + k],
      changed: null,
    })),
  );
}

describe("creditValues", () => {
  it("shares and mean rewards per class", () => {
    const v = creditValues(groupsWith(new Array(8).fill(0)));
    expect(v["credit/faithful-right/share"]).toBe(2 / 8);
    expect(v["credit/flawed-right/share"]).toBe(1 / 8);
    expect(v["credit/unsupported/share"]).toBe(2 / 8);
    expect(v["credit/faithful-wrong/share"]).toBe(1 / 8);
    expect(v["credit/index-bound/share"]).toBe(1 / 8);
    expect(v["credit/no-answer/share"]).toBe(1 / 8);
    expect(v["credit/faithful-right/reward"]).toBeCloseTo((1.5 + 2) / 2, 12);
    expect(v["credit/unsupported/reward"]).toBeCloseTo((1.0 + 1) / 2, 12);
    expect(v["credit/flawed-right/reward"]).toBeCloseTo(1.2, 12);
    // ACRE's shuffle contrast needs its second ask: without it, nothing measured, key absent.
    expect("credit/contrast/shuffle/advantage" in v).toBe(false);
    expect(v["credit/contrast/shuffle/groups"]).toBe(0);
  });

  it("leaves out a class with no rollouts (no NaN in the rows)", () => {
    const v = creditValues([groupsWith(new Array(8).fill(0))[0]]);
    expect(v["credit/index-bound/share"]).toBe(0);
    expect("credit/index-bound/reward" in v).toBe(false);
    expect("credit/index-bound/advantage" in v).toBe(false);
  });

  // Group means μ1 = 3.7/4 = 0.925, μ2 = 1; sample sds σ1 = √(1.2675/3) = 0.65, σ2 = √(2/3).
  // Batch (REINFORCE++): mean 0.9625, sample sd √(3.27875/7) = 0.6843919.
  const cases = [
    {
      estimator: "grpo" as const,
      // (r − μ)/(σ + 1e-6): 0.575/0.65, 0.275/0.65, 0.075/0.65, −0.925/0.65; ±1/0.8164966, 0, 0.
      adv: [0.884614, 0.423076, 0.115384, -1.423075, 1.224743, 0, 0, -1.224743],
      fr: (0.884614 + 1.224743) / 2,
      fl: 0.423076,
      un: (0.115384 + 0) / 2,
    },
    {
      estimator: "rloo" as const,
      // 4/3·(r − μ).
      adv: [0.766667, 0.366667, 0.1, -1.233333, 1.333333, 0, 0, -1.333333],
      fr: (0.766667 + 1.333333) / 2,
      fl: 0.366667,
      un: (0.1 + 0) / 2,
    },
    {
      estimator: "reinforce++" as const,
      // (r − 0.9625)/(0.6843919 + 1e-6) over the batch.
      adv: [0.785367, 0.347023, 0.054793, -1.406355, 1.515941, 0.054793, 0.054793, -1.406355],
      fr: (0.785367 + 1.515941) / 2,
      fl: 0.347023,
      un: (0.054793 + 0.054793) / 2,
    },
  ];
  for (const c of cases)
    it(`mean advantage per class and the contrasts after ${c.estimator}`, () => {
      const adv = groupAdvantages({ rewards, groupSize: 4, estimator: c.estimator });
      adv.forEach((a, i) => {
        expect(a, `rollout ${i}`).toBeCloseTo(c.adv[i], 5);
      });
      const v = creditValues(groupsWith(adv));
      expect(v["credit/faithful-right/advantage"]).toBeCloseTo(c.fr, 5);
      expect(v["credit/flawed-right/advantage"]).toBeCloseTo(c.fl, 5);
      expect(v["credit/unsupported/advantage"]).toBeCloseTo(c.un, 5);
      expect(v["credit/faithful-wrong/advantage"]).toBeCloseTo(c.adv[3], 5);
      expect(v["credit/index-bound/advantage"]).toBeCloseTo(c.adv[5], 5);
      expect(v["credit/no-answer/advantage"]).toBeCloseTo(c.adv[7], 5);
      const a = c.adv;
      // Right answers only. Wrong steps: group 1 high {FR}, low {LG, UN}; group 2 high {FR, IB}, low {UN}.
      expect(v["credit/contrast/wrong-steps/advantage"]).toBeCloseTo(
        (a[0] - (a[1] + a[2]) / 2 + ((a[4] + a[5]) / 2 - a[6])) / 2,
        5,
      );
      expect(v["credit/contrast/wrong-steps/groups"]).toBe(2);
      expect(v["credit/contrast/wrong-steps/low"]).toBeCloseTo((a[1] + a[2] + a[6]) / 3, 5);
      // Unsupported: group 1 high {FR, LG}, low {UN}; group 2 high {FR, IB}, low {UN}.
      expect(v["credit/contrast/unsupported/advantage"]).toBeCloseTo(
        ((a[0] + a[1]) / 2 - a[2] + ((a[4] + a[5]) / 2 - a[6])) / 2,
        5,
      );
      // Index-bound: only group 2 has both sides, high {FR, UN}, low {IB}.
      expect(v["credit/contrast/index-bound/advantage"]).toBeCloseTo((a[4] + a[6]) / 2 - a[5], 5);
      expect(v["credit/contrast/index-bound/groups"]).toBe(1);
      // Guess: group 1 high {FR}, low {UN}; group 2 high {FR}, low {UN} (the index-bound answer is on neither side).
      expect(v["credit/contrast/guess/advantage"]).toBeCloseTo(
        (a[0] - a[2] + (a[4] - a[6])) / 2,
        5,
      );
      expect(v["credit/contrast/guess/groups"]).toBe(2);
      expect(v["credit/contrast/guess/low"]).toBeCloseTo((a[2] + a[6]) / 2, 5);
      // Rewards: guess ((1.5 − 1.0) + (2 − 1))/2 = 0.75.
      expect(v["credit/contrast/guess/reward"]).toBeCloseTo(0.75, 12);
      // Rewards: wrong steps ((1.5 − (1.2 + 1.0)/2) + ((2 + 1)/2 − 1))/2 = (0.4 + 0.5)/2 = 0.45.
      expect(v["credit/contrast/wrong-steps/reward"]).toBeCloseTo(0.45, 12);
    });
});

describe("shuffleChanged", () => {
  it("compares the first and the re-asked answer by option content", () => {
    const shuffled = { A: "15", B: "9", C: "16", D: "17" };
    const first = [CHOICE_TRACES["faithful-right"], CHOICE_TRACES["index-bound"], "no answer"];
    const changed = shuffleChanged(CHOICE, first, {
      // The redone check finds 9 at B (same content); the bound trace copies A again (now 15).
      texts: [
        `<think> x </think> 15 Incorrect 9 Correct 16 Incorrect 17 Incorrect \\boxed{B}`,
        `<think> x is A </think> \\boxed{A}`,
        null,
      ],
      options: [shuffled, shuffled, shuffled],
    });
    expect(changed).toEqual([false, true, null]);
  });
});
