/**
 * Held-out metrics of a checkpoint, greedy and sampled (τ = 1, K answers per
 * prompt, fixed seed): the sampled policy answers against its own steps more
 * often than its greedy answer shows.
 *   npm run eval:sampled -- CHECKPOINT [--hint-accuracy Q] [--eval-size N] [--samples K] [--seed S]
 * Prints one JSON line {"checkpoint", "hintAccuracy", "evalSize", "samples", "greedy": {metrics}, "sampled": {metrics}}.
 */
import { readFileSync } from "node:fs";
import { loadCheckpoint } from "../src/model/checkpoint";
import { parseExperiment } from "../src/settings/experiment";
import { LabRun } from "../src/run/lab-run";
import { inProcessScorer } from "../src/rl/reward-contract";
import { consoleSink, mnistFor, nodeContext, parseFlags } from "../src/cli/node-run";
import { evalMetrics } from "../src/rl/eval-metrics";

async function main(): Promise<void> {
  const [file, ...rest] = process.argv.slice(2);
  if (!file || file.startsWith("--"))
    throw new Error("give the checkpoint file first: npm run eval:sampled -- CHECKPOINT [flags]");
  const flags = parseFlags(rest, {
    "hint-accuracy": "number",
    "eval-size": "number",
    samples: "number",
    seed: "number",
  });
  const K = Number(flags.samples ?? 4);
  if (!Number.isInteger(K) || K < 1 || K > 16)
    throw new Error(`--samples must be an integer 1–16, got ${K}`);
  const ckpt = loadCheckpoint(new Uint8Array(readFileSync(file)));
  const exp = parseExperiment({
    modelSize: "small",
    evalSize: flags["eval-size"] ?? 128,
    // The "greedy" figures below are greedy whatever the experiment's default eval decoding is.
    evalTemperature: 0,
    task: { hintAccuracy: flags["hint-accuracy"] },
    variants: [{ name: "rlvr" }],
  });
  const ctx = await nodeContext();
  const run = new LabRun(ctx, exp, consoleSink(undefined, true), inProcessScorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  const ref = { params: run.engine.ref };
  // The run's evaluator: K sampled answers per prompt, then the greedy answer (evalTemperature 0).
  const sampled = await run.evaluator.sampled(ref, K, Number(flags.seed ?? 7));
  const greedy = evalMetrics(run.evalPrompts, await run.evalTexts(ref, run.evalPrompts));
  ctx.destroy();
  process.stdout.write(
    `${JSON.stringify({
      checkpoint: file,
      hintAccuracy: exp.task.hintAccuracy,
      evalSize: run.evalPrompts.length,
      samples: K,
      greedy,
      sampled,
    })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`eval:sampled: ${(e as Error).message}`);
    process.exit(1);
  },
);
