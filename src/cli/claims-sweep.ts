/**
 * The runs behind `claims`, as a resumable sweep (src/run/sweep.ts): for
 * each task the selected claims need (ClaimSpec.task: the default scenario,
 * or multiple choice), one experiment with every variant they name under
 * every seed, from one cold start. Its units, in order:
 *   stability.<task>.s<seed>        the judge-stability sweep on the seed's cold-start rollouts
 *   start.<task>.s<seed>            the cold start's held-out eval under the seed
 *   rl.<task>.s<seed>.<variant>     one seed-variant trained from the cold start to the last step
 * A seed-variant trained alone gives the rows it gives in a multi-seed run
 * (its prompts, rollouts and judge noise are functions of its seed and step
 * only; test/cli/claims-golden.test.ts). Claims and sizes are data here:
 * what to run follows from the claims table (src/experiments/claims.ts)
 * and the size's values, so a new claim or size needs nothing in this file.
 */
import type { Checkpoint } from "../model/checkpoint";
import type { ClaimInputs, ClaimSpec, StabilityPoint } from "../experiments/claims";
import { stabilityReport } from "../experiments/stability-study";
import type { EvalMetrics } from "../rl/eval-metrics";
import { DEFAULT_AUDITOR } from "../rewards/auditor-judge";
import { parseExperiment, type Experiment, type VariantName } from "../settings/experiment";
import type { MetricRow, RunSink } from "../run/run-types";
import {
  checkTimeBudget,
  formatDuration,
  runSweep,
  type SweepStore,
  type SweepUnit,
} from "../run/sweep";
import { mnistFor } from "./node-run";
import type { SeedVariantResult, SweepDevice, UnitStart } from "./sweep-device";

/** The values of a claims size the runs read (src/cli/claims.ts CLAIM_SIZES). */
export interface ClaimsSweepSize {
  steps: number;
  groupSize: number;
  batchPrompts: number;
  evalEvery: number;
  evalSize: number;
  lr: number;
  stabilityPrompts: number;
  stabilityRepeats: number;
}

/** The runs claims come from (ClaimSpec.task; absent = the default scenario's). */
const TASK_KEYS = ["default", "multiple-choice"] as const;
export type TaskKey = (typeof TASK_KEYS)[number];
export const taskOf = (c: ClaimSpec): TaskKey => c.task ?? "default";

/** One task's run: its claims, experiment (every variant; the seeds are the sweep's) and cold start. */
export interface ClaimsTaskRun {
  task: TaskKey;
  claims: ClaimSpec[];
  variants: VariantName[];
  experiment: Experiment;
  checkpoint: Checkpoint;
  /** Where the cold start was read (a path), for the manifest and the log. */
  source: string;
  stability: boolean;
}

/** A unit's stored result. */
export type ClaimsUnitValue =
  | { stability: StabilityPoint[] }
  | { coldStart: Record<string, number> }
  | SeedVariantResult;

/**
 * The runs the claims need, one per task, in TASK_KEYS order.
 * @param coldStart the cold start of a task's experiment and where it was read, or null when there is none.
 * @throws Error when a task that claims need has no cold start.
 */
export function planClaimRuns(
  claims: readonly ClaimSpec[],
  order: readonly ClaimSpec[],
  size: ClaimsSweepSize,
  coldStart: (task: TaskKey, exp: Experiment) => { checkpoint: Checkpoint; source: string } | null,
): ClaimsTaskRun[] {
  const variantOrder = order.flatMap((c) => c.variants);
  const out: ClaimsTaskRun[] = [];
  for (const task of TASK_KEYS) {
    const group = claims.filter((c) => !c.notRunnable && taskOf(c) === task);
    if (group.length === 0) continue;
    const variants = [...new Set(group.flatMap((c) => c.variants))].sort(
      (a, b) => variantOrder.indexOf(a) - variantOrder.indexOf(b),
    ) as VariantName[];
    const mc = task === "multiple-choice";
    // One seed's experiment: the sweep runs each seed-variant alone (seedVariantExperiment).
    const experiment = parseExperiment({
      modelSize: "small",
      ...(mc ? { task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 } } : {}),
      // A run with no RL variant (stability only) still needs one to build.
      variants: (variants.length ? variants : ["rlvr"]).map((name) =>
        mc ? { name, estimator: "grpo" } : { name },
      ),
      algorithm: {
        steps: size.steps,
        groupSize: size.groupSize,
        batchPrompts: size.batchPrompts,
        evalEvery: size.evalEvery,
        lr: size.lr,
      },
      evalSize: size.evalSize,
    });
    const cold = coldStart(task, experiment);
    if (!cold)
      throw new Error(
        `no shipped cold-start checkpoint for the ${task} claims' task (public/checkpoints); make it with npm run train:sft`,
      );
    out.push({
      task,
      claims: group,
      variants,
      experiment,
      ...cold,
      stability: group.some((c) => c.stability),
    });
  }
  return out;
}

