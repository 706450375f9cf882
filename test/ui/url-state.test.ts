import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_EXPERIMENT, parseExperiment } from "../../src/settings/experiment";
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
    [`v=1&${"a=1&".repeat(3000)}`, /at most 8192 are read/],
  ])("refuses %s as a whole with a clear message and falls back to the defaults", (hash, msg) => {
    const r = decodeExperiment(hash);
    expect(r.experiment).toEqual(DEFAULT_EXPERIMENT);
    expect(r.error).toMatch(msg);
    expect(r.error).toMatch(/Showing the defaults/);
  });

  it.each([
    ["v=1&seed=1&task.family=planets", "task.family", /task\.family/],
    ["v=1&seed=abc", "seed", /should be a number, got 'abc'/],
    ["v=1&bogus=3", "bogus", /unknown setting/],
    ["v=1&structreward.weights.fmt=0.2", "structreward.weights.fmt", /not in variants=rlvr,grr/],
    ["v=1&algorithm.groupSize=0", "algorithm.groupSize", /algorithm\.groupSize/],
  ])("ignores the bad setting of %s, naming it, and applies the rest", (hash, key, msg) => {
    const r = decodeExperiment(`${hash}&algorithm.lr=0.001`);
    expect(r.experiment).toEqual({
      ...DEFAULT_EXPERIMENT,
      algorithm: { ...DEFAULT_EXPERIMENT.algorithm, lr: 0.001 },
    });
    expect(r.ignored).toHaveLength(1);
    expect(r.ignored![0].key).toBe(key);
    expect(r.ignored![0].reason).toMatch(msg);
    expect(r.error).toMatch(/Some settings in this link were ignored: /);
    expect(r.error).toContain(`'${key}'`);
    expect(r.error).toMatch(/The rest of the link was applied/);
  });
});

