/**
 * Runs the papers' claims in the lab and judges each one over seeds:
 *   npm run claims -- [--size ci|full] [--seeds S1,S2,…] [--claims ID,…] [--out DIR] [--checkpoint FILE] [--quiet]
 *
 * One multi-seed lab run trains every variant the selected claims need from
 * the same cold start (the shipped hinted checkpoint of the default
 * experiment) under each seed; the judge-stability sweep runs on each seed's
 * cold-start rollouts. Each claim's per-seed figure (src/rl/claims.ts) is
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
 * and per claim <id>.svg and <id>.png (mean curves with 95 % bands). DIR and
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
} from "../rl/claims";
import { parseExperiment, type Experiment, type VariantName } from "../rl/experiment";
import { inProcessScorer } from "../rl/reward-client";
import { LabRun } from "../rl/runner";
import { aggregateCurves, summarizeSeeds, verdict } from "../rl/seed-stats";
import { stabilityReport } from "../rl/stability-run";
import { DEFAULT_AUDITOR } from "../rewards/auditor-judge";
import { variantColor } from "../ui/lib/variant-meta";
import {
  claimsMarkdown,
  curvesSvg,
  svgToPng,
  type ClaimResult,
  type CurvesPlot,
} from "./claims-report";
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
 * Run sizes (lab choice). `ci` on the default scenario took 860 s on a 2-core CPU adapter with
 * nothing else running (README); `full` is the five-seed report.
 */
export const CLAIM_SIZES = {
  ci: {
    seeds: [11, 12, 13],
    steps: 20,
    groupSize: 8,
    batchPrompts: 4,
    evalEvery: 5,
    evalSize: 128,
    lr: 5e-4,
    stabilityPrompts: 16,
    stabilityRepeats: 4,
  },
  full: {
    seeds: [21, 22, 23, 24, 25],
    steps: 20,
    groupSize: 8,
    batchPrompts: 4,
    evalEvery: 5,
    evalSize: 128,
    lr: 5e-4,
    stabilityPrompts: 32,
    stabilityRepeats: 4,
  },
} as const;
export type ClaimSize = keyof typeof CLAIM_SIZES;

/** σ_b values of the stability plot (σ_j and δ at the lab default). */
const SIGMA_B_SWEEP = [0, 0.05, DEFAULT_SIGMA_B, 0.2];

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
    throw new Error(`--size must be ci or full, got '${String(flags.size)}'`);
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
  const variants = [...new Set(runnable.flatMap((c) => c.variants))].sort(
    (a, b) =>
      CLAIMS.flatMap((c) => c.variants).indexOf(a) - CLAIMS.flatMap((c) => c.variants).indexOf(b),
  ) as VariantName[];
  const needsStability = runnable.some((c) => c.stability);
  // The default experiment's task (the hinted scenario) on the small model; sizes from the table.
  const exp: Experiment = parseExperiment({
    modelSize: "small",
    seeds,
    variants: (variants.length ? variants : ["rlvr"]).map((name) => ({ name })),
    algorithm: {
      steps: S.steps,
      groupSize: S.groupSize,
      batchPrompts: S.batchPrompts,
      evalEvery: S.evalEvery,
      lr: S.lr,
    },
    evalSize: S.evalSize,
  });
  const sink = consoleSink(undefined, Boolean(flags.quiet));
  const ctx = await nodeContext();
  sink.log(`adapter: ${ctx.adapter.description}${ctx.adapter.isFallback ? " (CPU fallback)" : ""}`);
  const ckpt = flags.checkpoint
    ? loadCheckpoint(new Uint8Array(readFileSync(String(flags.checkpoint))))
    : loadShippedCheckpoint(exp);
  if (!ckpt)
    throw new Error(
      "no shipped cold-start checkpoint for the default experiment's task (public/checkpoints); make it with npm run train:sft",
    );
  const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  sink.log(
    `claims: ${claims.map((c) => c.id).join(", ")}; size ${size}; seeds ${seeds.join(",")}; variants ${variants.join(", ") || "none"}`,
  );

  const stability = new Map<number, StabilityPoint[]>();
  if (needsStability) {
    for (const seed of seeds) {
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
    for (let s = 0; s < exp.algorithm.steps; s++) await run.rlStep();
  }
  ctx.destroy();

  const inputs: ClaimInputs = { rows: sink.rows, stability };
  const results: ClaimResult[] = claims.map((c) => judgeClaim(c, inputs, seeds, size));
  const seconds = Math.round((performance.now() - t0) / 1000);
  if (out) writeReport(out, claims, results, inputs, seeds);
  process.stdout.write(`${JSON.stringify({ size, seeds, seconds, claims: results })}\n`);
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
  inputs: ClaimInputs,
  seeds: number[],
): void {
  writeFileAtomic(
    join(dir, "metrics.jsonl"),
    `${inputs.rows.map((r) => JSON.stringify(r)).join("\n")}\n`,
  );
  claims.forEach((c) => {
    const plot = plotFor(c, inputs, seeds);
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
