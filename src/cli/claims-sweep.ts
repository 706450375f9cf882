/**
 * The runs behind `claims`, as a resumable sweep (src/run/sweep.ts): for
 * each run plan of the selected claims (src/experiments/claims-plan.ts: per
 * task, the arms at their defaults, and arms with other weights in runs of
 * their own), one experiment with every arm under every seed, from the
 * task's cold start. Its units, in order:
 *   stability.<plan>.s<seed>        the judge-stability sweep on the seed's cold-start rollouts
 *   start.<task>.s<seed>            the cold start's held-out eval under the seed (one per task)
 *   rl.<plan>.s<seed>.<arm>         one seed-arm trained from the cold start to the last step
 * A seed-arm trained alone gives the rows it gives in a multi-seed run (its
 * prompts, rollouts and judge noise are functions of its seed and step
 * only; test/cli/claims-golden.test.ts). Claims and sizes are data here:
 * what to run follows from the claims table (src/experiments/claims.ts) and
 * the size's values, so a new claim or size needs nothing in this file.
 */
import type { Checkpoint } from "../model/checkpoint";
import type { ClaimArm, ClaimInputs, StabilityPoint } from "../experiments/claims";
import { relabel, type RunPlan } from "../experiments/claims-plan";
import type { RewardScorer } from "../rl/reward-contract";
import { stabilityReport } from "../experiments/stability-study";
import type { EvalMetrics } from "../rl/eval-metrics";
import type { JudgeSettings } from "../rewards/judges";
import { parseExperiment, type Experiment } from "../settings/experiment";
import { variantEntry } from "../settings/variant-table";
import { presetExperiment } from "../settings/presets";
import { checkpointPath } from "../settings/checkpoints";
import type { MetricRow, RunSink } from "../run/run-types";
import type { CanaryValues } from "./sweep-folder";
import { CANARY_SEED, CANARY_SIZE, canaryExperiment, canaryValues } from "./sweep-canary";
import {
  formatDuration,
  memoryStore,
  runSweep,
  sittingSeconds,
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

/** One plan's run: the plan, its experiment (every arm; the seeds are the sweep's) and cold start. */
export interface ClaimsPlanRun {
  plan: RunPlan;
  experiment: Experiment;
  checkpoint: Checkpoint;
  /** Where the cold start was read (a path), for the manifest and the log. */
  source: string;
}

/** A unit's stored result. */
export type ClaimsUnitValue =
  | { stability: StabilityPoint[] }
  | { coldStart: Record<string, number> }
  | SeedVariantResult;

/**
 * The experiment of each run plan at the size's steps, G, prompts per step,
 * eval cadence, held-out size and lr: a default-scenario plan trains its
 * arms (variant, weights, and `judge` for variants that use one, at the
 * arm's own σ_b when it has one); an SCS /
 * ACRE plan is its preset (task, algorithm, variants and their weights;
 * only the `only` variant when set).
 * @param coldStart the cold start of a plan's experiment and where it was read, or null when there is none (asked once per `task`).
 * @throws Error when a plan has no cold start.
 */
export function planClaimRuns(
  plans: readonly RunPlan[],
  size: ClaimsSweepSize,
  judge: JudgeSettings,
  coldStart: (task: string, exp: Experiment) => { checkpoint: Checkpoint; source: string } | null,
): ClaimsPlanRun[] {
  const colds = new Map<string, { checkpoint: Checkpoint; source: string }>();
  const sized = {
    steps: size.steps,
    groupSize: size.groupSize,
    batchPrompts: size.batchPrompts,
    evalEvery: size.evalEvery,
    lr: size.lr,
  };
  return plans.map((plan) => {
    let experiment: Experiment;
    if (plan.preset) {
      const preset = presetExperiment(plan.preset.name);
      const only = plan.preset.only;
      experiment = parseExperiment({
        ...preset,
        variants: preset.variants.filter((v) => !only || v.name === only),
        algorithm: { ...preset.algorithm, ...sized },
        evalSize: size.evalSize,
      });
    } else {
      // A run with no RL arm (stability only) still needs one variant to build.
      const arms = plan.arms.length
        ? plan.arms
        : [{ key: "rlvr", variant: "rlvr" as const, weights: {} }];
      experiment = parseExperiment({
        modelSize: "small",
        variants: arms.map((a) => ({
          name: a.variant,
          weights: a.weights,
          ...(variantEntry(a.variant).judge !== "none"
            ? { judge: a.sigmaB === undefined ? judge : { ...judge, sigmaB: a.sigmaB } }
            : {}),
        })),
        algorithm: sized,
        evalSize: size.evalSize,
      });
    }
    const cold = colds.get(plan.task) ?? coldStart(plan.task, experiment);
    if (!cold)
      throw new Error(
        `no shipped cold-start checkpoint for the ${plan.key} claims' run (public/${checkpointPath(experiment)}); make it with npm run train:sft (docs/checkpoints.md)`,
      );
    colds.set(plan.task, cold);
    return { plan, experiment, ...cold };
  });
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

/** What the claims' units are built from (a sweep's, or its canary's at the canary size). */
interface ClaimsUnitArgs {
  runs: readonly ClaimsPlanRun[];
  size: ClaimsSweepSize;
  seeds: number[];
  judge: JudgeSettings;
  /** σ_b values of the stability sweep (σ_j and δ at the judge's defaults). */
  sigmaBs: readonly number[];
  device: SweepDevice;
  sink: RunSink;
  store: SweepStore<ClaimsUnitValue>;
  /** Prefix of the cold starts' engine keys on `device` (the canary's engines are its own). */
  engineKey?: string;
  /** The reward scorer of an arm that reads its own PRM (ClaimArm.prm); absent or undefined: the device's. */
  scorerFor?: (arm: ClaimArm) => RewardScorer | undefined;
}

/**
 * The units of the claims' sweep (see the file comment for their ids), in
 * the order they run, and the cold start of each task.
 */
function claimsUnits(args: ClaimsUnitArgs): {
  units: SweepUnit<ClaimsUnitValue>[];
  starts: Map<string, UnitStart>;
} {
  const { device, sink, seeds, size, judge } = args;
  const units: SweepUnit<ClaimsUnitValue>[] = [];
  const starts = new Map<string, UnitStart>();
  const evaluated = new Set<string>();
  for (const run of args.runs) {
    const { plan, experiment: exp } = run;
    const mnist = mnistFor(exp);
    // Plans of one task share its cold start, its engine and its cold-start evals.
    const start: UnitStart = starts.get(plan.task) ?? {
      key: `${args.engineKey ?? ""}${plan.task}`,
      config: run.checkpoint.config,
      params: run.checkpoint.params,
    };
    starts.set(plan.task, start);
    if (plan.stability)
      for (const seed of seeds)
        units.push({
          id: `stability.${safe(plan.key)}.s${seed}`,
          kind: "seed",
          label: `${plan.key}, seed ${seed}, judge stability`,
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
                  settings: args.sigmaBs.map((sigmaB) => ({ ...judge, sigmaB })),
                });
                sink.log(
                  `[stability] seed ${seed}: ${rep.settings.map((s) => `σ_b ${s.judge.sigmaB}: pointwise ${s.pointwise.toFixed(4)} groupwise ${s.groupwise.toFixed(4)}`).join("; ")}`,
                );
                return {
                  stability: rep.settings.map((s) => ({
                    sigmaJ: s.judge.sigmaJ,
                    sigmaB: s.judge.sigmaB,
                    delta: s.judge.delta,
                    pointwise: s.pointwise,
                    groupwise: s.groupwise,
                  })),
                };
              } finally {
                r.dispose();
              }
            }),
        });
    if (plan.arms.length === 0) continue;
    if (!evaluated.has(plan.task)) {
      evaluated.add(plan.task);
      for (const seed of seeds)
        units.push({
          id: `start.${safe(plan.task)}.s${seed}`,
          kind: "seed",
          label: `${plan.task}, seed ${seed}, cold-start eval`,
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
    }
    for (const seed of seeds)
      for (const arm of plan.arms)
        units.push({
          id: `rl.${safe(plan.key)}.s${seed}.${safe(arm.key)}`,
          kind: "seed-variant",
          label: `${plan.key}, seed ${seed}, ${arm.key}`,
          run: async () => {
            const cold = args.store.load(`start.${safe(plan.task)}.s${seed}`);
            if (!cold || !("coldStart" in cold))
              throw new Error(
                `claims sweep: the cold-start eval of ${plan.task}, seed ${seed} is missing`,
              );
            const scorer = args.scorerFor?.(arm);
            return device.trainSeedVariant({
              exp: seedVariantExperiment(exp, seed, arm.variant),
              start,
              mnist,
              coldStart: cold.coldStart as EvalMetrics,
              ...(scorer ? { scorer } : {}),
            });
          },
        });
  }
  return { units, starts };
}