/** The experiment of one seed and one variant of a task's run (a seed-variant unit). */
function seedVariantExperiment(exp: Experiment, seed: number, variant: string): Experiment {
  return parseExperiment({
    ...exp,
    seeds: [seed],
    variants: exp.variants.filter((v) => v.name === variant),
  });
}

const safe = (s: string) => s.toLowerCase().replace(/[^a-z0-9._-]/g, "_");

/** Is `v` a stored claims unit value (untrusted JSON)? */
export function isClaimsUnitValue(v: unknown): v is ClaimsUnitValue {
  if (v === null || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  if (Array.isArray(o.stability))
    return o.stability.every((p) => p !== null && typeof p === "object");
  if (o.coldStart !== undefined) return isNumberRecord(o.coldStart);
  return (
    Array.isArray(o.rows) &&
    o.rows.every(isMetricRow) &&
    (o.final === null || isNumberRecord(o.final)) &&
    (o.stopped === undefined || typeof o.stopped === "string")
  );
}

function isNumberRecord(v: unknown): v is Record<string, number> {
  return (
    v !== null &&
    typeof v === "object" &&
    !Array.isArray(v) &&
    Object.values(v).every((x) => typeof x === "number")
  );
}

function isMetricRow(v: unknown): v is MetricRow {
  if (v === null || typeof v !== "object") return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.variant === "string" &&
    Number.isInteger(r.step) &&
    typeof r.time === "number" &&
    (r.kind === "train" || r.kind === "eval") &&
    isNumberRecord(r.values) &&
    (r.seed === undefined || Number.isInteger(r.seed))
  );
}

/**
 * Runs (or, from `store`, continues) the claims' sweep on `device` and
 * gathers each task's inputs: its rows (every seed-variant's, seed-major,
 * variants in the experiment's order, step 0 first) and stability points.
 * Before the first unit it measures one RL step of each variant and one
 * eval on the device and prints the run's estimated time.
 * @param sigmaBs σ_b values of the stability sweep (σ_j and δ at the auditor's defaults).
 */
export async function runClaimsSweep(args: {
  runs: readonly ClaimsTaskRun[];
  size: ClaimsSweepSize;
  seeds: number[];
  sigmaBs: readonly number[];
  /** The sweep does not start when its estimated time is over this many hours. */
  maxHours: number;
  device: SweepDevice;
  sink: RunSink;
  store: SweepStore<ClaimsUnitValue>;
  report: (line: string) => void;
}): Promise<Map<TaskKey, ClaimInputs>> {
  const { device, sink, seeds, size } = args;
  const units: SweepUnit<ClaimsUnitValue>[] = [];
  const starts = new Map<TaskKey, UnitStart>();
  for (const run of args.runs) {
    const exp = run.experiment;
    const mnist = mnistFor(exp);
    const start: UnitStart = {
      key: run.task,
      config: run.checkpoint.config,
      params: run.checkpoint.params,
    };
    starts.set(run.task, start);
    if (run.stability)
      for (const seed of seeds)
        units.push({
          id: `stability.${run.task}.s${seed}`,
          kind: "seed",
          label: `${run.task}, seed ${seed}, judge stability`,
          run: () =>
            device.withDevice(async () => {
              const one = seedVariantExperiment(exp, seed, exp.variants[0].name);
              const r = await device.run(one, start, mnist, sink);
              try {
                const rep = await stabilityReport(r, {
                  prompts: size.stabilityPrompts,
                  groupSize: size.groupSize,
                  seed,
                  repeats: size.stabilityRepeats,
                  settings: args.sigmaBs.map((sigmaB) => ({
                    sigmaB,
                    sigmaJ: DEFAULT_AUDITOR.sigmaJ,
                    delta: DEFAULT_AUDITOR.delta,
                  })),
                });
                sink.log(
                  `[stability] seed ${seed}: ${rep.settings.map((s) => `σ_b ${s.judge.sigmaB}: pointwise ${s.pointwise.toFixed(4)} groupwise ${s.groupwise.toFixed(4)}`).join("; ")}`,
                );
                return {
                  stability: rep.settings.map((s) => ({
                    ...s.judge,
                    pointwise: s.pointwise,
                    groupwise: s.groupwise,
                  })),
                };
              } finally {
                r.dispose();
              }
            }),
        });
    if (run.variants.length === 0) continue;
    for (const seed of seeds)
      units.push({
        id: `start.${run.task}.s${seed}`,
        kind: "seed",
        label: `${run.task}, seed ${seed}, cold-start eval`,
        // Greedy decoding is the same for every seed (the first seed's eval, as LabRun.evalStart).
        run: async () => ({
          coldStart: await device.coldStartEval(
            exp,
            start,
            mnist,
            exp.evalTemperature > 0 ? seed : seeds[0],
          ),
        }),
      });
    for (const seed of seeds)
      for (const variant of run.variants)
        units.push({
          id: `rl.${run.task}.s${seed}.${safe(variant)}`,
          kind: "seed-variant",
          label: `${run.task}, seed ${seed}, ${variant}`,
          run: async () => {
            const cold = args.store.load(`start.${run.task}.s${seed}`);
            if (!cold || !("coldStart" in cold))
              throw new Error(
                `claims sweep: the cold-start eval of ${run.task}, seed ${seed} is missing`,
              );
            return device.trainSeedVariant({
              exp: seedVariantExperiment(exp, seed, variant),
              start,
              mnist,
              coldStart: cold.coldStart as EvalMetrics,
            });
          },
        });
  }
  const left = units.filter((u) => args.store.load(u.id) === undefined);
  const prior = left.length ? await estimate(args, starts, left, args.report) : {};
  const results = await runSweep(units, args.store, args.report, prior);
  const inputs = new Map<TaskKey, ClaimInputs>();
  for (const run of args.runs) {
    const rows: MetricRow[] = [];
    const stability = new Map<number, StabilityPoint[]>();
    for (const seed of seeds) {
      const st = results.get(`stability.${run.task}.s${seed}`);
      if (st && "stability" in st) stability.set(seed, st.stability);
      for (const variant of run.variants) {
        const r = results.get(`rl.${run.task}.s${seed}.${safe(variant)}`);
        if (r && "rows" in r) rows.push(...r.rows);
      }
    }
    inputs.set(run.task, { rows, stability });
  }
  return inputs;
}

