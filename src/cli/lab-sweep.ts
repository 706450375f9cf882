/**
 * `lab --seeds …` as a resumable sweep (src/run/sweep.ts): every variant
 * under every seed trained from the same cold start, one seed-variant after
 * another, each from the cold start to the last step. Units, in order:
 *   sft               SFT from scratch, when the run has no cold start (its
 *                     result goes to DIR/cold-start.ckpt)
 *   start.s<seed>     the cold start's held-out eval under the seed
 *   rl.s<seed>.<v>    one seed-variant; with --out its final parameters go
 *                     to DIR/<v>.s<seed>.ckpt as it ends
 * A seed-variant trained alone gives the rows it gives beside the others
 * (its prompts, rollouts and judge noise are functions of its seed and step
 * only), so the JSON is the one the side-by-side run printed.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { loadCheckpoint, saveCheckpoint, type Checkpoint } from "../model/checkpoint";
import type { EvalMetrics } from "../rl/eval-metrics";
import { parseExperiment, type Experiment } from "../settings/experiment";
import type { MnistSubset } from "../tasks/mnist-data";
import type { MetricRow, RunSink } from "../run/run-types";
import {
  DEFAULT_MAX_HOURS,
  formatDuration,
  memoryStore,
  runSweep,
  sittingSeconds,
  type SweepStore,
  type SweepUnit,
} from "../run/sweep";
import { resolveColdStart } from "../run/cold-start";
import { createInProcessScorer } from "../rl/reward-contract";
import { summarizeSeeds } from "../experiments/seed-stats";
import { bestEval } from "../experiments/best-checkpoint";
import { PRM_FILE } from "../prm/file";
import { codeVersion, fileSha256 } from "./code-version";
import { chooseRunFolder, writeFileAtomic } from "./out-files";
import {
  checkpointFile,
  consoleSink,
  METRICS_CSV_HEADER,
  metricsCsvLines,
  mnistFor,
  nodeContext,
  REPO_ROOT,
} from "./node-run";
import { nodePrm } from "./node-prm";
import { openSweepFolder, type SweepManifest } from "./sweep-folder";
import { CANARY_SEED, canaryExperiment, canaryValues } from "./sweep-canary";
import { type SeedVariantResult, SweepDevice, type UnitStart } from "./sweep-device";

/** A lab sweep unit's stored result. */
type LabUnitValue =
  | { sft: { sha256: string; eval: Record<string, number> } }
  | { coldStart: Record<string, number> }
  | SeedVariantResult;

/** Name of SFT's result in the sweep folder (when the sweep starts from scratch). */
const COLD_START_FILE = "cold-start.ckpt";

const safe = (s: string) => s.toLowerCase().replace(/[^a-z0-9._-]/g, "_");

