/**
 * Headless lab on Node (same engine and reward code as the page):
 *   npm run lab -- --preset <name> [--steps N] [--seed S] [--lr X] [--temperature T] [--out DIR]
 *                  [--group-size G] [--batch-prompts P] [--eval-every E] [--eval-size N]
 *                  [--sft-steps N] [--from-scratch] [--checkpoint FILE] [--full-size] [--quiet] [--seeds S1,S2,…]
 *                  [--hint-rate R] [--hint-accuracy Q] [--trace-slip S] [--slip-box B] [--eval-temperature T]
 *                  [--multiple-choice] [--variants a,b,…] [--estimator NAME] [--set VARIANT.KEY=VALUE]… [--dry-run] [--max-hours H]
 *                  [--option-skew S] [--distractors near|off-misread] [--misread M] [--index-binding B]
 *                  [--faint C]
 *   npm run lab -- --resume FILE [--steps N] [--out DIR] [--force] [--quiet] [--dry-run]
 *   npm run lab -- --seeds S1,S2,… [the sweep's flags] --resume DIR
 * --variants and the names in --set are the variant table's (src/settings/variant-table.ts);
 * --estimator sets the algorithm's advantage estimator (src/settings/estimator-table.ts: grpo,
 * grpo-stable, rloo, reinforce++, reinforce++-baseline); a variant with its own estimator
 * (StructReward: grpo-stable) keeps it unless --set VARIANT.estimator=NAME.
 * --set (repeatable) sets one weight (grr.lambda=0.5), judge setting (grr.delta=0.1),
 * estimator or beta of a variant in the run, checked by the variant's schema.
 * --multiple-choice asks the questions with options A–D (the final box holds the letter).
 * --reward FILE trains a written reward (the `user` variant, its code read from FILE, e.g.
 * examples/rewards/length-bonus.js) beside the listed variants.
 * --dry-run prints the experiment the flags give ({"preset", "experiment"}, one JSON
 * line, before the CPU-adapter model-size rule) and exits without training.
 * --trace-slip picks the cold start trained with slipped traces (Experiment task.traceSlipRate),
 * --slip-box (answer|hint|step) the one whose slipped traces box that (task.traceSlipBox);
 * --eval-temperature samples the held-out eval at T instead of greedy (Experiment.evalTemperature).
 * --option-skew puts the right option at A with probability S in the training prompts
 * (task.optionSkew; the held-out set is never skewed), --distractors the distractor rule
 * (task.distractorRule), --misread and --index-binding pick the cold start trained with
 * misread digits (the SCS scenario) or letter-bound traces (the ACRE scenario).
 * --faint draws one digit of every RL and held-out prompt at contrast C (task.faintContrast,
 * the SCS premise scenario); the cold start stays the same.
 * --checkpoint starts RL from that cold start (e.g. a `train:sft --snapshots`
 * file) instead of the shipped one; it must fit the preset's model size and task.
 * On a CPU adapter (SwiftShader) the small model is used unless --full-size.
 * With --out, DIR also gets each variant's final parameters as <variant>.ckpt
 * (a cold start for another run with --checkpoint), and the run snapshot
 * (src/run/snapshot.ts: every variant's parameters and AdamW state) is written
 * after every RL step to snapshot.rlsnap.partial (snapshot.rlsnap at the end).
 * --prm FILE reads the learned PRM of the `prm` variant from FILE instead of
 * the shipped public/prm file; a missing, corrupt or wrong-shaped PRM stops
 * only that variant (its entry in the JSON is {"stopped": message}).
 * --resume FILE continues such a snapshot (a crashed run's .partial one too)
 * with its own experiment up to --steps (default: the snapshot's); only
 * --steps, --out, --force, --quiet, --dry-run and --prm go with it. Paths and input files are
 * checked before any work. A DIR that already holds files (an earlier run) is
 * never written into: the run goes to the first free DIR/run-<n> instead,
 * unless --force. Metrics stream to metrics.jsonl.partial / metrics.csv.partial;
 * at the end every file is written under a temporary name and renamed into
 * place, so a failure leaves earlier files as they were (and this run's
 * progress in the .partial files).
 * --seeds trains every variant once per seed from the same cold start, one
 * seed-variant after another (a resumable sweep, src/cli/lab-sweep.ts: the
 * estimated run time before it starts, "seed-variant i of n … about T left"
 * on stderr after each); the JSON then gives each variant's final metrics
 * per seed and as the mean with a 95 % Student-t interval over seeds
 * (src/experiments/seed-stats.ts). With --out DIR the sweep's manifest
 * (sweep.json: settings, code version, cold start) is written first, each
 * finished seed-variant's rows and figures (units/) and checkpoint
 * (<variant>.s<seed>.ckpt) atomically as it ends, metrics.jsonl/.csv at the
 * end; a killed sweep loses at most the seed-variant in progress, and
 * `--resume DIR` with the same flags continues it (another setting, code
 * version or cold start is refused, naming it). The number of seeds is
 * limited by cost: a sweep whose estimated time is over --max-hours
 * (default 24) does not start, and says how many seeds fit.
 * Prints progress on stderr and ends with one JSON line on stdout:
 *   {"preset", "sft": {metrics}, "variants": {"<name>": {"final": {metrics}}}, "out"?: DIR}
 *   on failure: {"error": message, "out"?: DIR, "partial"?: [files]} (exit 1).
 *   with --seeds: {"preset", "seeds", "sft", "variants": {"<name>": {"final": {mean metrics},
 *   "ci95": {"<metric>": [lo, hi]}, "per_seed": {"<seed>": {metrics}}}}}
 */