/**
 * The sweep's cost measured on this device before it starts: one RL step of
 * each variant (a scratch copy from the cold start, its output dropped) and
 * one held-out eval per task; prints the estimated time of the units left.
 * @returns the seconds of one unit of each kind, for the progress line's estimate.
 */
async function estimate(
  args: Parameters<typeof runClaimsSweep>[0],
  starts: ReadonlyMap<TaskKey, UnitStart>,
  left: readonly SweepUnit<ClaimsUnitValue>[],
  report: (line: string) => void,
): Promise<{ "seed-variant"?: number; seed?: number }> {
  const { size } = args;
  let stepSum = 0;
  let steps = 0;
  let evalSum = 0;
  for (const run of args.runs) {
    const start = starts.get(run.task)!;
    const mnist = mnistFor(run.experiment);
    for (const variant of run.variants) {
      const cost = await args.device.measureStep(
        run.experiment,
        start,
        mnist,
        args.seeds[0],
        variant,
      );
      stepSum += cost.stepSeconds;
      steps++;
      evalSum += cost.evalSeconds / run.variants.length;
    }
    if (run.variants.length === 0) {
      const cost = await args.device.measureStep(run.experiment, start, mnist, args.seeds[0]);
      evalSum += cost.evalSeconds;
    }
  }
  const stepS = steps ? stepSum / steps : 0;
  const evalS = args.runs.length ? evalSum / args.runs.length : 0;
  const evalsPerUnit = Array.from({ length: size.steps }, (_, i) => i + 1).filter(
    (s) => s % size.evalEvery === 0 || s === size.steps,
  ).length;
  const seedVariant = size.steps * stepS + evalsPerUnit * evalS;
  const seedUnit = evalS;
  const total = left.reduce((a, u) => a + (u.kind === "seed-variant" ? seedVariant : seedUnit), 0);
  const sv = left.filter((u) => u.kind === "seed-variant").length;
  const perSeed =
    args.runs.reduce((a, r) => a + r.variants.length, 0) * seedVariant +
    args.runs.reduce((a, r) => a + (r.stability ? 2 : 1), 0) * seedUnit;
  report(
    `[sweep] estimated run time: about ${formatDuration(total)} for ${sv} seed-variants (${size.steps} RL steps and ${evalsPerUnit} eval${evalsPerUnit === 1 ? "" : "s"} each) and ${left.length - sv} per-seed units, from one RL step of each variant (mean ${stepS.toFixed(1)} s) and one ${size.evalSize}-prompt eval (${evalS.toFixed(1)} s) measured on this device just now`,
  );
  checkTimeBudget({ seconds: total, perSeed, seeds: args.seeds.length, maxHours: args.maxHours });
  return { "seed-variant": seedVariant, seed: seedUnit };
}
