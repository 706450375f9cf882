// The mechanism claims scs-pays-faithful and scs-pays-guesses (src/experiments/claims-credit.ts) on a
// fixed tiny run made on the CPU: groups of hand-written multiple-choice
// rollouts scored by the lab's SCS and RLVR scorers, RLOO advantages from the
// advantage kernel's reference, the credit values of each step as the RL step
// writes them, judged by the claims' rule. With SCS's r_con forced constant
// (a sabotaged reward) the claim must fail. And the pooled gap against a hand
// computation.
import { describe, expect, it } from "vitest";
import { judgeClaim } from "../../src/experiments/claims-judge";
import { selectClaims } from "../../src/experiments/claims";
import { pooledGap } from "../../src/experiments/claims-credit";
import { groupAdvantages } from "../../src/kernels/advantages/reference";
import { scoreRLVR } from "../../src/rewards/grr";
import { scoreSCS } from "../../src/rewards/scs";
import { creditValues } from "../../src/rl/credit";
import { rolloutFacts } from "../../src/rl/rollout-class";
import type { MetricRow } from "../../src/run/run-types";
import type { GroupScore } from "../../src/rewards/index";
import { CHOICE, CHOICE_TRACES } from "../rl/class-traces";

const FAITHFUL = CHOICE_TRACES["faithful-right"];
const LUCKY = CHOICE_TRACES.unsupported; // misreads, guesses A: right answer, wrong steps
const WRONG = CHOICE_TRACES["faithful-wrong"];
const cont = (letters: string) => [...letters].map((l) => `<think> x </think> \\boxed{${l}}`);

/**
 * One step's two groups under seed `seed`: a faithful answer's continuations
 * agree, a lucky guess's scatter (SCS's premise), the wrong ones in between.
 */
function step(seed: number, s: number) {
  const spread = (seed + s) % 2 === 0 ? "ACBD" : "ABCA";
  return [
    {
      texts: [FAITHFUL, LUCKY, WRONG, FAITHFUL],
      conts: [cont("AAAA"), cont(spread), cont("BBCB"), cont("AAAB")],
    },
    {
      texts: [LUCKY, FAITHFUL, WRONG, LUCKY],
      conts: [cont("ABAC"), cont("AAAA"), cont("BCDB"), cont(spread)],
    },
  ];
}

function rows(sabotage: boolean): MetricRow[] {
  const out: MetricRow[] = [];
  for (const seed of [1, 2, 3])
    for (let s = 1; s <= 5; s++) {
      const groups = step(seed, s);
      const arms: Record<string, GroupScore[]> = {
        rlvr: groups.map((g) => scoreRLVR(CHOICE, g.texts)),
        scs: groups.map((g) => {
          const sc = scoreSCS(CHOICE, g.texts, g.conts);
          if (!sabotage) return sc;
          // r_con forced to a constant: every rollout paid as if its continuations agreed half.
          return {
            ...sc,
            rollouts: sc.rollouts.map((r) => ({
              ...r,
              total: r.total - r.components.rCon + 0.5,
              components: { ...r.components, rCon: 0.5 },
            })),
          };
        }),
      };
      for (const [arm, scored] of Object.entries(arms)) {
        const rewards = scored.flatMap((g) => g.rollouts.map((r) => r.total));
        const adv = groupAdvantages({ rewards, groupSize: 4, estimator: "rloo" });
        const values = creditValues(
          groups.map((g, gi) =>
            g.texts.map((t, k) => ({
              facts: rolloutFacts(CHOICE, t),
              reward: rewards[gi * 4 + k],
              advantage: adv[gi * 4 + k],
              changed: null,
            })),
          ),
        );
        out.push({ variant: arm, step: s, time: 0, kind: "train", values, seed });
      }
    }
  return out;
}

const [claim] = selectClaims(["scs-pays-faithful"]);
const judge = (r: MetricRow[]) =>
  judgeClaim(claim, { rows: r, stability: new Map() }, [1, 2, 3], "test");

describe("scs-pays-faithful on a fixed tiny run", () => {
  it("decides: SCS pays the lucky guesses less, RLOO pays them alike", () => {
    const r = rows(false);
    // RLOO pays every right answer 1: the within-group gap is exactly 0.
    expect(pooledGap(r, "rlvr", 1, "wrong-steps", "advantage")).toBe(0);
    expect(pooledGap(r, "scs", 1, "wrong-steps", "advantage")).toBeGreaterThan(0);
    const res = judge(r);
    expect(res.verdict).toBe("reproduced");
  });

  it("fails with SCS's r_con forced constant", () => {
    const res = judge(rows(true));
    expect(res.verdict).toBe("not reproduced");
  });

  it("scs-pays-guesses on the same run: its low side is the guess (right, not what the steps conclude)", () => {
    const [guesses] = selectClaims(["scs-pays-guesses"]);
    const judgeGuesses = (r: MetricRow[]) =>
      judgeClaim(guesses, { rows: r, stability: new Map() }, [1, 2, 3], "test");
    const r = rows(false);
    expect(pooledGap(r, "rlvr", 1, "guess", "advantage")).toBe(0);
    expect(pooledGap(r, "scs", 1, "guess", "advantage")).toBeGreaterThan(0);
    // Every guess of this run is a right answer the steps do not conclude: RLOO's mean advantage of them is above SCS's.
    expect(pooledGap(r, "rlvr", 1, "guess", "low")).toBeGreaterThan(
      pooledGap(r, "scs", 1, "guess", "low"),
    );
    expect(judgeGuesses(r).verdict).toBe("reproduced");
    expect(judgeGuesses(rows(true)).verdict).toBe("not reproduced");
  });

  it("pools the gap over steps 1–5 by groups (hand computation)", () => {
    const row = (step: number, gap: number, groups: number): MetricRow => ({
      variant: "a",
      step,
      time: 0,
      kind: "train",
      seed: 9,
      values: {
        "credit/contrast/unsupported/advantage": gap,
        "credit/contrast/unsupported/groups": groups,
      },
    });
    // (0.5·2 + 0.2·1 + 0·0) / 3 = 0.4; step 6 is past the window.
    const r = [row(1, 0.5, 2), row(2, 0.2, 1), row(3, 9, 0), row(6, 9, 4)];
    expect(pooledGap(r, "a", 9, "unsupported", "advantage")).toBeCloseTo(0.4, 12);
    expect(() => pooledGap(r, "a", 8, "unsupported", "advantage")).toThrow(/seed 8/);
  });
});
