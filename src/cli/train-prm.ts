/**
 * Trains the learned PRM (docs/reward-spec.md §2, "PRM"):
 *   npm run train:prm -- [--size small|default] [--steps N] [--lr X] [--batch B]
 *                        [--seed S] [--eval-size N] [--eval-every E] [--out FILE] [--quiet]
 * Starts from the shipped open-ended SFT cold start of the size
 * (public/checkpoints/sft-digits2-open-<size>.ckpt), fine-tunes it on the GPU
 * engine as a generative step verifier on the true step traces of open-ended,
 * multiple-choice and hinted open-ended digit prompts (src/prm/data.ts; the
 * hinted ones are the default scenario's), prints held-out
 * step-level accuracy, AUC and step-matched AUC (correct vs corrupted steps)
 * before and after, and writes the weights as a lab checkpoint (default public/prm/prm-digits2-<size>.ckpt,
 * meta `kind: "prm"`), under a temporary name then renamed. Bad flags fail
 * before any work; on failure the last stdout line is {"error": message}.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadCheckpoint, saveCheckpoint } from "../model/checkpoint";
import { createTaskGenerator } from "../tasks/generator";
import { loadMnistSubsetNode } from "../tasks/mnist-data-node";
import { VOCAB } from "../tasks/tokenizer";
import { trainPrm } from "../prm/train";
import { checkInputFile, checkOutputFile, finishCli, writeFileAtomic } from "./out-files";
import { nodeContext, REPO_ROOT } from "./node-run";
import { TRAIN_PRM_TABLE } from "./train-flags";
import { readCliFlags } from "../lib/cli-flags";

/** The PRM's prompt sources, drawn in equal parts (from 2026-12-03 with the hinted prompts of the drift scenario). */
const PRM_SOURCES = [
  { family: "digits", numDigits: 2, multipleChoice: false, hintRate: 0, traceSlipRate: 0 },
  { family: "digits", numDigits: 2, multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
  {
    family: "digits",
    numDigits: 2,
    multipleChoice: false,
    hintRate: 1,
    hintAccuracy: 1,
    traceSlipRate: 0,
  },
] as const;

async function main(): Promise<void> {
  const { flags } = readCliFlags(TRAIN_PRM_TABLE);
  const { size, steps, batch, seed, lr } = flags;
  if (batch % 2 !== 0) throw new Error(`--batch must be even, got ${batch}`);
  const evalSize = flags["eval-size"];
  const evalEvery = flags["eval-every"];
  const init = String(
    flags.init ?? join(REPO_ROOT, "public/checkpoints", `sft-digits2-open-${size}.ckpt`),
  );
  checkInputFile("--init", init);
  const file = String(flags.out ?? join(REPO_ROOT, "public/prm", `prm-digits2-${size}.ckpt`));
  checkOutputFile("--out", file);
  let start: ReturnType<typeof loadCheckpoint>;
  try {
    start = loadCheckpoint(new Uint8Array(readFileSync(init)));
  } catch (e) {
    throw new Error(`--init ${init}: ${(e as Error).message}`);
  }
  const log = flags.quiet ? () => {} : (line: string) => console.error(line);
  const mnist = loadMnistSubsetNode();
  // The PRM reads the prompts the policy reads (lab choice, docs/reward-spec.md §2 "PRM"):
  // open-ended and multiple-choice, and the default scenario's hinted open-ended prompts
  // (`<answer> h </answer>` in the question, the hint always right), in equal parts.
  const tasks = PRM_SOURCES.map((task) => createTaskGenerator(task, { mnist }));
  const ctx = await nodeContext();
  log(`adapter: ${ctx.adapter.description}`);
  log(`PRM from ${init}: ${steps} steps, batch ${batch}, lr ${lr}, seed ${seed}`);
  const t0 = performance.now();
  const result = await trainPrm(ctx, {
    init: { config: start.config, params: start.params },
    tasks,
    steps,
    batch,
    lr,
    seed,
    evalSize,
    evalEvery,
    log,
  });
  const seconds = Math.round((performance.now() - t0) / 1000);
  ctx.destroy();
  writeFileAtomic(
    file,
    saveCheckpoint({
      config: start.config,
      params: result.params,
      meta: {
        kind: "prm",
        step: steps,
        seed,
        lr,
        batch,
        init: init.startsWith(REPO_ROOT) ? init.slice(REPO_ROOT.length + 1) : init,
        vocabHash: `${String(VOCAB.join(" ").length)}:${VOCAB.length}`,
        heldOut: result.after,
      },
    }),
  );
  process.stdout.write(
    `${JSON.stringify({ prm: file, size, steps, seconds, loss: result.loss, before: result.before, after: result.after })}\n`,
  );
}

finishCli("train:prm", main());
