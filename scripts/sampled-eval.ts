/**
 * Held-out metrics of a checkpoint, greedy and sampled (τ = 1, K answers per
 * prompt, fixed seed): the sampled policy answers against its own steps more
 * often than its greedy answer shows.
 *   npm run eval:sampled -- CHECKPOINT [--hint-accuracy Q] [--eval-size N] [--samples K] [--seed S]
 * Prints one JSON line {"checkpoint", "hintAccuracy", "evalSize", "samples", "greedy": {metrics}, "sampled": {metrics}}.
 */
import { readFileSync } from "node:fs";
import { loadCheckpoint } from "../src/model/checkpoint";
import { LabRun } from "../src/run/lab-run";
import { inProcessScorer } from "../src/rl/reward-contract";
import { consoleSink, mnistFor, nodeContext } from "../src/cli/node-run";
import { flagOfField } from "../src/cli/experiment-flags";
import { givenFlags, parseExperimentFlags } from "../src/cli/flag-errors";
import { checkInputFile } from "../src/cli/out-files";
import { SAMPLED_EVAL_TABLE } from "../src/cli/script-flags";
import { readCliFlags } from "../src/lib/cli-flags";
import { evalMetrics } from "../src/rl/eval-metrics";

async function main(): Promise<void> {
  const { flags, positionals } = readCliFlags(SAMPLED_EVAL_TABLE);
  const [file] = positionals;
  const K = flags.samples;
  checkInputFile("CHECKPOINT", file);
  const ckpt = loadCheckpoint(new Uint8Array(readFileSync(file)));
  const exp = parseExperimentFlags(
    {
      modelSize: "small",
      evalSize: flags["eval-size"] ?? 128,
      // The "greedy" figures below are greedy whatever the experiment's default eval decoding is.
      evalTemperature: 0,
      task: { hintAccuracy: flags["hint-accuracy"] },
      variants: [{ name: "rlvr" }],
    },
    givenFlags(flagOfField(SAMPLED_EVAL_TABLE.flags), flags),
  );
  const ctx = await nodeContext();
  const run = new LabRun(ctx, exp, consoleSink(undefined, true), inProcessScorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  const ref = { params: run.engine.ref };
  // The run's evaluator: K sampled answers per prompt, then the greedy answer (evalTemperature 0).
  const sampled = await run.evaluator.sampled(ref, K, flags.seed);
  const greedy = evalMetrics(
    run.evalPrompts,
    await run.evaluator.texts(ref, run.evalPrompts, run.experiment.seed),
  );
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
