/**
 * Makes the shipped cold-start checkpoint (fixed seed):
 *   npm run train:sft -- [--size small|default] [--steps N] [--seed S] [--lr X] [--batch B]
 *                        [--open-ended] [--out FILE] [--resume FILE] [--eval-every E] [--snapshots]
 *                        [--hint-rate R] [--hint-accuracy Q] [--hint-copy C]
 *                        [--option-skew S] [--distractors near|off-misread] [--misread M] [--index-binding B]
 * Trains SFT on the default task (digit arithmetic on real MNIST digits),
 * evaluates on the held-out set greedily (and with images shuffled between prompts),
 * writes public/checkpoints/<name>.ckpt and prints one JSON line of figures.
 * --resume continues from a checkpoint (a new warm-up and cosine cycle).
 * --open-ended trains the open-ended form of the task (the final box holds the
 * number, no options); the checkpoint is then sft-digits2-open-<size>.ckpt.
 * --snapshots also writes FILE's name with `.step<N>` before `.ckpt` at every
 * intermediate eval (every E steps), to pick an earlier cold start.
 * --hint-rate R leaks an answer hint into a share R of the questions (right
 * with probability --hint-accuracy, default 1), and --hint-copy C makes
 * that share of hinted targets box the hint instead of the last step's result
 * (the lab's drift scenario; the checkpoint is then sft-…-hint-<size>.ckpt).
 * --trace-slip S makes that share of targets conclude a near miss in their
 * last step, their final box as --slip-box says: hint (the default: the box
 * copies the hint, sft-…-slip<p>-hintbox-<size>.ckpt), step (the slipped
 * value, …-stepbox-…) or answer (the right answer, sft-…-slip<p>-<size>.ckpt).
 * --option-skew S puts the right option at A with probability S (TaskConfig.optionSkew,
 * training prompts only; the held-out set is never skewed); --distractors off-misread
 * draws no distractor a one-digit misread would conclude (TaskConfig.distractorRule);
 * --misread M makes that share of targets misread one digit and, in multiple choice,
 * guess the letter (the SCS scenario; sft-…-misread<percent>-<size>.ckpt); --index-binding
 * B makes that share of multiple-choice targets name their letter inside the reasoning
 * (the ACRE scenario; sft-…-bind<percent>-<size>.ckpt). docs/reward-spec.md §4–§5.
 * --out and --resume are checked before any work (a folder that cannot hold
 * FILE, or a missing --resume file, fails at once); checkpoints are written
 * under a temporary name and renamed, so a failure leaves an earlier FILE as
 * it was. On failure the last stdout line is {"error": message} (exit 1).
 */
import { readFileSync } from "node:fs";
import { loadCheckpoint, saveCheckpoint, type Checkpoint } from "../model/checkpoint";
import { givenFlags, parseExperimentFlags } from "./flag-errors";
import { checkInputFile, checkOutputFile, finishCli, writeFileAtomic } from "./out-files";
import { LabRun, taskGeneratorFor } from "../run/lab-run";
import { runModel } from "../engine/lab-model";
import { extendPositions } from "../model/resize";
import { inProcessScorer } from "../rl/reward-contract";
import { VOCAB } from "../tasks/tokenizer";
import { checkpointFile, consoleSink, mnistFor, nodeContext } from "./node-run";
import { flagOfField } from "./experiment-flags";
import { TRAIN_SFT_TABLE } from "./train-flags";
import { readCliFlags } from "../lib/cli-flags";

