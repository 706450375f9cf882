/**
 * OSCR at eval (ACRE eq. 2): on a multiple-choice run every held-out eval row
 * carries OSCR in [0, 1], from a second pass that re-asks each question with
 * its options shuffled and the first reasoning kept; the same seed gives the
 * same value, and so do the distinct options among continuations (SCS
 * Fig. 2c); an open-ended run has neither pass nor metric. Small
 * model, the shipped multiple-choice cold start, CPU WebGPU adapter.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { loadShippedCheckpoint, mnistFor } from "../../src/cli/node-run";
import { type Experiment, parseExperiment } from "../../src/settings/experiment";
import { inProcessScorer } from "../../src/rl/reward-contract";
import { LabRun } from "../../src/run/lab-run";
import type { GpuContext } from "../../src/gpu/context";
import { collectingSink } from "../support/run-sink";
import type { MetricRow } from "../../src/run/run-types";
import { evalGenerate } from "../../src/rl/held-out";
import { deriveSeed } from "../../src/tasks/rng";
import { imageTensor, promptTensor } from "../../src/engine/sequences";

/** A run of `exp` from its shipped multiple-choice (or open-ended) cold start, and its rows. */
function shippedRun(ctx: GpuContext, exp: Experiment): { run: LabRun; rows: MetricRow[] } {
  const ckpt = loadShippedCheckpoint(exp);
  expect(ckpt, "the shipped cold start is missing").not.toBeNull();
  const { sink, rows } = collectingSink();
  const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), {
    config: ckpt!.config,
    params: ckpt!.params,
  });
  return { run, rows };
}

describe("OSCR at eval (small model, CPU WebGPU adapter)", () => {
  const gpu = useGpu();

  it("is in [0, 1] on every multiple-choice eval row, the same for the same seed, absent open-ended", async () => {
    const exp = parseExperiment({
      modelSize: "small",
      variants: [{ name: "rlvr" }],
      evalSize: 16,
      task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
    });
    const oscrOf = async () => {
      const { run, rows } = shippedRun(gpu.ctx, exp);
      await run.evalStart();
      return rows.find((r) => r.kind === "eval" && r.step === 0)!.values;
    };
    const first = await oscrOf();
    const a = first.oscr;
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThanOrEqual(1);
    // 16 prompts: a multiple of 1/16.
    expect(Number.isInteger(a * 16)).toBe(true);
    // The distinct-options statistic (SCS Fig. 2c) beside it: in [1, 4], a multiple of 1/16.
    for (const k of ["distinctK04", "distinctK08"]) {
      expect(first[k], k).toBeGreaterThanOrEqual(1);
      expect(first[k], k).toBeLessThanOrEqual(4);
      expect(Number.isInteger(first[k] * 16), k).toBe(true);
    }
    expect(await oscrOf()).toEqual(first);

    const open = parseExperiment({ modelSize: "small", variants: [{ name: "rlvr" }], evalSize: 8 });
    const { run, rows } = shippedRun(gpu.ctx, open);
    await run.evalStart();
    const openValues = rows.find((r) => r.kind === "eval")!.values;
    for (const k of ["oscr", "distinctK04", "distinctK08"]) expect(k in openValues, k).toBe(false);
  });

  it("generates a prompt's continuations as one group: the tokens of unshared rows", async () => {
    const exp = parseExperiment({
      modelSize: "small",
      variants: [{ name: "rlvr" }],
      evalSize: 6,
      task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
    });
    const { run } = shippedRun(gpu.ctx, exp);
    const engine = run.engine;
    const prompts = run.evalPrompts.slice(0, 5);
    const copies = 3;
    // Forced prefixes of unequal lengths, one prompt without any, as the distinct-options pass makes them.
    const cuts = [[5, 6, 7], null, [8], [9, 10, 11, 12, 13], [14, 15]];
    const forced = cuts.flatMap((c) => Array.from({ length: copies }, () => c));
    const shared = await evalGenerate(
      engine,
      { params: engine.ref },
      prompts,
      1,
      81,
      "distinct-k0.4",
      forced,
      copies,
    );
    const { promptLen } = engine.shape;
    const unshared = await engine.generate(
      { params: engine.ref },
      imageTensor(prompts, copies),
      promptTensor(prompts, promptLen, copies),
      { temperature: 1, topK: 0, topP: 1, greedy: false, seed: deriveSeed(81, "distinct-k0.4") },
      1,
      forced,
    );
    expect(Array.from(shared.tokens)).toEqual(Array.from(unshared.tokens));
  });
});
