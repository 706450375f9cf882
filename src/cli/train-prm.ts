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
import { nodeContext, parseFlags, REPO_ROOT } from "./node-run";

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

/** An integer flag in [lo, hi], or its default; names the flag otherwise. */
function intFlag(
  flags: Record<string, unknown>,
  key: string,
  dflt: number,
  lo: number,
  hi: number,
): number {
  const v = flags[key] ?? dflt;
  if (typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi)
    throw new Error(`--${key} must be an integer in ${lo}..${hi}, got ${String(v)}`);
  return v;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    size: "string",
    steps: "number",
    lr: "number",
    batch: "number",
    seed: "number",
    "eval-size": "number",
    "eval-every": "number",
    out: "string",
    init: "string",
    quiet: "boolean",
  });
  const size = String(flags.size ?? "small");
  if (size !== "small" && size !== "default")
    throw new Error(`--size must be small or default, got '${size}'`);
  const steps = intFlag(flags, "steps", 150, 0, 1_000_000);
  const batch = intFlag(flags, "batch", 32, 2, 1024);
  if (batch % 2 !== 0) throw new Error(`--batch must be even, got ${batch}`);
  const seed = intFlag(flags, "seed", 1, 0, 2 ** 31 - 1);
  const evalSize = intFlag(flags, "eval-size", 64, 1, 10_000);
  const evalEvery = intFlag(flags, "eval-every", 0, 0, 1_000_000);
  const lr = Number(flags.lr ?? 1e-3);
  if (!(lr > 0 && lr <= 1)) throw new Error(`--lr must be in (0, 1], got ${lr}`);
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