async function main(): Promise<void> {
  const { flags } = readCliFlags(TRAIN_SFT_TABLE);
  const size = flags.size;
  const exp = parseExperimentFlags(
    {
      modelSize: size,
      seed: flags.seed ?? 1,
      // Its figures are greedy (the RL default samples the held-out eval; npm run eval:sampled gives both).
      evalTemperature: 0,
      // No hint unless asked (--hint-rate R): the hinted cold start is its own checkpoint.
      task: {
        multipleChoice: !flags["open-ended"],
        hintRate: flags["hint-rate"] ?? 0,
        hintAccuracy: flags["hint-accuracy"],
        hintCopyRate: flags["hint-copy"],
        traceSlipRate: flags["trace-slip"] ?? 0,
        traceSlipBox: flags["slip-box"],
        optionSkew: flags["option-skew"],
        distractorRule: flags.distractors,
        misreadRate: flags.misread,
        indexBindingRate: flags["index-binding"],
      },
      sftSteps: flags.steps ?? 600,
      sftLr: flags.lr ?? 2e-3,
      sftBatch: flags.batch ?? 32,
      variants: [{ name: "rlvr" }],
    },
    givenFlags(flagOfField(TRAIN_SFT_TABLE.flags), flags),
  );
  // Where the checkpoint goes, and what it resumes from, are checked before any work.
  const file = String(flags.out ?? checkpointFile(exp));
  checkOutputFile("--out", file);
  let resume: Checkpoint | null = null;
  if (flags.resume !== undefined) {
    checkInputFile("--resume", String(flags.resume));
    try {
      resume = loadCheckpoint(new Uint8Array(readFileSync(String(flags.resume))));
    } catch (e) {
      throw new Error(`--resume ${String(flags.resume)}: ${(e as Error).message}`);
    }
  }
  const sink = consoleSink(undefined, Boolean(flags.quiet));
  if (resume?.warning) sink.log(`--resume: ${resume.warning}`);
  let start = resume ? { config: resume.config, params: resume.params } : null;
  const model = runModel(exp.modelSize, taskGeneratorFor(exp, mnistFor(exp)), exp.evalSize).config;
  if (start && start.config.maxSeqLen < model.maxSeqLen) {
    // A longer answer form (more response positions) than the checkpoint was trained on.
    start = { config: model, params: extendPositions(start.params, start.config, model) };
    sink.log(
      `--resume: position table extended from ${resume!.config.maxSeqLen} to ${model.maxSeqLen}`,
    );
  }
  const ctx = await nodeContext();
  sink.log(`adapter: ${ctx.adapter.description}`);
  const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), start);
  const before = resume ? Number(resume.meta?.step ?? 0) : 0;
  sink.log(
    `model: ${run.paramCount} parameters; SFT ${exp.sftSteps} steps, batch ${exp.sftBatch}, lr ${exp.sftLr}, seed ${exp.seed}`,
  );
  const vocabHash = `${String(VOCAB.join(" ").length)}:${VOCAB.length}`;
  const meta = (step: number) => ({
    step: before + step,
    resumedFrom: resume ? before : undefined,
    seed: exp.seed,
    vocabHash,
    task: exp.task,
    lr: exp.sftLr,
    batch: exp.sftBatch,
    of: before + exp.sftSteps,
  });
  const evalEvery = flags["eval-every"];
  const t0 = performance.now();
  run.beginSft({ steps: exp.sftSteps, evalEvery });
  await run.runSteps(Number.POSITIVE_INFINITY, {
    // --snapshots: the parameters at every intermediate eval.
    afterStep: async ({ step }) => {
      if (!flags.snapshots || !run.sft.active || step % evalEvery !== 0) return;
      const snap = file.replace(/(\.ckpt)?$/, `.step${before + step}.ckpt`);
      const params = await run.sft.params();
      writeFileAtomic(snap, saveCheckpoint({ config: run.config, params, meta: meta(step) }));
      sink.log(`snapshot: ${snap}`);
    },
  });
  const evalMetrics = run.sftEval;
  const seconds = (performance.now() - t0) / 1000;
  const shuffled = await run.evaluator.shuffledImages(
    { params: run.engine.ref },
    run.experiment.seed,
  );
  writeFileAtomic(
    file,
    saveCheckpoint({ config: run.config, params: run.initialParams, meta: meta(exp.sftSteps) }),
  );
  ctx.destroy();
  process.stdout.write(
    `${JSON.stringify({
      checkpoint: file,
      size,
      params: run.paramCount,
      steps: before + exp.sftSteps,
      seconds: Math.round(seconds),
      eval: evalMetrics,
      shuffledImages: shuffled,
    })}\n`,
  );
}

finishCli("train:sft", main());
