/**
 * Held-out eval benchmark: the time of one held-out eval (src/rl/held-out.ts:
 * first answers, and on multiple-choice prompts OSCR's re-ask and the
 * distinct-options passes) of a preset's cold start, with each generate
 * call of the eval timed on its own. Node's WebGPU (SwiftShader here), the
 * small model (the size the page picks on a CPU adapter).
 *
 *   npm run bench:eval -- [--preset NAME] [--eval-size N] [--repeats R]
 *
 * --preset (default scs-paper: the multiple-choice eval with every pass)
 * picks the experiment and its shipped cold start; --eval-size overrides the
 * preset's held-out size; --repeats R timed evals after one untimed (the
 * pipeline builds). Prints one JSON line: adapter, preset, eval size,
 * eval_ms (median, min, max, spread, runs), each generate call's median
 * (rows, group size, forced prefixes or not, ms), the held-out metrics (the
 * same in every run: the first answers greedy or sampled at the preset's
 * eval temperature from the experiment's seed, the passes seeded). The timed runs
 * start once the kernels the warm-up asked to build in the background are
 * built (GpuContext.backgroundBuilds), as a run's later evals find them.
 * @throws (as `{"error": …}`) a bad flag (named), a preset without a shipped cold start.
 */
import { consoleSink, loadShippedCheckpoint, mnistFor, nodeContext } from "../../src/cli/node-run";
import { LabRun } from "../../src/run/lab-run";
import { inProcessScorer } from "../../src/rl/reward-contract";
import { MAX_EVAL_SIZE, parseExperiment } from "../../src/settings/experiment";
import { PRESET_NAMES, presetExperiment } from "../../src/settings/presets";
import { median, parseBenchFlags, round, runBench, summarize } from "./harness";

/** The smallest held-out set the experiment schema takes (Experiment.evalSize). */
const MIN_EVAL_SIZE = 4;

runBench("bench-eval", async (log) => {
  const flags = parseBenchFlags(process.argv.slice(2), {
    preset: { kind: "enum", of: PRESET_NAMES, default: "scs-paper", help: "the experiment" },
    "eval-size": {
      kind: "int",
      min: 0,
      max: MAX_EVAL_SIZE,
      default: 0,
      help: "held-out prompts, 0: the preset's",
    },
    repeats: { kind: "int", min: 1, max: 50, default: 5, help: "timed evals" },
  });
  if (flags["eval-size"] > 0 && flags["eval-size"] < MIN_EVAL_SIZE)
    throw new Error(
      `--eval-size must be 0 (the preset's) or at least ${MIN_EVAL_SIZE}, got ${flags["eval-size"]}`,
    );
  const ctx = await nodeContext();
  const preset = presetExperiment(flags.preset);
  const exp = parseExperiment({
    ...preset,
    modelSize: "small",
    ...(flags["eval-size"] > 0 ? { evalSize: flags["eval-size"] } : {}),
  });
  const ckpt = loadShippedCheckpoint(exp);
  if (!ckpt)
    throw new Error(`no shipped cold start for preset '${flags.preset}' at the small size`);
  const run = new LabRun(ctx, exp, consoleSink(undefined, true), inProcessScorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  // Each generate call of an eval, in order: rows, group size, forced or not, ms.
  const engine = run.engine;
  const generate = engine.generate.bind(engine);
  let calls: { rows: number; group: number; forced: boolean; ms: number }[] = [];
  engine.generate = async (policy, images, promptTokens, opts, groupSize = 1, forced) => {
    const t0 = performance.now();
    const out = await generate(policy, images, promptTokens, opts, groupSize, forced);
    calls.push({
      rows: promptTokens.length / engine.shape.promptLen,
      group: groupSize,
      forced: !!forced,
      ms: performance.now() - t0,
    });
    return out;
  };
  const ref = { params: engine.ref };
  const seed = exp.seed;
  await run.evaluator.heldOut(ref, seed); // the pipeline builds
  await ctx.backgroundBuilds();
  const totals: number[] = [];
  const perCall: number[][] = [];
  let shape: { rows: number; group: number; forced: boolean }[] = [];
  let metrics: Record<string, number> = {};
  for (let r = 0; r < flags.repeats; r++) {
    calls = [];
    const t0 = performance.now();
    metrics = { ...(await run.evaluator.heldOut(ref, seed)) };
    totals.push(performance.now() - t0);
    shape = calls.map(({ rows, group, forced }) => ({ rows, group, forced }));
    calls.forEach((c, i) => {
      perCall[i] = [...(perCall[i] ?? []), c.ms];
    });
    log(
      `eval ${r + 1}/${flags.repeats}: ${totals[r].toFixed(0)} ms (${calls.map((c) => c.ms.toFixed(0)).join(" + ")})`,
    );
  }
  const t = summarize(totals);
  return {
    environment: "node",
    adapter: ctx.adapter.description,
    preset: flags.preset,
    eval_size: exp.evalSize,
    eval_ms: {
      median: round(t.median, 1),
      min: round(t.min, 1),
      max: round(t.max, 1),
      spread: round(t.spread, 1),
      runs: t.runs,
    },
    calls: shape.map((s, i) => ({ ...s, median_ms: round(median(perCall[i]), 1) })),
    metrics,
  };
});
