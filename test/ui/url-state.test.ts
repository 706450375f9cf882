import { describe, expect, it } from "vitest";
import { DEFAULT_EXPERIMENT, parseExperiment } from "../../src/rl/experiment";
import { decodeExperiment, encodeExperiment, nonDefaultSettings } from "../../src/ui/lib/url-state";

describe("URL state", () => {
  it("holds only the schema version and the seed for the defaults", () => {
    expect(encodeExperiment(DEFAULT_EXPERIMENT)).toBe("v=1&seed=1");
    expect(nonDefaultSettings(DEFAULT_EXPERIMENT)).toEqual([]);
  });

  it("round-trips non-default settings, variants and per-variant weights", () => {
    const exp = parseExperiment({
      seed: 42,
      modelSize: "small",
      task: { family: "shapes", multipleChoice: false, optionSkew: 0.5 },
      algorithm: { estimator: "rloo", lr: 0.001, groupSize: 16 },
      variants: [
        { name: "rlvr" },
        { name: "grr", weights: { lambda: 0.5, mapping: "edn" }, judge: { delta: 0.1 } },
        { name: "structreward", estimator: "grpo-stable", beta: 0.001 },
      ],
    });
    const hash = encodeExperiment(exp);
    expect(hash).toContain("task.family=shapes");
    expect(hash).toContain("variants=rlvr,grr,structreward");
    expect(hash).toContain("grr.weights.lambda=0.5");
    expect(hash).not.toContain("task.numDigits");
    const back = decodeExperiment(`#${hash}`);
    expect(back.error).toBeNull();
    expect(back.experiment).toEqual(exp);
  });

  it("gives the defaults without error for an empty hash", () => {
    expect(decodeExperiment("")).toEqual({ experiment: DEFAULT_EXPERIMENT, error: null });
  });

  it.each([
    ["v=2&seed=1", /schema version 2/],
    ["seed=1", /no schema version/],
    ["v=1&seed=1&task.family=planets", /task\.family/],
    ["v=1&seed=abc", /'seed' should be a number/],
    ["v=1&bogus=3", /unknown setting 'bogus'/],
    ["v=1&structreward.weights.fmt=0.2", /not in variants/],
    ["v=1&algorithm.groupSize=0", /algorithm\.groupSize/],
  ])("rejects %s with a clear message and falls back to the defaults", (hash, msg) => {
    const r = decodeExperiment(hash);
    expect(r.experiment).toEqual(DEFAULT_EXPERIMENT);
    expect(r.error).toMatch(msg);
    expect(r.error).toMatch(/Showing the defaults/);
  });
});