/** Is `v` a stored lab unit value (untrusted JSON)? Checks the shape the sweep reads. */
function isLabUnitValue(v: unknown): v is LabUnitValue {
  if (v === null || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  const numbers = (x: unknown) =>
    x !== null &&
    typeof x === "object" &&
    !Array.isArray(x) &&
    Object.values(x).every((n) => typeof n === "number");
  if (o.sft !== undefined) {
    const s = o.sft as Record<string, unknown>;
    return s !== null && typeof s === "object" && typeof s.sha256 === "string" && numbers(s.eval);
  }
  if (o.coldStart !== undefined) return numbers(o.coldStart);
  return (
    Array.isArray(o.rows) &&
    o.rows.every(
      (r) =>
        r !== null &&
        typeof r === "object" &&
        typeof (r as MetricRow).variant === "string" &&
        Number.isInteger((r as MetricRow).step) &&
        numbers((r as MetricRow).values),
    ) &&
    (o.final === null || numbers(o.final)) &&
    (o.stopped === undefined || typeof o.stopped === "string")
  );
}

/** What the lab sweep gives the CLI's JSON and files. */
interface LabSweepResult {
  /** Every row, seed-major, variants in the experiment's order, step 0 first. */
  rows: MetricRow[];
  /** The cold start's metrics: SFT's final eval when it ran, else the first seed's step-0 eval. */
  sft: EvalMetrics;
  /** Variants stopped for good under some seed (a PRM file error), with the reason. */
  stopped: Map<string, string>;
  /** The cold start's config and parameters (for the variants' checkpoint metadata). */
  coldStart: { config: Checkpoint["config"]; params: Float32Array };
}

/**
 * Runs (or continues, from `store`) the lab sweep of `exp` under every seed
 * of `seeds` on `device`; prints the estimated run time before the first
 * seed-variant and the progress after each. The sitting stops cleanly
 * before the first unit that would not end within `maxHours` (src/run/sweep.ts).
 * @param coldStart the cold start, or null: SFT from scratch first (unit `sft`).
 * @param outDir the sweep folder, or undefined (nothing written).
 * @param checkpointMeta each variant checkpoint's metadata (with --out).
 * @returns the sweep's rows, or how many units are done and left when the sitting ended first.
 * @throws Error from a unit; a stored SFT result whose file is gone or changed;
 *   --max-hours not a number > 0.
 */
async function runLabSweep(args: {
  /** The experiment of each seed (Experiment.seeds absent). */
  exp: Experiment;
  seeds: number[];
  /** Hours this sitting runs. */
  maxHours: number;
  coldStart: Checkpoint | null;
  mnist: MnistSubset | undefined;
  device: SweepDevice;
  sink: RunSink;
  store: SweepStore<LabUnitValue>;
  report: (line: string) => void;
  outDir?: string;
  checkpointMeta: (variant: string, seed: number) => Record<string, unknown>;
  /** Key of the cold start's shared engine on `device` (the canary's is its own: its cold start may differ). */
  startKey?: string;
}): Promise<LabSweepResult | { paused: { done: number; left: number } }> {
  const key = args.startKey ?? "run";
  const { exp, device, store, mnist } = args;
  const budget = sittingSeconds(args.maxHours);
  const began = performance.now();
  const seeds = args.seeds;
  const ids = (seed: number, v: string) => `rl.s${seed}.${safe(v)}`;
  // The cold start: given, or SFT's result (made by the `sft` unit, or read back from the folder).
  let start: UnitStart | null = args.coldStart
    ? { key, config: args.coldStart.config, params: args.coldStart.params }
    : null;
  let sftEval: EvalMetrics | null = null;
  if (!start) {
    const units: SweepUnit<LabUnitValue>[] = [
      {
        id: "sft",
        kind: "seed",
        label: `SFT from scratch (${exp.sftSteps} steps)`,
        run: async () => {
          const made = await device.sftFromScratch(exp, mnist);
          const bytes = saveCheckpoint({
            config: made.config,
            params: made.params,
            meta: { step: exp.sftSteps, seed: exp.seed, task: exp.task },
          });
          if (args.outDir) writeFileAtomic(join(args.outDir, COLD_START_FILE), bytes);
          start = { key, config: made.config, params: made.params };
          return { sft: { sha256: fileSha256(bytes), eval: { ...made.eval } } };
        },
      },
    ];
    const done = await runSweep(units, store, args.report, {}, budget);
    if (!done.complete) return { paused: { done: done.done, left: done.left } };
    const sft = done.results.get("sft") as Extract<LabUnitValue, { sft: unknown }>;
    sftEval = sft.sft.eval as EvalMetrics;
    if (!start) start = readColdStart(args.outDir, sft.sft.sha256);
  }
  const from = start as UnitStart;
  const units: SweepUnit<LabUnitValue>[] = [];
  for (const seed of seeds)
    units.push({
      id: `start.s${seed}`,
      kind: "seed",
      label: `seed ${seed}, cold-start eval`,
      // Greedy decoding is the same for every seed (the first seed's eval, as LabRun.evalStart).
      run: async () => ({
        coldStart: await device.coldStartEval(
          exp,
          from,
          mnist,
          exp.evalTemperature > 0 ? seed : seeds[0],
        ),
      }),
    });
  for (const seed of seeds)
    for (const v of exp.variants)
      units.push({
        id: ids(seed, v.name),
        kind: "seed-variant",
        label: `seed ${seed}, ${v.name}`,
        run: async () => {
          const cold = store.load(`start.s${seed}`);
          if (!cold || !("coldStart" in cold))
            throw new Error(`lab sweep: the cold-start eval of seed ${seed} is missing`);
          return device.trainSeedVariant({
            exp: parseExperiment({ ...exp, seeds: [seed], variants: [v] }),
            start: from,
            mnist,
            coldStart: cold.coldStart as EvalMetrics,
            whenDone: async (run) => {
              if (!args.outDir || run.stoppedVariants.size > 0) return;
              const params = await run.variantParams(v.name, seed);
              const bytes = saveCheckpoint({
                config: run.config,
                params,
                meta: args.checkpointMeta(v.name, seed),
              });
              writeFileAtomic(join(args.outDir, `${v.name}.s${seed}.ckpt`), bytes);
            },
          });
        },
      });
  const left = units.filter((u) => store.load(u.id) === undefined);
  const svLeft = left.filter((u) => u.kind === "seed-variant").length;
  let prior = {};
  if (svLeft > 0) {
    const cost = await device.measureStep(exp, from, mnist, seeds[0]);
    const a = exp.algorithm;
    const evals = Array.from({ length: a.steps }, (_, i) => i + 1).filter(
      (s) => s % a.evalEvery === 0 || s === a.steps,
    ).length;
    const seedVariant = a.steps * cost.stepSeconds + evals * cost.evalSeconds;
    const total = svLeft * seedVariant + (left.length - svLeft) * cost.evalSeconds;
    const sittings = Math.max(1, Math.ceil(total / budget));
    args.report(
      `[sweep] estimated run time: about ${formatDuration(total)} for ${svLeft} seed-variants (${a.steps} RL steps and ${evals} eval${evals === 1 ? "" : "s"} each), from one RL step (${cost.stepSeconds.toFixed(1)} s) and one ${exp.evalSize}-prompt eval (${cost.evalSeconds.toFixed(1)} s) measured on this device just now; ${sittings === 1 ? "one sitting" : `${sittings} sittings`} of --max-hours ${args.maxHours}`,
    );
    prior = { "seed-variant": seedVariant, seed: cost.evalSeconds };
  }
  const spent = (performance.now() - began) / 1000;
  const outcome = await runSweep(units, store, args.report, prior, Math.max(0, budget - spent));
  if (!outcome.complete) return { paused: { done: outcome.done, left: outcome.left } };
  const results = outcome.results;
  const rows: MetricRow[] = [];
  const stopped = new Map<string, string>();
  for (const seed of seeds)
    for (const v of exp.variants) {
      const r = results.get(ids(seed, v.name)) as SeedVariantResult;
      rows.push(...r.rows);
      if (r.stopped !== undefined && !stopped.has(v.name)) stopped.set(v.name, r.stopped);
    }
  const first = results.get(`start.s${seeds[0]}`) as Extract<LabUnitValue, { coldStart: unknown }>;
  return {
    rows,
    sft: sftEval ?? (first.coldStart as EvalMetrics),
    stopped,
    coldStart: { config: from.config, params: from.params },
  };
}

/**
 * SFT's result read back from the folder of a resumed sweep.
 * @throws Error when the file is missing or is not the one the sweep made.
 */
function readColdStart(dir: string | undefined, sha256: string): UnitStart {
  const file = dir ? join(dir, COLD_START_FILE) : "";
  if (!dir || !existsSync(file))
    throw new Error(
      `--resume ${dir}: ${COLD_START_FILE} (SFT's result) is missing from the folder`,
    );
  const bytes = new Uint8Array(readFileSync(file));
  if (fileSha256(bytes) !== sha256)
    throw new Error(
      `--resume ${dir}: ${COLD_START_FILE} is not the SFT result the sweep made (its SHA-256 differs)`,
    );
  const c = loadCheckpoint(bytes);
  return { key: "run", config: c.config, params: c.params };
}

/** Mean and 95 % t-interval of every key over the seeds' values. */
function seedMeans(perSeed: Record<string, Record<string, number>>, seeds: number[]) {
  const keys = Object.keys(perSeed[String(seeds[0])]);
  const mean: Record<string, number> = {};
  const ci95: Record<string, [number, number]> = {};
  for (const k of keys) {
    const sum = summarizeSeeds(seeds.map((s) => perSeed[String(s)][k]));
    mean[k] = sum.mean;
    ci95[k] = sum.ci95;
  }
  return { mean, ci95 };
}

/** Label of `best_every_10` in the JSON (SCS App. A). */
const BEST_PROTOCOL =
  "SCS App. A: the eval at a multiple of 10 steps with the highest held-out Acc (selected on the reported eval)";

/**
 * Final eval metrics of one variant: per seed, and (several seeds) mean with
 * a 95 % t-interval; beside them `best_every_10`, SCS App. A's protocol (the
 * eval at a multiple of 10 steps with the highest Acc,
 * src/experiments/best-checkpoint.ts), absent when no eval falls on one.
 */
export function finalMetrics(
  rows: readonly MetricRow[],
  name: string,
  seeds: number[] | undefined,
) {
  const lastOf = (seed: number | undefined) =>
    [...rows].reverse().find((r) => r.variant === name && r.kind === "eval" && r.seed === seed)!
      .values;
  const bestOf = (seed: number | undefined) => bestEval(rows, name, seed);
  if (!seeds) {
    const best = bestOf(undefined);
    return {
      final: lastOf(undefined) as unknown as EvalMetrics,
      ...(best && { best_every_10: { protocol: BEST_PROTOCOL, ...best } }),
    };
  }
  const perSeed = Object.fromEntries(seeds.map((s) => [String(s), lastOf(s)]));
  const { mean: final, ci95 } = seedMeans(perSeed, seeds);
  const bests = seeds.map((s) => bestOf(s));
  if (bests.some((b) => b === null)) return { final, ci95, per_seed: perSeed };
  const bestPerSeed = Object.fromEntries(seeds.map((s, i) => [String(s), bests[i]!.values]));
  const best = seedMeans(bestPerSeed, seeds);
  return {
    final,
    ci95,
    per_seed: perSeed,
    best_every_10: {
      protocol: BEST_PROTOCOL,
      steps: Object.fromEntries(seeds.map((s, i) => [String(s), bests[i]!.step])),
      values: best.mean,
      ci95: best.ci95,
      per_seed: bestPerSeed,
    },
  };
}

/**
 * `lab --seeds …`: every variant under every seed, one seed-variant after
 * another (src/cli/lab-sweep.ts). With --out DIR (a new folder; one that
 * holds files gets DIR/run-<n>) the sweep's manifest goes there first, each
 * finished seed-variant's rows and figures (units/) and checkpoint
 * (<variant>.s<seed>.ckpt) as it ends, and metrics.jsonl / metrics.csv at
 * the end; --resume DIR continues it with the same flags.
 */
export async function seedSweep(args: {
  /** The experiment of each seed (Experiment.seeds absent). */
  exp: Experiment;
  seeds: number[];
  preset: string;
  flags: Record<string, unknown>;
  /** The --checkpoint file, read and checked. */
  given: Checkpoint | null;
  resumeDir: string | undefined;
  /** The flag that sets each experiment field (src/cli/lab.ts), to name a setting that differs on resume. */
  flagOfField: Readonly<Record<string, string>>;
}): Promise<void> {
  const { exp, seeds, preset, flags, given, resumeDir } = args;
  const quiet = Boolean(flags.quiet);
  const sink = consoleSink(undefined, quiet);
  let dir = resumeDir;
  if (!dir && flags.out !== undefined) {
    dir = chooseRunFolder("--out", String(flags.out), false).dir;
    if (dir !== String(flags.out))
      sink.log(
        `--out ${String(flags.out)} holds an earlier run's files; this sweep goes to ${dir}`,
      );
  }
  const prmFile =
    flags.prm !== undefined ? resolve(String(flags.prm)) : resolve(REPO_ROOT, "public", PRM_FILE);
  const device = new SweepDevice(nodeContext, sink, createInProcessScorer(nodePrm(prmFile)));
  const ctx = await device.context();
  sink.log(`adapter: ${ctx.adapter.description}${ctx.adapter.isFallback ? " (CPU fallback)" : ""}`);
  const mnist = mnistFor(exp);
  let source: string | null = null;
  let bytes: Uint8Array | null = null;
  const cold = await resolveColdStart({
    experiment: exp,
    adapter: ctx.adapter,
    keepModelSize: Boolean(flags["full-size"]),
    mnist,
    readCheckpoint: (e) => {
      if (flags["from-scratch"]) return null;
      const file = flags.checkpoint !== undefined ? String(flags.checkpoint) : checkpointFile(e);
      if (!given && !existsSync(file)) return null;
      bytes = new Uint8Array(readFileSync(file));
      source = relativeToRepo(file);
      return { checkpoint: given ?? loadCheckpoint(bytes), source: file };
    },
  });
  for (const note of [...(cold.sizeNote ? [cold.sizeNote] : []), ...cold.notes]) sink.log(note);
  const run = cold.experiment;
  const ckpt = cold.checkpoint?.checkpoint ?? null;
  const manifest: SweepManifest = {
    format: "reward-lab-sweep",
    version: 1,
    command: "lab",
    settings: { preset, seeds, experiment: run, fullSize: Boolean(flags["full-size"]) },
    code: codeVersion(),
    coldStarts: {
      run:
        bytes && source
          ? { source, sha256: fileSha256(bytes) }
          : { source: `SFT from scratch (${COLD_START_FILE})`, sha256: "made by the sweep" },
    },
  };
  const flagOf = (path: string) => {
    const field = path.replace(/^experiment\./, "");
    if (field.startsWith("variants")) return "--variants / --set";
    if (path === "seeds") return "--seeds";
    return path === "preset" ? "--preset" : args.flagOfField[field];
  };
  const report = (line: string) => console.error(line);
  // The canary: this sweep at the canary's size under CANARY_SEED, in memory (src/cli/sweep-canary.ts).
  const canary = async () => {
    const small = canaryExperiment(run);
    const r = await runLabSweep({
      exp: small,
      seeds: [CANARY_SEED],
      maxHours: DEFAULT_MAX_HOURS,
      coldStart: ckpt,
      mnist,
      device,
      sink,
      store: memoryStore<LabUnitValue>(),
      report: () => {},
      checkpointMeta: () => ({}),
      startKey: "canary",
    });
    if ("paused" in r) throw new Error("the canary ran out of time");
    return canaryValues(new Map([["canary", { rows: r.rows, sft: { eval: r.sft } }]]));
  };
  const store = dir
    ? await openSweepFolder({
        dir,
        mode: resumeDir ? "resume" : "new",
        manifest,
        isValue: isLabUnitValue,
        canary,
        report,
        flagOf,
      })
    : memoryStore<LabUnitValue>();
  sink.log(
    `model: ${run.modelSize}; cold start ${source ?? `SFT from scratch (${run.sftSteps} steps)`}; ${seeds.length} seeds × ${run.variants.length} variants`,
  );
  const outcome = await runLabSweep({
    exp: run,
    seeds,
    maxHours: (flags["max-hours"] as number | undefined) ?? DEFAULT_MAX_HOURS,
    coldStart: ckpt,
    mnist,
    device,
    sink,
    store,
    report,
    outDir: dir,
    checkpointMeta: (variant, seed) => ({
      variant,
      rlSteps: run.algorithm.steps,
      seed,
      preset,
      coldStartStep: ckpt?.meta?.step,
      task: run.task,
    }),
  });
  device.dispose();
  if ("paused" in outcome) {
    // A sitting's end (--max-hours): every finished unit is in the folder; no metrics files yet.
    const { done, left } = outcome.paused;
    sink.log(
      `lab: this sitting ran out of --max-hours with ${left} units left (${done} done)${dir ? `; continue with the same command and --resume ${dir}` : " and no --out folder, so nothing is kept"}`,
    );
    process.stdout.write(
      `${JSON.stringify({ preset, seeds, sweep: { complete: false, done, left }, ...(dir !== undefined ? { out: dir } : {}) })}\n`,
    );
    return;
  }
  const result = outcome;
  const variants: Record<string, ReturnType<typeof finalMetrics> | { stopped: string }> = {};
  for (const v of run.variants) {
    const stopped = result.stopped.get(v.name);
    variants[v.name] =
      stopped !== undefined ? { stopped } : finalMetrics(result.rows, v.name, seeds);
  }
  if (dir) {
    writeFileAtomic(
      resolve(dir, "metrics.jsonl"),
      result.rows.map((r) => `${JSON.stringify(r)}\n`).join(""),
    );
    writeFileAtomic(
      resolve(dir, "metrics.csv"),
      METRICS_CSV_HEADER + result.rows.map(metricsCsvLines).join(""),
    );
  }
  process.stdout.write(
    `${JSON.stringify({
      preset,
      seeds,
      sft: result.sft,
      variants,
      ...(dir !== undefined ? { out: dir } : {}),
    })}\n`,
  );
}

/** A path relative to the repository root when it lies inside it (stable across checkouts). */
function relativeToRepo(file: string): string {
  const rel = relative(REPO_ROOT, resolve(file));
  return rel.startsWith("..") ? resolve(file) : rel;
}
