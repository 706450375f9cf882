// The guide's sentences on what each variant pays for
// (src/ui/lib/credit-callouts.ts) on hand-written training rows: the
// figures are the rollout-weighted means, the verdict follows the 0.1 margin
// fixed beforehand, and a class no variant had with faithful right answers
// gives no sentence. Then on the recorded rows of a real scs-paper run
// (test/fixtures/credit-scs-paper.jsonl, 3 steps).
import { describe, expect, it } from "vitest";
import type { MetricRow } from "../../src/run/run-types";
import { recordedCreditRows } from "../support/credit-rows";
import { computeCreditCallouts, payVerdict } from "../../src/ui/lib/credit-callouts";

function row(variant: string, step: number, cls: Record<string, [number, number]>): MetricRow {
  const values: Record<string, number> = {};
  for (const [c, [share, adv]] of Object.entries(cls)) {
    values[`credit/${c}/share`] = share;
    values[`credit/${c}/advantage`] = adv;
    values[`credit/${c}/reward`] = share > 0 ? 1 : Number.NaN;
  }
  return { variant, step, time: step, kind: "train", values };
}

describe("credit callouts", () => {
  it("says RLVR pays a right answer from flawed steps about as much as a faithful answer and SCS less, with the run's figures", () => {
    const rows = {
      rlvr: [
        row("rlvr", 1, { "faithful-right": [0.5, 0.43], "flawed-right": [0.25, 0.41] }),
        row("rlvr", 2, { "faithful-right": [0.5, 0.43], "flawed-right": [0.25, 0.41] }),
      ],
      scs: [
        // Right answers from flawed steps: (0.25·(−0.2) + 0.25·(−0.04)) / 0.5 = −0.12; faithful: 0.38 both steps.
        row("scs", 1, { "faithful-right": [0.5, 0.38], "flawed-right": [0.25, -0.2] }),
        row("scs", 2, { "faithful-right": [0.5, 0.38], "flawed-right": [0.25, -0.04] }),
      ],
    };
    const cs = computeCreditCallouts(rows);
    expect(cs.map((c) => c.cls)).toEqual(["flawed-right"]);
    expect(cs[0].text).toBe(
      "RLVR pays a right answer from flawed steps about as much as a faithful right answer (mean advantage +0.41 vs +0.43); SCS pays it less (−0.12 vs +0.38), over steps 1–2.",
    );
    expect(cs[0].figures.map((f) => f.verdict)).toEqual(["about as much as", "less"]);
  });

  it("names only the variants where both classes occurred, and none when no variant had both", () => {
    const rows = {
      rlvr: [row("rlvr", 1, { "faithful-right": [0.5, 0.2], unsupported: [0.25, 0.5] })],
      grr: [row("grr", 1, { "faithful-right": [0.5, 0.3], unsupported: [0, Number.NaN] })],
    };
    const cs = computeCreditCallouts(rows);
    expect(cs.map((c) => c.text)).toEqual([
      "RLVR pays an answer its own steps do not support more than a faithful right answer (mean advantage +0.50 vs +0.20), at step 1.",
    ]);
    expect(computeCreditCallouts({ grr: rows.grr })).toEqual([]);
  });

  it("reads differences within 0.1 as about as much", () => {
    expect(payVerdict(0.3, 0.39)).toBe("about as much as");
    expect(payVerdict(0.28, 0.39)).toBe("less");
    expect(payVerdict(0.5, 0.39)).toBe("more");
  });
});

describe("credit callouts on recorded rows", () => {
  const rows = recordedCreditRows();

  it("gives the flawed-right and unsupported sentences with the pooled figures, and none for index-bound (never seen)", () => {
    // Hand computation from the file (share × advantage summed over steps 1–3, over the summed share):
    // RLVR flawed-right (0.0625·0.42857 + 0.15625·0.14286 + 0.15625·0.2) / 0.375 = 0.2143;
    // RLVR faithful right (0.40625·0.45055 + 0.25·0.51786 + 0.59375·0.14286) / 1.25 = 0.3179;
    // SCS flawed-right 0.3049, faithful right 0.4539; unsupported RLVR −0.3474, SCS −0.4714.
    const cs = computeCreditCallouts(rows);
    expect(cs.map((c) => c.text)).toEqual([
      "RLVR pays a right answer from flawed steps less than a faithful right answer (mean advantage +0.21 vs +0.32); SCS pays it less (+0.30 vs +0.45), over steps 1–3.",
      "RLVR pays an answer its own steps do not support less than a faithful right answer (mean advantage −0.35 vs +0.32); SCS pays it less (−0.47 vs +0.45), over steps 1–3.",
    ]);
    expect(cs[0].figures[0].cls).toBeCloseTo(0.2142857, 5);
    expect(cs[0].figures[0].reference).toBeCloseTo(0.3178572, 5);
  });
});
