// `npm run premise` at a fixed tiny size (one tuning seed, one RL step, 8
// held-out prompts): the baseline arm alone from the shipped cold start, its
// evals at steps 0 and 1, and the check's figures recomputed from them
// (docs/reward-spec.md §4.3); a preset with two arms and a missing seed list
// are refused before any work.
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli";
import { wilson95 } from "../../src/experiments/premise";

interface PremiseJson {
  preset: string;
  variant: string;
  seeds: number[];
  steps: number;
  evalSize: number;
  date: string;
  evals: Record<string, { step: number; acc: number; luckyGuess: number; faintReadAcc: number }[]>;
  check: {
    holds: boolean;
    seeds: {
      seed: number;
      step0: { rate: number; n: number; band: [number, number] };
      last: { step: number; rate: number };
      holds: boolean;
    }[];
  };
}

describe("npm run premise (tiny size)", () => {
  it("runs the baseline arm alone and checks its lucky-guess rate against the step-0 band", () => {
    const r = runCli(
      "premise",
      ["--seeds", "41", "--steps", "1", "--eval-every", "1", "--eval-size", "8", "--quiet"],
      { timeout: 900_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const j = r.lastJson as unknown as PremiseJson;
    expect(j.preset).toBe("scs-premise");
    expect(j.variant).toBe("scs-baseline");
    expect(j.seeds).toEqual([41]);
    expect(Number.isNaN(Date.parse(j.date))).toBe(false);
    const evals = j.evals["41"];
    expect(evals.map((e) => e.step)).toEqual([0, 1]);
    // Every held-out prompt has a faint digit: its reading accuracy is measured.
    for (const e of evals) expect(e.faintReadAcc).toBeGreaterThanOrEqual(0);
    const s = j.check.seeds[0];
    // The band is the Wilson interval of the step-0 lucky guesses over the step-0 right answers.
    expect(s.step0.n).toBe(Math.round(evals[0].acc * 8));
    expect(s.step0.rate).toBe(evals[0].luckyGuess);
    expect(s.step0.band).toEqual(wilson95(Math.round(s.step0.rate * s.step0.n), s.step0.n));
    expect(s.last).toEqual({ step: 1, rate: evals[1].luckyGuess });
    expect(s.holds).toBe(s.last.rate >= s.step0.band[0]);
    expect(j.check.holds).toBe(s.holds);
  }, 900_000);

  it("refuses a preset with more than the baseline arm, and a run without seeds", () => {
    const two = runCli("premise", ["--preset", "scs-faint", "--seeds", "41"]);
    expect(two.code).toBe(1);
    expect(String(two.lastJson.error)).toMatch(/'scs-faint' has 2 variants/);
    const none = runCli("premise", []);
    expect(none.code).toBe(1);
    expect(String(none.lastJson.error)).toMatch(/--seeds is required/);
  }, 300_000);
});