/**
 * The claims sweep's canary on this build: every unit of the sweep's plans
 * (judge stability, cold-start eval, every arm) under CANARY_SEED at the
 * canary size (src/cli/sweep-canary.ts), run in memory, and their figures. The same
 * code gives the same values bit for bit (every unit is a function of its
 * settings and seed: src/run/sweep.ts), so a resume under new code whose
 * canary matches cannot have other numbers in these paths.
 */
export async function claimsCanary(
  args: Omit<ClaimsUnitArgs, "seeds" | "store">,
): Promise<CanaryValues> {
  const { sftSteps: _sft, ...small } = CANARY_SIZE;
  const size: ClaimsSweepSize = { ...args.size, ...small };
  const runs = args.runs.map((r) => ({ ...r, experiment: canaryExperiment(r.experiment) }));
  const store = memoryStore<ClaimsUnitValue>();
  const { units } = claimsUnits({
    ...args,
    runs,
    size,
    seeds: [CANARY_SEED],
    store,
    engineKey: "canary:",
  });
  const outcome = await runSweep(units, store, () => {});
  return canaryValues(outcome.results);
}

/** How a sitting of the claims' sweep ended: every unit done (each plan's inputs), or paused with units left. */
export type ClaimsSweepOutcome =
  | { complete: true; inputs: Map<string, ClaimInputs> }
  | { complete: false; done: number; left: number };

