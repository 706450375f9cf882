/**
 * Runs the papers' claims in the lab and judges each one over seeds:
 *   npm run claims -- [--size ci|full|tiny] [--seeds S1,S2,…] [--claims ID,…] [--out DIR] [--checkpoint FILE] [--quiet]
 *
 * One multi-seed lab run per task trains every variant the selected claims
 * need from the same cold start under each seed: the default experiment's
 * (the shipped hinted checkpoint; --checkpoint replaces it), and for SCS and
 * ACRE a multiple-choice run without hints, every variant with GRPO (the
 * shipped multiple-choice checkpoint). The judge-stability sweep runs on each
 * seed's cold-start rollouts. Each claim's per-seed figure (src/experiments/claims.ts) is
 * summarized as mean and 95 % Student-t interval over seeds, and judged
 * "reproduced" (interval strictly on the paper's side of 0), "not reproduced"
 * (interval on the other side or at 0) or "inconclusive" (straddles 0);
 * claims the lab cannot run yet are "not runnable" with the reason.
 *
 * Prints progress on stderr and one JSON line on stdout:
 *   {"size", "seeds", "seconds", "claims": [{"id", "paper", "statement", "paper_figure",
 *    "lab": {"mean", "ci95", "per_seed"} | null, "verdict", "command", "metric", "reason"?}]}
 * --out DIR (a new or empty folder; an existing non-empty one is refused so
 * no earlier report is overwritten) gets claims.json, claims.md, metrics.jsonl
 * (and metrics-multiple-choice.jsonl when that run ran) and per claim <id>.svg and <id>.png (mean curves with 95 % bands). DIR and
 * --checkpoint are checked before any work; every file is written under a
 * temporary name and renamed. On failure the last stdout line is {"error"}.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadCheckpoint } from "../model/checkpoint";
import {
  CLAIMS,
  DEFAULT_SIGMA_B,
  selectClaims,
  type ClaimInputs,
  type ClaimSpec,
  type StabilityPoint,
} from "../experiments/claims";
import { parseExperiment, type Experiment, type VariantName } from "../settings/experiment";
import { inProcessScorer } from "../run/reward-client";
import { LabRun } from "../run/lab-run";
import { aggregateCurves, summarizeSeeds, verdict } from "../experiments/seed-stats";
import { stabilityReport } from "../experiments/stability-study";
import { DEFAULT_AUDITOR } from "../rewards/auditor-judge";
import { variantColor } from "../ui/lib/variant-meta";
import {
  claimsMarkdown,
  curvesSvg,
  svgToPng,
  type ClaimResult,
  type CurvesPlot,
} from "../experiments/claims-report";
import {
  consoleSink,
  loadShippedCheckpoint,
  mnistFor,
  nodeContext,
  parseFlags,
  parseSeedList,
} from "./node-run";
import { checkInputFile, checkWritableFolder, finishCli, writeFileAtomic } from "./out-files";

/**
 * Run sizes (lab choice). `full` is the five-seed report. The held-out set is
 * 512 prompts (one sampled answer each), evaluated at steps 0, 10 and 20: at
 * 128 prompts one prompt is 0.8 points and the seed-to-seed spread of a
 * paired RC-Acc difference was about ±5 points, against GRR's 2.4-point gap
 * over pointwise GR (Table 1); four times the prompts halve the eval's share
 * of that spread. Wall-clock times of each size are in the README.
 */
export const CLAIM_SIZES = {
  ci: {
    seeds: [11, 12, 13],
    steps: 20,
    groupSize: 8,
    batchPrompts: 4,
    evalEvery: 10,
    evalSize: 512,
    lr: 5e-4,
    stabilityPrompts: 16,
    stabilityRepeats: 4,
  },
  full: {
    seeds: [21, 22, 23, 24, 25],
    steps: 20,
    groupSize: 8,
    batchPrompts: 4,
    evalEvery: 10,
    evalSize: 512,
    lr: 5e-4,
    stabilityPrompts: 32,
    stabilityRepeats: 4,
  },
  /**
   * The test size: two seeds, two RL steps, a 16-prompt eval at steps 0 and
   * 2, G 4 on two prompts per step. Its figures mean nothing; it exists so a
   * test can run every claim end to end in minutes (test/cli/claims-golden.test.ts).
   */
  tiny: {
    seeds: [1, 2],
    steps: 2,
    groupSize: 4,
    batchPrompts: 2,
    evalEvery: 2,
    evalSize: 16,
    lr: 5e-4,
    stabilityPrompts: 4,
    stabilityRepeats: 2,
  },
} as const;
export type ClaimSize = keyof typeof CLAIM_SIZES;

/** σ_b values of the stability plot (σ_j and δ at the lab default). */
const SIGMA_B_SWEEP = [0, 0.05, DEFAULT_SIGMA_B, 0.3];

function commandFor(size: ClaimSize, seeds: number[], id: string): string {
  return `npm run claims -- --size ${size} --seeds ${seeds.join(",")} --claims ${id}`;
}

