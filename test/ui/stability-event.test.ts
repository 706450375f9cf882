/** The `stability` command and event of the trainer protocol, and how the store folds the event (no unknown-type error). */
import { describe, expect, it } from "vitest";
import { asTrainerCommand, asTrainerEvent, type TrainerEvent } from "../../src/workers/protocol";
import { initialRunData, reduceEvent } from "../../src/store/run-data";
import type { StabilityReport } from "../../src/experiments/stability-study";

const report: StabilityReport = {
  prompts: 2,
  groupSize: 4,
  repeats: 2,
  seed: 1,
  policy: "reference",
  step: 0,
  temperature: 1,
  passRate: 0.5,
  settings: [
    {
      label: "lab default",
      judge: { name: "oracle-auditor", sigmaJ: 0.05, sigmaB: 0.1, delta: 0.15 },
      pointwise: 0.004,
      groupwise: 0.002,
      reduction: 0.5,
      rollouts: 8,
      repeats: 2,
    },
  ],
};

describe("stability command and event", () => {
  it("are known message types", () => {
    expect(asTrainerCommand({ type: "stability", policy: "grr", prompts: 4 }).type).toBe(
      "stability",
    );
    expect(asTrainerEvent({ type: "stability", result: report }).type).toBe("stability");
  });

  it("the store keeps the last answer (result or error) and counts answers", () => {
    let d = initialRunData();
    expect(d.stability).toEqual({ result: null, error: null, version: 0 });
    d = reduceEvent(d, { type: "stability", result: report } satisfies TrainerEvent);
    expect(d.stability).toEqual({ result: report, error: null, version: 1 });
    expect(d.errors).toEqual([]);
    d = reduceEvent(d, { type: "stability", result: null, error: "No run is loaded yet" });
    expect(d.stability).toEqual({ result: null, error: "No run is loaded yet", version: 2 });
    expect(d.errors).toEqual([]);
  });
});