/**
 * Runs (or, from `store`, continues) the claims' sweep on `device` and
 * gathers each plan's inputs (by plan key): its rows (every seed-arm's,
 * seed-major, arms in the plan's order, step 0 first, `variant` the arm's
 * key) and stability points. Before the first unit it measures one RL step
 * of each arm and one eval on the device and prints the run's estimated
 * time and the sittings of `maxHours` it needs; the sitting stops cleanly
 * before the first unit that would not end within `maxHours` (src/run/sweep.ts).
 * @throws Error naming --max-hours when it is not a number > 0.
 */
export async function runClaimsSweep(
  args: ClaimsUnitArgs & { maxHours: number; report: (line: string) => void },
): Promise<ClaimsSweepOutcome> {
  const budget = sittingSeconds(args.maxHours);
  const { units, starts } = claimsUnits(args);
  const { seeds } = args;
  const left = units.filter((u) => args.store.load(u.id) === undefined);
  const prior = left.length ? await estimate(args, starts, left, args.report) : {};
  const outcome = await runSweep(units, args.store, args.report, prior, budget);
  if (!outcome.complete) return { complete: false, done: outcome.done, left: outcome.left };
  const results = outcome.results;
  const inputs = new Map<string, ClaimInputs>();
  for (const { plan } of args.runs) {
    const rows: MetricRow[] = [];
    const stability = new Map<number, StabilityPoint[]>();
    for (const seed of seeds) {
      const st = results.get(`stability.${safe(plan.key)}.s${seed}`);
      if (st && "stability" in st) stability.set(seed, st.stability);
      for (const arm of plan.arms) {
        const r = results.get(`rl.${safe(plan.key)}.s${seed}.${safe(arm.key)}`);
        if (r && "rows" in r) rows.push(...r.rows);
      }
    }
    inputs.set(plan.key, { rows: relabel(rows, plan.arms), stability, judge: args.judge });
  }
  return { complete: true, inputs };
}

/**
 * The sweep's cost measured on this device before it starts: one RL step of
 * each variant (a scratch copy from the cold start, its output dropped) and
 * one held-out eval per task; prints the estimated time of the units left.
 * @returns the seconds of one unit of each kind, for the progress line's estimate.
 */
async function estimate(
  args: Parameters<typeof runClaimsSweep>[0],
  starts: ReadonlyMap<string, UnitStart>,
  left: readonly SweepUnit<ClaimsUnitValue>[],
  report: (line: string) => void,
): Promise<{ "seed-variant"?: number; seed?: number }> {
  const { size } = args;
  let stepSum = 0;
  let steps = 0;
  let evalSum = 0;
  for (const run of args.runs) {
    const start = starts.get(run.plan.task)!;
    const mnist = mnistFor(run.experiment);
    const arms = run.plan.arms;
    for (const arm of arms) {
      const cost = await args.device.measureStep(
        run.experiment,
        start,
        mnist,
        args.seeds[0],
        arm.variant,
      );
      stepSum += cost.stepSeconds;
      steps++;
      evalSum += cost.evalSeconds / arms.length;
    }
    if (arms.length === 0) {
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
    args.runs.reduce((a, r) => a + r.plan.arms.length, 0) * seedVariant +
    (args.runs.filter((r) => r.plan.stability).length +
      new Set(args.runs.filter((r) => r.plan.arms.length > 0).map((r) => r.plan.task)).size) *
      seedUnit;
  const sittings = Math.max(1, Math.ceil(total / sittingSeconds(args.maxHours)));
  report(
    `[sweep] estimated run time: about ${formatDuration(total)} for ${sv} seed-variants (${size.steps} RL steps and ${evalsPerUnit} eval${evalsPerUnit === 1 ? "" : "s"} each) and ${left.length - sv} per-seed units (${formatDuration(perSeed)} per seed), from one RL step of each variant (mean ${stepS.toFixed(1)} s) and one ${size.evalSize}-prompt eval (${evalS.toFixed(1)} s) measured on this device just now; ${sittings === 1 ? "one sitting" : `${sittings} sittings`} of --max-hours ${args.maxHours}`,
  );
  return { "seed-variant": seedVariant, seed: seedUnit };
}
