// The guided view's callout rules (src/ui/lib/callouts.ts) on recorded metric
// rows: the default experiment's recording shipped until 2026-12-06 (RLVR vs
// GRR, seeds 31–34, 20 steps; test/fixtures/recordings-2026-12-03.jsonl): each
// rule fires where the bands say it should, its text carries the recorded
// values, and nothing fires where the bands overlap (the same rows cut at
// step 5; a variant against a copy of itself; a weight change after which
// nothing moves).
import { describe, expect, it } from "vitest";
import { computeCallouts, type CalloutInput } from "../../src/ui/lib/callouts";
import { metricBands } from "../../src/ui/lib/bands";
import { findExample } from "../../src/ui/lib/callout-examples";
import type { MetricRow } from "../../src/run/run-types";
import type { GroupView } from "../../src/rl/step-types";
import { earlierRecording } from "../support/recordings-2026-12-03";

const rec = earlierRecording("default");
const evalRows = (upTo = Infinity): Record<string, MetricRow[]> =>
  Object.fromEntries(
    Object.entries(rec.byVariant).map(([v, r]) => [v, r.eval.filter((x) => x.step <= upTo)]),
  );
const input = (over: Partial<CalloutInput> = {}): CalloutInput => ({
  evalRows: evalRows(),
  markers: [],
  evalSize: rec.evalSize,
  metrics: ["incR", "rcAcc", "acc"],
  ...over,
});
const summary = (cs: ReturnType<typeof computeCallouts>) =>
  cs.map((c) => `${c.rule} ${c.variants.join("/")} ${c.metric} @${c.step}`);
const mean = (v: string, k: string, step: number) =>
  metricBands(evalRows()[v], k, 128)
    .find((p) => p.step === step)!
    .mean.toFixed(2);

describe("callout rules on the default experiment's earlier recording", () => {
  it("the recording is four seeds of RLVR and GRR, evaluated every 5 steps to step 20", () => {
    expect(rec.seeds).toEqual([31, 32, 33, 34]);
    expect(evalRows().rlvr.map((r) => r.step)).toEqual([
      0, 0, 0, 0, 5, 5, 5, 5, 10, 10, 10, 10, 15, 15, 15, 15, 20, 20, 20, 20,
    ]);
  });

  it("fires drift, moved and parted where the seed bands say, newest first", () => {
    expect(summary(computeCallouts(input()))).toEqual([
      "parted rlvr/grr incR @20",
      "parted grr/rlvr rcAcc @20",
      "moved grr acc @15",
      "drift rlvr incR @10",
      "moved rlvr incR @10",
      "moved rlvr acc @10",
    ]);
  });

  it("each text carries the recorded values", () => {
    const cs = computeCallouts(input());
    const drift = cs.find((c) => c.rule === "drift")!;
    expect(drift.text).toContain(
      `its IncR rose from ${mean("rlvr", "incR", 0)} to ${mean("rlvr", "incR", 10)} while its Acc went from ${mean("rlvr", "acc", 0)} to ${mean("rlvr", "acc", 10)}`,
    );
    const parted = cs.find((c) => c.rule === "parted" && c.metric === "incR")!;
    expect(parted.text).toMatch(
      new RegExp(
        `^At step 20 the IncR bands of RLVR \\(${mean("rlvr", "incR", 20)}, [0-9.]+–[0-9.]+\\) and GRR \\(${mean("grr", "incR", 20)}, `,
      ),
    );
    expect(parted.example).toEqual({ variant: "rlvr", want: "right-inconsistent" });
  });

  it("nothing fires while the bands overlap: the same rows up to step 5", () => {
    expect(computeCallouts(input({ evalRows: evalRows(5) }))).toEqual([]);
  });

  it("nothing fires on the smoke recording, whose bands overlap throughout (2 seeds, 16 prompts, 6 steps)", () => {
    const smoke = earlierRecording("smoke");
    const rows = Object.fromEntries(Object.entries(smoke.byVariant).map(([v, r]) => [v, r.eval]));
    expect(Object.keys(rows).sort()).toEqual(["grr", "rlvr"]);
    expect(computeCallouts(input({ evalRows: rows, evalSize: smoke.evalSize }))).toEqual([]);
  });

  it("parted never fires between a variant and a copy of itself", () => {
    const rows = evalRows();
    const copy = rows.rlvr.map((r) => ({ ...r, variant: "copy" }));
    const cs = computeCallouts(input({ evalRows: { rlvr: rows.rlvr, copy } }));
    expect(cs.filter((c) => c.rule === "parted")).toEqual([]);
  });

  it("after-change: fires after a weight change the band moves past, not after one it does not", () => {
    const marker = (step: number) => ({ variant: "rlvr", step, label: "λ 1 → 2" });
    const after5 = computeCallouts(input({ markers: [marker(5)] })).filter(
      (c) => c.rule === "after-change",
    );
    expect(summary(after5)).toEqual(["after-change rlvr acc @20", "after-change rlvr incR @15"]);
    expect(after5[1].text).toMatch(
      /^After "λ 1 → 2" at step 5, RLVR.s IncR rose from 0.36 \(step 5\) to 0.53 at step 15, beyond its seed band; now 0.58 at step 20.$/,
    );
    const after15 = computeCallouts(input({ markers: [marker(15)] }));
    expect(after15.filter((c) => c.rule === "after-change")).toEqual([]);
    // Forks and faults are not weight changes.
    const fork = { ...marker(5), fork: { parent: "rlvr", changes: {} } };
    expect(
      computeCallouts(input({ markers: [fork] })).filter((c) => c.rule === "after-change"),
    ).toEqual([]);
  });

  it("the drift callout's example is a right answer whose steps do not support it, from the recording's groups", () => {
    const drift = computeCallouts(input()).find((c) => c.rule === "drift")!;
    // Kept without their images, which findExample does not read.
    const groups = (rec.rlvrGroups ?? []) as GroupView[];
    const ex = findExample(groups, drift.example!.want, drift.step)!;
    expect(ex.step).toBeLessThanOrEqual(drift.step);
    const g = groups.find((x) => x.step === ex.step && x.promptId === ex.promptId)!;
    expect(g.rollouts[ex.index]).toMatchObject({ verifierPassed: true, judgment: "inconsistent" });
  });
});