import { RunController } from "../controller/run-controller";
import { presetExperiment } from "../settings/presets";
import { estimatorEntry } from "../settings/estimator-table";
import { variantEntry } from "../settings/variant-table";
import { VariantSchema } from "../settings/experiment";
import { applyVariantSetting } from "../settings/variant-settings";
import { createInProcessScorer } from "../rl/reward-contract";
import { PRM_FILE } from "../prm/file";
import { nodePrm } from "./node-prm";
import type { EvalMetrics } from "../rl/eval-metrics";
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { loadCheckpoint, saveCheckpoint, type Checkpoint } from "../model/checkpoint";
import { readCliFlags } from "../lib/cli-flags";
import { flagOfField } from "./experiment-flags";
import { givenFlags, parseExperimentFlags } from "./flag-errors";
import { LAB_TABLE } from "./lab-flags";
import { readRewardFile } from "../server/reward-file";
import { checkInputFile, chooseRunFolder, finishCli, RunFiles } from "./out-files";
import { consoleSink, nodeContext, REPO_ROOT, parseSeedList } from "./node-run";
import { finalMetrics, seedSweep } from "./lab-sweep";
import type { MetricRow } from "../run/run-types";
import { decodeSnapshot, encodeSnapshot, type RunSnapshot } from "../run/snapshot";

/** The experiment field each flag sets (for errors that name the flag). */
const FLAG_OF_FIELD = flagOfField(LAB_TABLE.flags);

/** The run's files (with --out), for the error line when the run fails. */
let runFiles: RunFiles | null = null;

/** Name of the run snapshot in the --out folder (src/run/snapshot.ts). */
const SNAPSHOT_FILE = "snapshot.rlsnap";
/** The flags that may go with --resume (the rest would change the snapshot's experiment). */
const WITH_RESUME = new Set(["resume", "steps", "out", "force", "quiet", "dry-run", "prm"]);

/**
 * The snapshot --resume names, read and checked before any work.
 * @throws Error naming a flag that cannot go with --resume, or the file and what is wrong in it.
 */
function readResume(file: string, given: readonly string[]): RunSnapshot {
  const clash = given.find((f) => !WITH_RESUME.has(f));
  if (clash)
    throw new Error(
      `--resume continues the snapshot's experiment; --${clash} cannot go with it (only --steps, --out, --force, --quiet, --dry-run and --prm can)`,
    );
  checkInputFile("--resume", file);
  try {
    return decodeSnapshot(new Uint8Array(readFileSync(file)));
  } catch (e) {
    throw new Error(`--resume ${file}: ${(e as Error).message}`);
  }
}

/** The run's events, gathered for the CLI: the first failure, and the step-0 and SFT eval rows. */
interface Driven {
  error: string | null;
  coldStartEval: MetricRow | null;
  lastSftEval: MetricRow | null;
}

/**
 * A RunController on Node: the device from nodeContext, the in-process scorer and
 * the site's files from public/ (a path may also be absolute, e.g. a
 * --checkpoint file). Its events go to `sink`; with `files`, the run's
 * snapshot is written after every RL step (snapshot.rlsnap.partial).
 */
