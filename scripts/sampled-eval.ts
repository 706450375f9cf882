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
import { inProcessScorer } from "../src/run/reward-client";
import { consoleSink, mnistFor, nodeContext, parseFlags } from "../src/cli/node-run";
import { evalMetrics } from "../src/rl/eval-metrics";
import { imageTensor, promptTensor, row } from "../src/engine/sequences";
import { decodeResponse } from "../src/tasks/tokenizer";

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
  const { promptLen, maxNew } = run.engine.shape;
  const prompts = run.evalPrompts;
  const ref = { params: run.engine.ref };
  const sampling = {
    temperature: 1,
    topK: 0,
    topP: 1,
    greedy: false,
    seed: Number(flags.seed ?? 7),
  };
  const gen = await run.engine.generate(
    ref as never,
    imageTensor(prompts, K),
    promptTensor(prompts, promptLen, K),
    sampling,
    K,
  );
  const texts = prompts.flatMap((_, i) =>
    Array.from({ length: K }, (_, k) => decodeResponse(row(gen.tokens, i * K + k, maxNew))),
  );
  const sampled = evalMetrics(
    prompts.flatMap((p) => Array.from({ length: K }, () => p)),
    texts,
  );
  const greedy = evalMetrics(prompts, await run.evalTexts(ref, prompts));
  ctx.destroy();
  process.stdout.write(
    `${JSON.stringify({
      checkpoint: file,
      hintAccuracy: exp.task.hintAccuracy,
      evalSize: prompts.length,
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
