// Where the page opens a recording (src/ui/lib/recording-open.ts): the first
// eval at which two variants' bands part, else the first callout, else the
// last step. Worked on hand-made eval rows of three seeds (Student-t bands:
// three values a hundredth apart give a band about ±0.025 wide, so 0.20 and
// 0.50 part, 0.20 and 0.21 do not), then on every shipped recording: the
// step is one the recording has, and the page's loader sets it.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { recordingOpenStep } from "../../src/ui/lib/recording-open";
import { computeCallouts } from "../../src/ui/lib/callouts";
import { appendMetrics, emptyMetrics } from "../../src/store/run-data";
import { checkRecording } from "../../src/store/saved-run-check";
import { overviewMetrics } from "../../src/store/lesson";
import type { MetricRow } from "../../src/run/run-types";
import type { Recording } from "../../src/store/recording";

/** Eval rows of `variant`: at each step, IncR of seeds 1–3 at `base`, base + 0.01, base + 0.02. */
function evalRows(variant: string, byStep: Record<number, number>): MetricRow[] {
  return Object.entries(byStep).flatMap(([step, base]) =>
    [0, 1, 2].map((i) => ({
      variant,
      step: Number(step),
      time: Number(step),
      kind: "eval" as const,
      seed: i + 1,
      values: { incR: base + i * 0.01 },
    })),
  );
}
const trainRow = (variant: string, step: number): MetricRow => ({
  variant,
  step,
  time: step,
  kind: "train",
  seed: 1,
  values: { kl: 0 },
});
const rec = (rows: MetricRow[]): Pick<Recording, "run"> =>
  ({
    run: { metrics: appendMetrics(emptyMetrics(), rows), experiment: { evalSize: 128 } },
  }) as unknown as Pick<Recording, "run">;

describe("the step a recording opens at", () => {
  it("the first parting, even after an earlier callout", () => {
    // a's IncR leaves b's at step 5 and stays apart: parted (and moved) at 5.
    const parts = rec([
      ...evalRows("a", { 0: 0.2, 5: 0.5, 10: 0.5 }),
      ...evalRows("b", { 0: 0.2, 5: 0.2, 10: 0.2 }),
      trainRow("a", 12),
    ]);
    expect(recordingOpenStep(parts, ["incR"])).toEqual({ step: 5, reason: "parted" });
    // b moves first (step 5, both together: no parting), then a stays and b goes on: parted at 10.
    const later = rec([
      ...evalRows("a", { 0: 0.2, 5: 0.35, 10: 0.35 }),
      ...evalRows("b", { 0: 0.2, 5: 0.35, 10: 0.6 }),
    ]);
    const cs = computeCallouts({
      evalRows: { a: later.run.metrics.byVariant.a.eval, b: later.run.metrics.byVariant.b.eval },
      markers: [],
      evalSize: 128,
      metrics: ["incR"],
    });
    expect(Math.min(...cs.map((c) => c.step))).toBe(5);
    expect(recordingOpenStep(later, ["incR"])).toEqual({ step: 10, reason: "parted" });
  });

  it("one variant: where its band leaves its step-0 band", () => {
    const one = rec([...evalRows("a", { 0: 0.2, 5: 0.21, 10: 0.5, 15: 0.6 }), trainRow("a", 15)]);
    expect(recordingOpenStep(one, ["incR"])).toEqual({ step: 10, reason: "callout" });
  });

  it("nothing leaves its band: the last step (a train row after the last eval counts)", () => {
    const flat = rec([
      ...evalRows("a", { 0: 0.2, 5: 0.21, 10: 0.2 }),
      ...evalRows("b", { 0: 0.2, 5: 0.2, 10: 0.21 }),
      trainRow("b", 12),
    ]);
    expect(recordingOpenStep(flat, ["incR"])).toEqual({ step: 12, reason: "last" });
    // Only the overview's metrics count: a parting in another metric does not.
    expect(recordingOpenStep(flat, ["acc"])).toEqual({ step: 12, reason: "last" });
  });

  const DIR = resolve(import.meta.dirname, "../../public/recordings");
  for (const f of readdirSync(DIR).filter((x) => x.endsWith(".json")))
    it(`${f}: opens at one of its eval steps after 0, or at its last step`, () => {
      const r = checkRecording(JSON.parse(readFileSync(resolve(DIR, f), "utf8")), f);
      const { step, reason } = recordingOpenStep(r, overviewMetrics(r.preset, r.run.experiment));
      const evalSteps = new Set(
        Object.values(r.run.metrics.byVariant).flatMap((x) => x.eval.map((e) => e.step)),
      );
      if (reason === "last") expect(step).toBe(r.run.lastStep);
      else {
        expect(evalSteps.has(step)).toBe(true);
        expect(step).toBeGreaterThan(0);
      }
    });
});