function nodeTrainer(
  sink: ReturnType<typeof consoleSink>,
  files: RunFiles | null,
  fromStep: number,
  prmFile: string,
): { controller: RunController; driven: Driven } {
  const driven: Driven = { error: null, coldStartEval: null, lastSftEval: null };
  let written = fromStep;
  const controller: RunController = new RunController(
    {
      createContext: nodeContext,
      createScorer: () => createInProcessScorer(nodePrm(prmFile)),
      readAsset: async (path) => {
        const file = resolve(REPO_ROOT, "public", path);
        return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
      },
    },
    (ev) => {
      switch (ev.type) {
        case "metrics":
          for (const r of ev.rows)
            if (r.kind === "eval") {
              if (r.variant === "sft") driven.lastSftEval = r;
              else if (r.step === 0 && !driven.coldStartEval) driven.coldStartEval = r;
            }
          sink.metrics(ev.rows);
          return;
        case "marker":
          return sink.marker(ev.marker);
        case "log":
          return sink.log(ev.message);
        case "ready":
          if (ev.note) sink.log(ev.note);
          return;
        case "error":
          driven.error ??= ev.message;
          return;
        case "status":
          // The snapshot after every step: a crashed run resumes from it (--resume).
          if (files && ev.phase === "rl" && ev.step !== written && controller.snapshot) {
            written = ev.step;
            files.writeProgress(SNAPSHOT_FILE, encodeSnapshot(controller.snapshot));
          }
          return;
        default:
          return;
      }
    },
  );
  return { controller, driven };
}

/** Throws the first error the controller reported. */
function throwIfFailed(driven: Driven): void {
  if (driven.error !== null) throw new Error(driven.error);
}

