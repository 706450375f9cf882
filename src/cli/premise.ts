/**
 * The premise check of a scenario, on its outcome-only baseline arm alone
 * (docs/reward-spec.md §4.3), headless:
 *   npm run premise -- [--preset NAME] --seeds S1,S2,… [--steps N] [--eval-every E]
 *                      [--eval-size N] [--quiet]
 * Trains the preset's single variant (default preset `scs-premise`: RLOO +
 * format, no KL, on the faint-digit task) from its shipped cold start under
 * every seed, side by side, and checks its flaw rate (the lucky-guess rate)
 * at the last eval against the step-0 95 % Wilson band of each seed
 * (src/experiments/premise.ts). --steps, --eval-every and --eval-size
 * override the preset's (a test runs a tiny size). A preset with more than
 * one variant is refused: the check runs the baseline arm alone.
 * On a CPU adapter (SwiftShader) the preset's small model is used as is.
 * Prints progress on stderr and one JSON line on stdout:
 *   {"date", "preset", "variant", "metric", "seeds", "steps", "evalEvery", "evalSize",
 *    "seconds", "evals": {"<seed>": [{"step", <metric>: value, …}]},
 *    "check": {"seeds": [{"seed", "step0": {"rate", "n", "band"}, "trajectory", "last", "holds"}],
 *              "holds"}}
 *   on failure: {"error": message} (exit 1).
 */
import { inProcessScorer } from "../rl/reward-contract";
import { LabRun } from "../run/lab-run";
import { premiseCheck, SCS_PREMISE_METRIC } from "../experiments/premise";
import { parseExperiment } from "../settings/experiment";
import { presetExperiment } from "../settings/presets";
import {
  consoleSink,
  loadShippedCheckpoint,
  mnistFor,
  nodeContext,
  parseSeedList,
} from "./node-run";
import { finishCli } from "./out-files";
import { readCliFlags } from "../lib/cli-flags";
import { PREMISE_TABLE } from "./premise-flags";

/** The eval metrics the JSON lists per eval beside the flaw rate. */
const SHOWN = [
  "acc",
  "luckyGuess",
  "wrca",
  "stepAcc",
  "faintReadAcc",
  "distinctK08Faithful",
  "distinctK08Lucky",
  "distinctK08Wrong",
  "formatRate",
] as const;

async function main(): Promise<void> {
  const { flags } = readCliFlags(PREMISE_TABLE);
  const preset = flags.preset;
  const seeds = parseSeedList("seeds", flags.seeds);
  const base = presetExperiment(preset);
  if (base.variants.length !== 1)
    throw new Error(
      `--preset: '${preset}' has ${base.variants.length} variants; the premise check runs the baseline arm alone`,
    );
  // Ranges are the experiment schema's (checked once, by parseExperiment below).
  const steps = flags.steps ?? base.algorithm.steps;
  const evalEvery = flags["eval-every"] ?? base.algorithm.evalEvery;
  const evalSize = flags["eval-size"] ?? base.evalSize;
  const exp = parseExperiment({
    ...base,
    seeds,
    evalSize,
    algorithm: { ...base.algorithm, steps, evalEvery },
  });
  const variant = exp.variants[0].name;
  const sink = consoleSink(undefined, Boolean(flags.quiet));
  const ckpt = loadShippedCheckpoint(exp);
  if (!ckpt) throw new Error(`no shipped cold start for preset '${preset}'`);
  const ctx = await nodeContext();
  sink.log(`adapter: ${ctx.adapter.description}${ctx.adapter.isFallback ? " (CPU fallback)" : ""}`);
  const t0 = performance.now();
  const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  try {
    await run.evalStart();
    await run.runSteps(steps);
  } finally {
    run.dispose();
  }
  const check = premiseCheck(sink.rows, variant, seeds, evalSize, SCS_PREMISE_METRIC);
  const evals = Object.fromEntries(
    seeds.map((seed) => [
      String(seed),
      sink.rows
        .filter((r) => r.kind === "eval" && r.variant === variant && r.seed === seed)
        .map((r) => ({
          step: r.step,
          ...Object.fromEntries(SHOWN.map((k) => [k, r.values[k]])),
        })),
    ]),
  );
  const out = {
    date: new Date().toISOString(),
    preset,
    variant,
    metric: SCS_PREMISE_METRIC,
    seeds,
    steps,
    evalEvery,
    evalSize,
    seconds: Math.round((performance.now() - t0) / 1000),
    evals,
    check,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

finishCli("premise", main());
