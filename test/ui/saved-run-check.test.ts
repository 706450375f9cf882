/** Saved runs read back from IndexedDB are checked before the page uses them (src/store/saved-run-check.ts). */
import { describe, expect, it } from "vitest";
import { DEFAULT_EXPERIMENT } from "../../src/settings/experiment";
import { checkSavedRun, checkSavedRunSummary } from "../../src/store/saved-run-check";

function record(): Record<string, unknown> {
  const row = (step: number, kind: "train" | "eval", acc: number) => ({
    variant: "rlvr",
    step,
    time: step * 1.5,
    kind,
    values: { acc, entropy: Number.NaN },
  });
  return {
    key: "k1",
    name: "seed 1 · rlvr vs grr · step 2",
    savedAt: 1_700_000_000_000,
    experiment: structuredClone(DEFAULT_EXPERIMENT),
    lastStep: 2,
    lastEval: { rlvr: { acc: 0.5 } },
    metrics: {
      byVariant: {
        rlvr: { train: [row(1, "train", 0.2), row(2, "train", 0.3)], eval: [row(2, "eval", 0.5)] },
      },
      keys: { train: ["acc", "entropy"], eval: ["acc", "entropy"] },
      markers: [
        {
          variant: "rlvr",
          step: 2,
          label: "fork",
          fork: { parent: "rlvr", changes: { lambda: 0.5 } },
        },
      ],
      version: 3,
    },
  };
}

describe("saved-run check", () => {
  it("passes a well-formed run through unchanged (NaN metric values kept)", () => {
    const r = checkSavedRun(record());
    expect(r.experiment).toEqual(DEFAULT_EXPERIMENT);
    expect(r.metrics.byVariant.rlvr.train).toHaveLength(2);
    expect(Number.isNaN(r.metrics.byVariant.rlvr.train[0].values.entropy)).toBe(true);
    expect(r.metrics.markers[0].fork).toEqual({ parent: "rlvr", changes: { lambda: 0.5 } });
    const { metrics: _m, ...summary } = record();
    expect(checkSavedRunSummary(summary).lastEval).toEqual({ rlvr: { acc: 0.5 } });
  });

  it("reads a run saved before the class rename (credit/lucky-guess/*) under the current keys", () => {
    const rec = record() as { metrics: { byVariant: { rlvr: { train: { values: object }[] } } } };
    const rows = rec.metrics.byVariant.rlvr.train;
    rows[1].values = {
      acc: 0.3,
      "credit/lucky-guess/share": 0.125,
      "credit/lucky-guess/reward": 1,
    };
    (rec.metrics as unknown as { keys: { train: string[] } }).keys.train.push(
      "credit/lucky-guess/share",
      "credit/lucky-guess/reward",
    );
    const r = checkSavedRun(rec);
    expect(r.metrics.byVariant.rlvr.train[1].values).toEqual({
      acc: 0.3,
      "credit/flawed-right/share": 0.125,
      "credit/flawed-right/reward": 1,
    });
    expect(r.metrics.keys.train).toEqual([
      "acc",
      "entropy",
      "credit/flawed-right/share",
      "credit/flawed-right/reward",
    ]);
    rows[1].values = { "credit/lucky-guess/share": 0.125, "credit/flawed-right/share": 0.25 };
    expect(() => checkSavedRun(rec)).toThrow(
      "saved run 'seed 1 · rlvr vs grr · step 2' (metrics) byVariant.rlvr.train[1] holds both 'credit/lucky-guess/share' and 'credit/flawed-right/share'",
    );
  });

  it("refuses prototype keys anywhere in the record and leaves Object.prototype alone", () => {
    const cases = [
      JSON.parse('{"__proto__": {"polluted": true}}'),
      JSON.parse(
        '{"rlvr": {"train": [], "eval": []}, "constructor": {"prototype": {"polluted": 1}}}',
      ),
    ];
    for (const byVariant of cases) {
      const rec = record();
      (rec.metrics as Record<string, unknown>).byVariant = byVariant;
      expect(() => checkSavedRun(rec)).toThrow(
        /saved run 'seed 1 · rlvr vs grr · step 2' \(at metrics\.byVariant\.(__proto__|constructor)\) uses the key/,
      );
    }
    const rec = record();
    rec.lastEval = JSON.parse('{"__proto__": {"acc": 1}}');
    expect(() => checkSavedRunSummary(rec)).toThrow(/at lastEval\.__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).acc).toBeUndefined();
  });

  it("names what is wrong in a malformed record (the page's 'Cannot read properties of undefined')", () => {
    const noMetrics = record();
    delete noMetrics.metrics;
    expect(() => checkSavedRun(noMetrics)).toThrow(
      /saved run '.*' \(metrics\) could not be read: \(root\)/,
    );
    const badRows = record();
    (badRows.metrics as { byVariant: unknown }).byVariant = { rlvr: { train: [{ step: 1 }] } };
    expect(() => checkSavedRun(badRows)).toThrow(/byVariant\.rlvr\.train\.0\.variant/);
    const badExp = record();
    badExp.experiment = { ...DEFAULT_EXPERIMENT, evalSize: 1e9 };
    expect(() => checkSavedRun(badExp)).toThrow(/evalSize: at most 512 \(MAX_EVAL_SIZE/);
    expect(() => checkSavedRun(null)).toThrow(/a saved run could not be read/);
    expect(() => checkSavedRun("junk")).toThrow(/a saved run could not be read/);
  });
});