async function main(): Promise<void> {
  const { flags, given: givenNames } = readCliFlags(LAB_TABLE);
  // --resume DIR continues a seed sweep (the same flags again); --resume FILE a run snapshot.
  const sweepDir =
    flags.resume !== undefined &&
    existsSync(String(flags.resume)) &&
    statSync(String(flags.resume)).isDirectory()
      ? String(flags.resume)
      : undefined;
  const resumed =
    flags.resume !== undefined && !sweepDir ? readResume(String(flags.resume), givenNames) : null;
  const preset = resumed ? "resume" : flags.preset;
  // Steps, seed and SFT steps go through the schema below with the other overrides.
  const exp = resumed ? structuredClone(resumed.experiment) : presetExperiment(preset);
  // A seed list is a sweep: one seed-variant at a time, so its length is not one run's side-by-side limit.
  let sweepSeeds: number[] | undefined;
  if (flags.seeds !== undefined) {
    if (flags.seed !== undefined) throw new Error("--seed and --seeds exclude each other");
    sweepSeeds = parseSeedList("seeds", String(flags.seeds));
  }
  // Overrides go through the schema, so a bad value gets the same error as a bad preset.
  const algo: Record<string, unknown> = {};
  if (flags.steps !== undefined) algo.steps = flags.steps;
  if (flags.lr !== undefined) algo.lr = flags.lr;
  if (flags.temperature !== undefined) algo.temperature = flags.temperature;
  if (flags["group-size"] !== undefined) algo.groupSize = flags["group-size"];
  if (flags["batch-prompts"] !== undefined) algo.batchPrompts = flags["batch-prompts"];
  if (flags["eval-every"] !== undefined) algo.evalEvery = flags["eval-every"];
  if (flags.estimator !== undefined) {
    const name = String(flags.estimator);
    try {
      estimatorEntry(name);
    } catch (e) {
      throw new Error(`--estimator: ${(e as Error).message}`);
    }
    algo.estimator = name;
  }
  const task: Record<string, unknown> = {};
  if (flags["hint-rate"] !== undefined) task.hintRate = flags["hint-rate"];
  if (flags["hint-accuracy"] !== undefined) task.hintAccuracy = flags["hint-accuracy"];
  if (flags["trace-slip"] !== undefined) task.traceSlipRate = flags["trace-slip"];
  if (flags["slip-box"] !== undefined) task.traceSlipBox = flags["slip-box"];
  if (flags["multiple-choice"]) task.multipleChoice = true;
  if (flags["option-skew"] !== undefined) task.optionSkew = flags["option-skew"];
  if (flags.distractors !== undefined) task.distractorRule = flags.distractors;
  if (flags.misread !== undefined) task.misreadRate = flags.misread;
  if (flags["index-binding"] !== undefined) task.indexBindingRate = flags["index-binding"];
  if (flags.faint !== undefined) task.faintContrast = flags.faint;
  // --variants a,b picks the preset's variants (or adds schema-default ones); names checked by the schema.
  const variantList =
    flags.variants !== undefined
      ? String(flags.variants)
          .split(",")
          .map(
            (n) =>
              exp.variants.find((v) => v.name === n.trim()) ?? {
                name: variantEntry(n.trim()).name,
              },
          )
      : exp.variants;
  const checked = parseExperimentFlags(
    {
      ...exp,
      seed: flags.seed ?? exp.seed,
      sftSteps: flags["sft-steps"] ?? exp.sftSteps,
      variants: variantList,
      task: { ...exp.task, ...task },
      algorithm: { ...exp.algorithm, ...algo },
      evalSize: flags["eval-size"] ?? exp.evalSize,
      evalTemperature: flags["eval-temperature"] ?? exp.evalTemperature,
    },
    givenFlags(FLAG_OF_FIELD, flags),
  );
  exp.seed = checked.seed;
  exp.sftSteps = checked.sftSteps;
  exp.algorithm = checked.algorithm;
  exp.evalSize = checked.evalSize;
  exp.evalTemperature = checked.evalTemperature;
  exp.task = checked.task;
  exp.variants = checked.variants;
  // --reward FILE: the written reward's code, in the user variant (added when --variants has
  // none); before --set, so that --set user.estimator=… applies to it.
  if (flags.reward !== undefined) {
    const code = readRewardFile(flags.reward);
    const user = exp.variants.find((v) => v.name === "user") ?? { name: "user" };
    const rest = exp.variants.filter((v) => v.name !== "user");
    exp.variants = [...rest, VariantSchema.parse({ ...user, weights: { code } })];
  }
  for (const setting of flags.set) {
    try {
      exp.variants = applyVariantSetting(exp.variants, setting);
    } catch (e) {
      throw new Error(`--set ${(e as Error).message}`);
    }
  }
  if (resumed && exp.algorithm.steps <= resumed.step)
    throw new Error(
      `--resume: the snapshot is at step ${resumed.step}; with --steps ${exp.algorithm.steps} there is nothing to train`,
    );
  if (flags["dry-run"]) {
    const experiment = sweepSeeds ? { ...exp, seeds: sweepSeeds } : exp;
    process.stdout.write(`${JSON.stringify({ preset, experiment })}\n`);
    return;
  }
  // Inputs and the output folder are checked before any work.
  if (flags["from-scratch"] && flags.checkpoint)
    throw new Error("--from-scratch and --checkpoint exclude each other");
  let given: Checkpoint | null = null;
  if (flags.checkpoint !== undefined) {
    checkInputFile("--checkpoint", String(flags.checkpoint));
    try {
      given = loadCheckpoint(new Uint8Array(readFileSync(String(flags.checkpoint))));
    } catch (e) {
      throw new Error(`--checkpoint ${String(flags.checkpoint)}: ${(e as Error).message}`);
    }
  }
  if (sweepDir && !sweepSeeds)
    throw new Error(
      `--resume ${sweepDir} is a folder: it continues a seed sweep, so give the sweep's flags again (--seeds and the rest); a run snapshot is a file`,
    );
  if (sweepSeeds)
    return seedSweep({
      exp,
      seeds: sweepSeeds,
      preset,
      flags,
      given,
      resumeDir: sweepDir,
      flagOfField: FLAG_OF_FIELD,
    });
  if (flags.out !== undefined) {
    const out = chooseRunFolder("--out", String(flags.out), Boolean(flags.force));
    runFiles = new RunFiles(out.dir);
  }
  const sink = consoleSink(runFiles ?? undefined, Boolean(flags.quiet));
  if (runFiles && runFiles.dir !== String(flags.out))
    sink.log(
      `--out ${String(flags.out)} holds an earlier run's files; this run goes to ${runFiles.dir} (--force writes into the folder itself)`,
    );
  if (given?.warning) sink.log(`--checkpoint: ${given.warning}`);
  for (const v of exp.variants)
    if (v.estimator !== undefined && v.estimator !== exp.algorithm.estimator)
      sink.log(
        `note: ${v.name} trains with its own estimator ${v.estimator} (--set ${v.name}.estimator=${exp.algorithm.estimator} to change)`,
      );
  const { controller, driven } = nodeTrainer(
    sink,
    runFiles,
    resumed?.step ?? 0,
    flags.prm !== undefined ? resolve(String(flags.prm)) : resolve(REPO_ROOT, "public", PRM_FILE),
  );
  if (resumed)
    await controller.send({
      type: "init",
      experiment: exp,
      resume: encodeSnapshot({ ...resumed, experiment: exp }),
      evalColdStart: true,
    });
  else
    await controller.send({
      type: "init",
      experiment: exp,
      checkpoint: flags.checkpoint !== undefined ? resolve(String(flags.checkpoint)) : undefined,
      keepModelSize: Boolean(flags["full-size"]),
      fromScratch: Boolean(flags["from-scratch"]),
      sftEvalEvery: 0,
    });
  throwIfFailed(driven);
  let run = controller.run!;
  const ckpt = controller.coldStartCheckpoint;
  const ctx = controller.context!;
  sink.log(`adapter: ${ctx.adapter.description}${ctx.adapter.isFallback ? " (CPU fallback)" : ""}`);
  if (run.experiment.modelSize !== exp.modelSize)
    sink.log("Pass --full-size to keep the default d = 128, 4 layers.");
  exp.modelSize = run.experiment.modelSize;
  sink.log(
    resumed
      ? `model: ${run.paramCount} parameters, resumed from ${String(flags.resume)} at step ${resumed.step}`
      : `model: ${run.paramCount} parameters, ${ckpt ? `cold start from ${flags.checkpoint ? String(flags.checkpoint) : "the shipped SFT checkpoint"}${ckpt.meta?.step !== undefined ? ` (SFT step ${ckpt.meta.step})` : ""}` : `SFT from scratch (${exp.sftSteps} steps)`}`,
  );
  await controller.send({ type: "start" });
  await controller.whenIdle();
  throwIfFailed(driven);
  // A lost device rebuilds the run: take the one that finished.
  run = controller.run!;
  if (run.step < exp.algorithm.steps)
    throw new Error(`the run stopped at step ${run.step} of ${exp.algorithm.steps}`);
  // The cold start's metrics: SFT's final eval when it ran, else the step-0 eval.
  const sftRow = ckpt || resumed ? driven.coldStartEval : driven.lastSftEval;
  if (!sftRow) throw new Error("the run has no eval of its cold start");
  const sft = sftRow.values as unknown as EvalMetrics;
  const variants: Record<string, ReturnType<typeof finalMetrics> | { stopped: string }> = {};
  // Every output is serialized before the first one is written (all or none).
  const outputs: { name: string; data: Uint8Array }[] = [];
  for (const name of run.variantNames) {
    // A variant stopped by its PRM file (the others trained on): its reason instead of metrics.
    const stopped = [...run.stoppedVariants].find(([key]) => key.startsWith(`${name}|`));
    if (stopped) {
      variants[name] = { stopped: stopped[1] };
      continue;
    }
    variants[name] = finalMetrics(sink.rows, name, exp.seeds);
    if (runFiles) {
      for (const seed of run.seeds) {
        const meta = {
          variant: name,
          rlSteps: exp.algorithm.steps,
          seed,
          preset,
          coldStartStep: ckpt?.meta?.step,
          task: exp.task,
        };
        const file = exp.seeds ? `${name}.s${seed}.ckpt` : `${name}.ckpt`;
        const params = await run.variantParams(name, seed);
        try {
          outputs.push({ name: file, data: saveCheckpoint({ config: run.config, params, meta }) });
        } catch (e) {
          throw new Error(`${file}: ${(e as Error).message}`);
        }
      }
    }
  }
  await controller.dispose();
  const outDir = runFiles?.dir;
  if (runFiles) {
    runFiles.commit(outputs);
    runFiles = null;
  }
  process.stdout.write(
    `${JSON.stringify({
      ...(exp.seeds ? { preset, seeds: exp.seeds, sft, variants } : { preset, sft, variants }),
      ...(outDir !== undefined ? { out: outDir } : {}),
    })}\n`,
  );
}

finishCli("lab", main(), () =>
  runFiles ? { out: runFiles.dir, partial: runFiles.abandon() } : {},
);