describe("hostile links", () => {
  const globals = () => ({
    proto: Object.getOwnPropertyNames(Object.prototype).sort(),
    object: Object.getOwnPropertyNames(Object).sort(),
    fn: Object.getOwnPropertyNames(Function.prototype).sort(),
    toString: Object.getOwnPropertyNames(Object.prototype.toString).sort(),
  });
  const snapshot = globals();
  const untouched = () => {
    expect(globals()).toEqual(snapshot);
    const probe = {} as Record<string, unknown>;
    for (const k of ["weights", "estimator", "beta", "x", "polluted", "lambda"])
      expect(probe[k], k).toBeUndefined();
  };

  it.each([
    ["v=1&seed=3&__proto__.weights.lambda=5", "__proto__.weights.lambda", "__proto__"],
    ["v=1&variants=rlvr,structreward&__proto__.estimator=rloo", "__proto__.estimator", "__proto__"],
    ["v=1&constructor.prototype.polluted=1", "constructor.prototype.polluted", "constructor"],
    ["v=1&task.__proto__.polluted=1", "task.__proto__.polluted", "__proto__"],
    ["v=1&grr.weights.__proto__.lambda=5", "grr.weights.__proto__.lambda", "__proto__"],
    ["v=1&rlvr.constructor.prototype.x=1", "rlvr.constructor.prototype.x", "constructor"],
    ["v=1&prototype.x=1", "prototype.x", "prototype"],
    ["v=1&%5F%5Fproto%5F%5F.beta=0.9", "__proto__.beta", "__proto__"],
  ])("%s: refused, Object.prototype untouched, the rest applied", (hash, key, bad) => {
    const r = decodeExperiment(`#${hash}&seed=11`);
    untouched();
    expect(r.experiment.seed).toBe(hash.includes("seed=3") ? 3 : 11);
    expect(r.ignored).toContainEqual({
      key,
      reason: `the key '${bad}' is refused: it could reach Object.prototype or a constructor and so change every object of the page`,
    });
    // No variant picked up a setting from a prototype.
    for (const v of r.experiment.variants) {
      expect(v.estimator === undefined || v.name === "structreward").toBe(true);
      expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    }
    expect(
      r.experiment.variants.find((v) => v.name === "structreward")?.estimator ?? "grpo-stable",
    ).toBe("grpo-stable");
  });

  it.each([
    ["v=1&toString.x=1", "toString.x", /unknown setting/],
    ["v=1&hasOwnProperty=1", "hasOwnProperty", /unknown setting/],
    ["v=1&variants=rlvr,constructor", "variants", /unknown variant 'constructor'/],
    ["v=1&valueOf.call=1", "valueOf.call", /unknown setting/],
    ["v=1&rlvr.toString=1", "rlvr.toString", /unknown setting/],
  ])("%s: names of built-ins are unknown settings", (hash, key, msg) => {
    const r = decodeExperiment(hash);
    untouched();
    expect(r.ignored?.find((i) => i.key === key)?.reason).toMatch(msg);
    expect(r.experiment.variants.length).toBeGreaterThan(0);
  });

  it.each([
    [
      "evalSize=1000000000",
      "evalSize",
      /at most 512 \(MAX_EVAL_SIZE: the held-out set's size\), got 1000000000/,
    ],
    ["evalSize=20000", "evalSize", /MAX_EVAL_SIZE/],
    ["algorithm.groupSize=1000", "algorithm.groupSize", /at most 64 \(MAX_GROUP_SIZE/],
    ["algorithm.batchPrompts=1e9", "algorithm.batchPrompts", /at most 64 \(MAX_BATCH_PROMPTS/],
    ["algorithm.topK=100000", "algorithm.topK", /MAX_TOP_K/],
    ["sftBatch=1e9", "sftBatch", /MAX_SFT_BATCH/],
    ["sftSteps=1e12", "sftSteps", /MAX_STEPS/],
    ["algorithm.evalEvery=1e12", "algorithm.evalEvery", /MAX_STEPS/],
    ["algorithm.gradClip=1e300", "algorithm.gradClip", /MAX_GRAD_CLIP/],
    ["algorithm.lr=1e400", "algorithm.lr", /should be a number, got '1e400'/],
    ["seeds=1,2,3,4,5,6,7,8,9", "seeds", /seeds/],
  ])("%s: a size out of bounds is ignored with the bound's name", (setting, key, msg) => {
    const r = decodeExperiment(`v=1&${setting}&seed=4`);
    untouched();
    expect(r.experiment.seed).toBe(4);
    expect(r.experiment.evalSize).toBe(DEFAULT_EXPERIMENT.evalSize);
    expect(r.ignored).toHaveLength(1);
    expect(r.ignored![0].key).toBe(key);
    expect(r.ignored![0].reason).toMatch(msg);
  });

  it("keeps one of two settings whose product is out of bounds", () => {
    const r = decodeExperiment("v=1&algorithm.groupSize=64&algorithm.batchPrompts=64");
    expect(r.experiment.algorithm.batchPrompts).toBe(64);
    expect(r.experiment.algorithm.groupSize).toBe(DEFAULT_EXPERIMENT.algorithm.groupSize);
    expect(r.ignored![0]).toMatchObject({ key: "algorithm.groupSize" });
    expect(r.ignored![0].reason).toMatch(
      /64 × 64 = 4096 rollouts per step, at most 512 \(MAX_ROLLOUTS_PER_STEP/,
    );
  });

  it("junk never throws, never pollutes, and always gives a valid experiment", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom(
                "__proto__",
                "constructor",
                "prototype",
                "seed",
                "variants",
                "evalSize",
              ),
              fc.string({ maxLength: 12 }),
              fc.constantFrom("algorithm.lr", "grr.weights.lambda", "task.family", "rlvr.beta"),
            ),
            fc.oneof(
              fc.string({ maxLength: 12 }),
              fc.double().map(String),
              fc.constantFrom("1e9", "-1", "NaN"),
            ),
          ),
          { maxLength: 12 },
        ),
        fc.boolean(),
        (pairs, withVersion) => {
          const hash = [
            withVersion ? "v=1" : "",
            ...pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
          ].join("&");
          const r = decodeExperiment(hash);
          expect(() => parseExperiment(r.experiment)).not.toThrow();
          if (r.error === null) expect(r.ignored).toBeUndefined();
          untouched();
        },
      ),
      { numRuns: 500, seed: 20261214 },
    );
  });
});

describe("URL state: up to six variants", () => {
  it("keeps all six variants of the table on a multiple-choice task", () => {
    const all = "rlvr,pointwise-gr,grr,structreward,scs,acre";
    const r = decodeExperiment(`#v=1&task.multipleChoice=true&variants=${all}`);
    expect(r.experiment.variants.map((v) => v.name)).toEqual(all.split(","));
    expect(r.experiment.variants.find((v) => v.name === "scs")?.estimator).toBe("rloo");
    expect(r.experiment.variants.find((v) => v.name === "acre")?.estimator).toBe("grpo");
  });

  it("refuses ACRE on an open-ended task with a reason that names it", () => {
    const r = decodeExperiment("#v=1&task.multipleChoice=false&variants=rlvr,acre");
    expect(JSON.stringify(r)).toMatch(/acre/);
    expect(r.experiment.variants.map((v) => v.name)).not.toContain("acre");
  });
});
