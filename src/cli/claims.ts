/**
 * Runs the papers' claims in the lab and judges each one over seeds:
 *   npm run claims -- [--size ci|full|tiny] [--seeds S1,S2,…] [--claims ID,…] [--out DIR | --resume DIR] [--checkpoint FILE] [--max-hours H] [--quiet]
 *
 * One lab run per task trains every variant the selected claims need from
 * the same cold start under each seed, one seed-variant after another (a
 * resumable sweep, src/cli/claims-sweep.ts): the default experiment's
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
 * Before the first seed-variant it prints the estimated run time (one RL
 * step of each variant and one eval measured on the device), and after each
 * one "seed-variant i of n … about T left" on stderr (with --quiet too).
 * The seeds are limited by cost, not a count: a sweep estimated to run
 * longer than --max-hours (default 24) does not start, and says how many
 * seeds fit (a --seeds list holds at most 1000).
 * --out DIR (a new or empty folder; an existing non-empty one is refused so
 * no earlier report is overwritten) gets sweep.json (the settings, the
 * code's version and the cold starts) at once, units/<id>.json as each
 * seed-variant (and each seed's cold-start eval and stability study)
 * finishes, and at the end claims.json, claims.md, metrics.jsonl
 * (and metrics-multiple-choice.jsonl when that run ran) and per claim <id>.svg and <id>.png (mean curves with 95 % bands). DIR and
 * --checkpoint are checked before any work; every file is written under a
 * temporary name and renamed, so a killed sweep loses at most the unit in
 * progress. --resume DIR continues the sweep in DIR with the same flags:
 * a different setting (named), another code version or another cold start
 * is refused; the final claims.json is the one an uninterrupted run writes.
 * On failure the last stdout line is {"error"}.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { loadCheckpoint } from "../model/checkpoint";
import {
  CLAIMS,
  DEFAULT_SIGMA_B,
  selectClaims,
  type ClaimInputs,
  type ClaimSpec,
} from "../experiments/claims";
import { inProcessScorer } from "../run/reward-client";
import { DEFAULT_MAX_HOURS, memoryStore } from "../run/sweep";
import { aggregateCurves, summarizeSeeds, verdict } from "../experiments/seed-stats";
import { variantColor } from "../ui/lib/variant-meta";
import {
  claimsMarkdown,
  curvesSvg,
  svgToPng,
  type ClaimResult,
  type CurvesPlot,
} from "../experiments/claims-report";
import {
  checkpointFile,
  consoleSink,
  nodeContext,
  parseFlags,
  parseSeedList,
  REPO_ROOT,
} from "./node-run";
import { checkInputFile, finishCli, writeFileAtomic } from "./out-files";
import {
  isClaimsUnitValue,
  planClaimRuns,
  runClaimsSweep,
  taskOf,
  type ClaimsUnitValue,
  type TaskKey,
} from "./claims-sweep";
import { openSweepFolder, type SweepManifest } from "./sweep-folder";
import { codeVersion, fileSha256 } from "./code-version";
import { SweepDevice } from "./sweep-device";

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

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    size: "string",
    seeds: "string",
    claims: "string",
    out: "string",
    resume: "string",
    checkpoint: "string",
    quiet: "boolean",
    "max-hours": "number",
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
  if (flags.out !== undefined && flags.resume !== undefined)
    throw new Error("--out and --resume exclude each other (--resume DIR writes into DIR)");
  const out =
    flags.resume !== undefined
      ? String(flags.resume)
      : flags.out !== undefined
        ? String(flags.out)
        : undefined;
  const checkpoint = flags.checkpoint !== undefined ? String(flags.checkpoint) : undefined;
  if (checkpoint !== undefined) checkInputFile("--checkpoint", checkpoint);
  const t0 = performance.now();

  const runs = planClaimRuns(claims, CLAIMS, S, (task, exp) => {
    const file = task === "default" && checkpoint ? checkpoint : checkpointFile(exp);
    if (!existsSync(file)) return null;
    const bytes = new Uint8Array(readFileSync(file));
    coldStartBytes.set(task, { source: file, sha256: fileSha256(bytes) });
    return { checkpoint: loadCheckpoint(bytes), source: file };
  });
  // Every setting that decides the table: a resumed sweep must have the same ones.
  const manifest: SweepManifest = {
    format: "reward-lab-sweep",
    version: 1,
    command: "claims",
    settings: {
      size,
      sizeValues: sizeValuesOf(S),
      seeds,
      claims: claims.map((c) => c.id),
    },
    code: codeVersion(),
    coldStarts: Object.fromEntries(
      [...coldStartBytes].map(([task, c]) => [task, { ...c, source: relativeToRepo(c.source) }]),
    ),
  };
  const store = out
    ? openSweepFolder({
        dir: out,
        mode: flags.resume !== undefined ? "resume" : "new",
        manifest,
        isValue: isClaimsUnitValue,
        flagOf: (k) => CLAIMS_FLAG_OF[k.split(".")[0]],
      })
    : memoryStore<ClaimsUnitValue>();

  const sink = consoleSink(undefined, Boolean(flags.quiet));
  const device = new SweepDevice(nodeContext, sink, inProcessScorer);
  const ctx = await device.context();
  sink.log(`adapter: ${ctx.adapter.description}${ctx.adapter.isFallback ? " (CPU fallback)" : ""}`);
  sink.log(`claims: ${claims.map((c) => c.id).join(", ")}; size ${size}; seeds ${seeds.join(",")}`);
  for (const r of runs)
    sink.log(
      `[${r.task}] claims ${r.claims.map((c) => c.id).join(", ")}; variants ${r.variants.join(", ") || "none"}; cold start ${relativeToRepo(r.source)}`,
    );
  const inputs = await runClaimsSweep({
    runs,
    size: S,
    seeds,
    sigmaBs: SIGMA_B_SWEEP,
    maxHours: (flags["max-hours"] as number | undefined) ?? DEFAULT_MAX_HOURS,
    device,
    sink,
    store,
    // Progress is always shown, --quiet or not (a sweep runs for minutes to hours).
    report: (line) => console.error(line),
  });
  device.dispose();

  const empty: ClaimInputs = { rows: [], stability: new Map() };
  const inputsOf = (c: ClaimSpec) => inputs.get(taskOf(c)) ?? empty;
  const results: ClaimResult[] = claims.map((c) => judgeClaim(c, inputsOf(c), seeds, size));
  const seconds = Math.round((performance.now() - t0) / 1000);
  if (out) writeReport(out, claims, results, inputsOf, inputs, seeds);
  process.stdout.write(`${JSON.stringify({ size, seeds, seconds, claims: results })}\n`);
}

/** The flag that sets each top-level setting of the manifest (for a resume's mismatch error). */
const CLAIMS_FLAG_OF: Record<string, string> = {
  size: "--size",
  sizeValues: "--size",
  seeds: "--seeds",
  claims: "--claims",
};

/** A size's values without its default seeds (the seeds are a setting of their own). */
function sizeValuesOf(S: (typeof CLAIM_SIZES)[ClaimSize]): Record<string, unknown> {
  const { seeds: _seeds, ...values } = S;
  return values;
}

/** The cold starts read for the manifest, by task. */
const coldStartBytes = new Map<string, { source: string; sha256: string }>();

/** A path relative to the repository root when it lies inside it (stable across checkouts). */
function relativeToRepo(file: string): string {
  const rel = relative(REPO_ROOT, resolve(file));
  return rel.startsWith("..") ? resolve(file) : rel;
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
