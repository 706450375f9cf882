// The reward-hacking detectors (src/ui/lib/detectors.ts) on recorded metric
// rows: those of the recordings shipped until 2026-12-06
// (test/fixtures/recordings-2026-12-03.jsonl). No-signal is checked on them as they are (RLVR's
// groups go silent as it learns the default task; GRR's ranking keeps them
// apart). The other patterns do not occur in the shipped recordings (every
// one of their rollouts is 34 tokens, none has a component that swamps the
// rest), so each is checked on the rlvr-learn recording (RLVR, seeds 31–33,
// 20 steps) with that one pattern written into its rows, and the same rows
// untouched must not fire it.
import { describe, expect, it } from "vitest";
import { computeDetections, DETECTORS, type DetectorInput } from "../../src/ui/lib/detectors";
import type { MetricRow } from "../../src/run/run-types";
import { earlierRecording } from "../support/recordings-2026-12-03";

const inputOf = (name: string): DetectorInput => {
  const rec = earlierRecording(name);
  const by = rec.byVariant;
  return {
    trainRows: Object.fromEntries(Object.entries(by).map(([v, r]) => [v, r.train])),
    evalRows: Object.fromEntries(Object.entries(by).map(([v, r]) => [v, r.eval])),
    evalSize: rec.evalSize,
  };
};
const keys = (input: DetectorInput) => computeDetections(input).map((d) => `${d.key} ${d.variant}`);
/** rows with metric `key` replaced by fn(step, old value). */
const morph = (rows: readonly MetricRow[], key: string, fn: (step: number, v: number) => number) =>
  rows.map((r) => ({ ...r, values: { ...r.values, [key]: fn(r.step, r.values[key]) } }));

const learn = inputOf("rlvr-learn");
const train = learn.trainRows.rlvr;
const evalRows = learn.evalRows.rlvr;
const one = (t: readonly MetricRow[], e: readonly MetricRow[] = evalRows) =>
  computeDetections({ trainRows: { rlvr: t }, evalRows: { rlvr: e }, evalSize: learn.evalSize });

describe("reward-hacking detectors", () => {
  it("the table has one entry per detector, each with its rule and thresholds", () => {
    expect(DETECTORS.map((d) => d.key)).toEqual([
      "no-signal",
      "dominant",
      "length-drift",
      "reward-vs-heldout",
      "saturated",
    ]);
    for (const d of DETECTORS) {
      expect(d.rule.length).toBeGreaterThan(40);
      expect(d.thresholds.length).toBeGreaterThan(0);
    }
  });

  it("rlvr-learn untouched: no detector fires", () => {
    expect(keys(learn)).toEqual([]);
  });

  it("no-signal fires on RLVR's silent groups in the earlier recordings, never on GRR's", () => {
    expect(keys(inputOf("default"))).toEqual(["no-signal rlvr"]);
    expect(keys(inputOf("smoke"))).toEqual(["no-signal rlvr"]);
    expect(keys(inputOf("grr-paper"))).toEqual([]);
    const d = computeDetections(inputOf("default"))[0];
    // 4 seeds × steps 18–20 of the default recording: 67 % of groups all-equal.
    expect(d.text).toContain("67 % of its groups got all-equal rewards over steps 18–20");
    expect(d.chart).toBe("frac_reward_zero_std");
  });

  it("dominant: a component of level 4 beside r_ver swamps it; GRR's centred r_rank does not count", () => {
    const d = one(morph(train, "components/rLen", () => 4));
    expect(d.map((x) => x.key)).toEqual(["dominant"]);
    // r_ver's mean over steps 18–20 of the three seeds is 0.71: 4 / 4.71 = 85 %.
    expect(d[0].text).toContain("carries 85 % of the reward");
    expect(d[0].text).toContain("mean 4.00 of 4.71");
    expect(keys(inputOf("default")).filter((k) => k.startsWith("dominant"))).toEqual([]);
    expect(keys(inputOf("acre-paper")).filter((k) => k.startsWith("dominant"))).toEqual([]);
  });

  it("length drift: 34 tokens growing to 40 over the last three steps fires; 34 throughout does not", () => {
    const d = one(morph(train, "response_length", (s, v) => (s >= 18 ? v + 6 : v)));
    expect(d.map((x) => x.key)).toEqual(["length-drift"]);
    expect(d[0].text).toContain("grew from 34.00 to 40.00 tokens on average (+18 %)");
    // +3 tokens (≈ 9 %) is under the 10 % threshold.
    expect(one(morph(train, "response_length", (s, v) => (s >= 18 ? v + 3 : v)))).toEqual([]);
  });

  it("reward up while held-out Acc falls below its step-0 band fires; either alone does not", () => {
    const up = morph(train, "reward_mean", (s, v) => (s >= 18 ? v + 0.1 : v));
    const down = morph(evalRows, "acc", (s, v) => (s === 20 ? v - 0.2 : v));
    const d = one(up, down);
    expect(d.map((x) => x.key)).toEqual(["reward-vs-heldout"]);
    expect(d[0].text).toContain("held-out Acc fell from 0.81 at step 0 to 0.61 at step 20");
    expect(one(up)).toEqual([]);
    expect(one(train, down)).toEqual([]);
  });

  it("saturated: reward pinned at its top with its spread gone fires; the top alone does not", () => {
    const top = morph(train, "reward_mean", (s, v) => (s >= 18 ? 1 : v));
    const d = one(morph(top, "reward_std", (s, v) => (s >= 18 ? 0 : v)));
    expect(d.map((x) => x.key)).toEqual(["saturated"]);
    expect(d[0].text).toContain("climbed from 0.69 to 1.00");
    expect(one(top)).toEqual([]);
  });

  it("forks and SFT rows are left out", () => {
    const input = inputOf("default");
    const renamed = {
      ...input,
      trainRows: { "rlvr@fork5": input.trainRows.rlvr, sft: input.trainRows.rlvr },
    };
    expect(computeDetections(renamed)).toEqual([]);
  });
});