/** Refuses an existing non-empty output folder (no earlier report is overwritten); checks it can be written. */
function checkOutDir(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new Error(
      `--out ${dir} exists and is not empty; give a new folder (an earlier report is never overwritten)`,
    );
  checkWritableFolder("--out", dir);
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    size: "string",
    seeds: "string",
    claims: "string",
    out: "string",
    checkpoint: "string",
    quiet: "boolean",
  });
  const size = String(flags.size ?? "ci") as ClaimSize;
  if (!Object.hasOwn(CLAIM_SIZES, size))
    throw new Error(
      `--size must be one of ${Object.keys(CLAIM_SIZES).join(", ")}, got '${String(flags.size)}'`,
    );
  const S = CLAIM_SIZES[size];
  const seeds =
    flags.seeds !== undefined ? parseSeedList("seeds", String(flags.seeds)) : [...S.seeds];
  const claims = selectClaims(
    flags.claims !== undefined
      ? String(flags.claims)
          .split(",")
          .map((s) => s.trim())
      : undefined,
  );
  const out = flags.out !== undefined ? String(flags.out) : undefined;
  if (flags.checkpoint !== undefined) checkInputFile("--checkpoint", String(flags.checkpoint));
  if (out) checkOutDir(out);
  const t0 = performance.now();

  const runnable = claims.filter((c) => !c.notRunnable);
  const sink = consoleSink(undefined, Boolean(flags.quiet));
  const ctx = await nodeContext();
  sink.log(`adapter: ${ctx.adapter.description}${ctx.adapter.isFallback ? " (CPU fallback)" : ""}`);
  sink.log(`claims: ${claims.map((c) => c.id).join(", ")}; size ${size}; seeds ${seeds.join(",")}`);
  // One multi-seed run per task: the default scenario's, and a multiple-choice one (SCS, ACRE).
  const inputs = new Map<TaskKey, ClaimInputs>();
  for (const task of TASK_KEYS) {
    const group = runnable.filter((c) => taskOf(c) === task);
    if (group.length === 0) continue;
    inputs.set(
      task,
      await runGroup(ctx, sink, task, group, {
        size: S,
        seeds,
        checkpoint: task === "default" ? (flags.checkpoint as string | undefined) : undefined,
      }),
    );
  }
  ctx.destroy();

  const empty: ClaimInputs = { rows: [], stability: new Map() };
  const inputsOf = (c: ClaimSpec) => inputs.get(taskOf(c)) ?? empty;
  const results: ClaimResult[] = claims.map((c) => judgeClaim(c, inputsOf(c), seeds, size));
  const seconds = Math.round((performance.now() - t0) / 1000);
  if (out) writeReport(out, claims, results, inputsOf, inputs, seeds);
  process.stdout.write(`${JSON.stringify({ size, seeds, seconds, claims: results })}\n`);
}

/** The runs claims come from (ClaimSpec.task; absent = the default scenario's). */
const TASK_KEYS = ["default", "multiple-choice"] as const;
type TaskKey = (typeof TASK_KEYS)[number];
const taskOf = (c: ClaimSpec): TaskKey => c.task ?? "default";

/**
 * Runs what the claims of one task need, under every seed from one cold
 * start: the judge-stability sweep (when a claim needs it) and one
 * multi-seed RL run of the variants they name. The default task is the
 * default experiment's (the hinted scenario); the multiple-choice one has no
 * hints and trains every variant with GRPO. Sizes from CLAIM_SIZES.
 * @throws Error when no cold-start checkpoint fits the task.
 */
async function runGroup(
  ctx: Awaited<ReturnType<typeof nodeContext>>,
  sink: ReturnType<typeof consoleSink>,
  task: TaskKey,
  claims: readonly ClaimSpec[],
  opts: { size: (typeof CLAIM_SIZES)[ClaimSize]; seeds: number[]; checkpoint?: string },
): Promise<ClaimInputs> {
  const S = opts.size;
  const order = CLAIMS.flatMap((c) => c.variants);
  const variants = [...new Set(claims.flatMap((c) => c.variants))].sort(
    (a, b) => order.indexOf(a) - order.indexOf(b),
  ) as VariantName[];
  const mc = task === "multiple-choice";
  const exp: Experiment = parseExperiment({
    modelSize: "small",
    seeds: opts.seeds,
    ...(mc ? { task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 } } : {}),
    variants: (variants.length ? variants : ["rlvr"]).map((name) =>
      mc ? { name, estimator: "grpo" } : { name },
    ),
    algorithm: {
      steps: S.steps,
      groupSize: S.groupSize,
      batchPrompts: S.batchPrompts,
      evalEvery: S.evalEvery,
      lr: S.lr,
    },
    evalSize: S.evalSize,
  });
  const ckpt = opts.checkpoint
    ? loadCheckpoint(new Uint8Array(readFileSync(opts.checkpoint)))
    : loadShippedCheckpoint(exp);
  if (!ckpt)
    throw new Error(
      `no shipped cold-start checkpoint for the ${task} claims' task (public/checkpoints); make it with npm run train:sft`,
    );
  const rows0 = sink.rows.length;
  const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  sink.log(
    `[${task}] claims ${claims.map((c) => c.id).join(", ")}; variants ${variants.join(", ") || "none"}`,
  );

  const stability = new Map<number, StabilityPoint[]>();
  if (claims.some((c) => c.stability)) {
    for (const seed of opts.seeds) {
      const rep = await stabilityReport(run, {
        prompts: S.stabilityPrompts,
        groupSize: S.groupSize,
        seed,
        repeats: S.stabilityRepeats,
        settings: SIGMA_B_SWEEP.map((sigmaB) => ({
          sigmaB,
          sigmaJ: DEFAULT_AUDITOR.sigmaJ,
          delta: DEFAULT_AUDITOR.delta,
        })),
      });
      stability.set(
        seed,
        rep.settings.map((r) => ({ ...r.judge, pointwise: r.pointwise, groupwise: r.groupwise })),
      );
      sink.log(
        `[stability] seed ${seed}: ${rep.settings.map((r) => `σ_b ${r.judge.sigmaB}: pointwise ${r.pointwise.toFixed(4)} groupwise ${r.groupwise.toFixed(4)}`).join("; ")}`,
      );
    }
  }
  if (variants.length) {
    await run.evalStart();
    await run.runSteps(exp.algorithm.steps);
  }
  return { rows: sink.rows.slice(rows0), stability };
}

/** One claim's result: per-seed figures, their summary and the verdict. */
function judgeClaim(
  c: ClaimSpec,
  inputs: ClaimInputs,
  seeds: number[],
  size: ClaimSize,
): ClaimResult {
  const base = {
    id: c.id,
    paper: c.paper,
    statement: c.statement,
    paper_figure: c.paper_figure,
    command: commandFor(size, seeds, c.id),
    metric: c.metric,
  };
  if (c.notRunnable || !c.perSeed)
    return {
      ...base,
      lab: null,
      verdict: "not runnable",
      reason: c.notRunnable ?? "no per-seed figure",
    };
  const perSeed = seeds.map((s) => c.perSeed!(inputs, s));
  const sum = summarizeSeeds(perSeed);
  return {
    ...base,
    lab: { mean: sum.mean, ci95: sum.ci95, per_seed: perSeed },
    verdict: verdict(sum, c.direction),
  };
}

/** The plot of a claim: eval curves per variant (mean, 95 % band), or variance against σ_b for the stability claim. */
function plotFor(c: ClaimSpec, inputs: ClaimInputs, seeds: number[]): CurvesPlot | null {
  if (c.stability) {
    const series = (["pointwise", "groupwise"] as const).map((k, i) => ({
      label: k === "pointwise" ? "pointwise GR" : "GRR (groupwise)",
      color: i === 0 ? variantColor("pointwise-gr") : variantColor("grr"),
      points: SIGMA_B_SWEEP.map((sigmaB) => {
        const sum = summarizeSeeds(
          seeds.map((s) => inputs.stability.get(s)!.find((p) => p.sigmaB === sigmaB)![k]),
        );
        return { x: sigmaB, mean: sum.mean, lo: sum.ci95[0], hi: sum.ci95[1] };
      }),
    }));
    return {
      title: `${c.id}: per-rollout reward variance vs judge calibration noise`,
      xLabel: "σ_b (pointwise calibration noise)",
      yLabel: "reward variance",
      series,
    };
  }
  if (!c.plot) return null;
  const curves = aggregateCurves([...inputs.rows], { kind: "eval", metric: c.plot.metric });
  const series = c.plot.variants
    .filter((v) => curves.has(v))
    .map((v) => ({
      label: v,
      color: variantColor(v),
      points: curves.get(v)!.map((p) => ({ x: p.step, mean: p.mean, lo: p.lo, hi: p.hi })),
    }));
  return {
    title: `${c.id}: ${c.plot.yLabel}, mean of ${seeds.length} seeds, 95 % band`,
    xLabel: "RL step",
    yLabel: c.plot.yLabel,
    series,
  };
}

function writeReport(
  dir: string,
  claims: ClaimSpec[],
  results: ClaimResult[],
  inputsOf: (c: ClaimSpec) => ClaimInputs,
  byTask: ReadonlyMap<TaskKey, ClaimInputs>,
  seeds: number[],
): void {
  // One metrics file per run: metrics.jsonl (default scenario), metrics-multiple-choice.jsonl.
  for (const [task, inputs] of byTask)
    writeFileAtomic(
      join(dir, task === "default" ? "metrics.jsonl" : `metrics-${task}.jsonl`),
      `${inputs.rows.map((r) => JSON.stringify(r)).join("\n")}\n`,
    );
  claims.forEach((c) => {
    const plot = plotFor(c, inputsOf(c), seeds);
    if (!plot) return;
    const svg = curvesSvg(plot);
    writeFileAtomic(join(dir, `${c.id}.svg`), svg);
    writeFileAtomic(join(dir, `${c.id}.png`), svgToPng(svg));
  });
  writeFileAtomic(join(dir, "claims.md"), claimsMarkdown(results));
  writeFileAtomic(
    join(dir, "claims.json"),
    `${JSON.stringify({ seeds, claims: results }, null, 2)}\n`,
  );
}

finishCli("claims", main());
