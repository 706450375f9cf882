/**
 * Runs the papers' claims in the lab and judges each one over seeds:
 *   npm run claims -- [--size ci|full|tiny] [--seeds S1,S2,…] [--claims ID,…] [--out DIR] [--checkpoint FILE] [--eval-size N] [--quiet]
 *
 * One multi-seed lab run trains every variant the default scenario's claims
 * need from the same cold start under each seed (the default experiment's,
 * the shipped hinted checkpoint; --checkpoint replaces it); the SCS and ACRE
 * claims come from one multi-seed run per scenario run they name
 * (CLAIM_RUNS: the presets scs-paper, scs-tr-only, scs-vp-only and
 * acre-paper at the claims' sizes, each from its shipped cold start). The
 * judge-stability sweep runs on each seed's cold-start rollouts. A claim of
 * several parts holds only when every part does. Each claim's per-seed figure (src/experiments/claims.ts) is
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
 * (and metrics-<run>.jsonl for each SCS / ACRE run) and per claim <id>.svg and <id>.png (mean curves with 95 % bands). DIR and
 * --checkpoint are checked before any work; every file is written under a
 * temporary name and renamed. --eval-size N evaluates on N held-out prompts
 * instead of the size's (a pilot; each claim's command line carries it). On
 * failure the last stdout line is {"error"}.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadCheckpoint } from "../model/checkpoint";
import {
  CLAIM_RUNS,
  CLAIMS,
  DEFAULT_SIGMA_B,
  selectClaims,
  type ClaimRun,
  type ClaimInputs,
  type ClaimSpec,
  type StabilityPoint,
} from "../experiments/claims";
import { parseExperiment, type Experiment, type VariantName } from "../settings/experiment";
import { presetExperiment } from "../settings/presets";
import { checkpointPath } from "../settings/checkpoints";
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
/** One size's settings, the held-out size possibly overridden (--eval-size). */
type ClaimSizeSpec = Omit<(typeof CLAIM_SIZES)[ClaimSize], "evalSize"> & { evalSize: number };

/** σ_b values of the stability plot (σ_j and δ at the lab default). */
const SIGMA_B_SWEEP = [0, 0.05, DEFAULT_SIGMA_B, 0.3];

function commandFor(size: ClaimSize, seeds: number[], id: string, evalSize?: number): string {
  const n = evalSize === undefined ? "" : ` --eval-size ${evalSize}`;
  return `npm run claims -- --size ${size} --seeds ${seeds.join(",")} --claims ${id}${n}`;
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
    "eval-size": "number",
  });
  const size = String(flags.size ?? "ci") as ClaimSize;
  if (!Object.hasOwn(CLAIM_SIZES, size))
    throw new Error(
      `--size must be one of ${Object.keys(CLAIM_SIZES).join(", ")}, got '${String(flags.size)}'`,
    );
  // --eval-size N: fewer held-out prompts than the size's (a pilot); the command lines say so.
  const evalSize = flags["eval-size"] as number | undefined;
  if (evalSize !== undefined && !(Number.isInteger(evalSize) && evalSize >= 4 && evalSize <= 512))
    throw new Error(`--eval-size must be an integer 4–512, got ${evalSize}`);
  const S = { ...CLAIM_SIZES[size], ...(evalSize !== undefined ? { evalSize } : {}) };
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
  // One multi-seed run of the default scenario, and one per SCS / ACRE run the claims name.
  const inputs = new Map<RunKey, ClaimInputs>();
  const defaults = runnable.filter((c) => !c.runs);
  if (defaults.length > 0)
    inputs.set(
      "default",
      await runGroup(ctx, sink, defaults, {
        size: S,
        seeds,
        checkpoint: flags.checkpoint as string | undefined,
      }),
    );
  const wanted = new Set(runnable.flatMap((c) => c.runs ?? []));
  for (const key of Object.keys(CLAIM_RUNS) as ClaimRun[])
    if (wanted.has(key)) inputs.set(key, await runScenario(ctx, sink, key, S, seeds));
  ctx.destroy();

  const empty: ClaimInputs = { rows: [], stability: new Map() };
  const inputsOf = (c: ClaimSpec): ClaimInputs =>
    c.runs
      ? { rows: c.runs.flatMap((k) => inputs.get(k)?.rows ?? []), stability: new Map() }
      : (inputs.get("default") ?? empty);
  const results: ClaimResult[] = claims.map((c) =>
    judgeClaim(c, inputsOf(c), seeds, size, evalSize),
  );
  const seconds = Math.round((performance.now() - t0) / 1000);
  if (out) writeReport(out, claims, results, inputsOf, inputs, seeds);
  process.stdout.write(`${JSON.stringify({ size, seeds, seconds, claims: results })}\n`);
}

/** The runs claims come from: the default scenario's, and the SCS / ACRE ones (ClaimSpec.runs). */
type RunKey = "default" | ClaimRun;

/**
 * Runs what the default scenario's claims need, under every seed from one
 * cold start (the default experiment's, the shipped hinted checkpoint, or
 * --checkpoint): the judge-stability sweep (when a claim needs it) and one
 * multi-seed RL run of the variants they name. Sizes from CLAIM_SIZES.
 * @throws Error when no cold-start checkpoint fits the task.
 */
async function runGroup(
  ctx: Awaited<ReturnType<typeof nodeContext>>,
  sink: ReturnType<typeof consoleSink>,
  claims: readonly ClaimSpec[],
  opts: { size: ClaimSizeSpec; seeds: number[]; checkpoint?: string },
): Promise<ClaimInputs> {
  const S = opts.size;
  const order = CLAIMS.flatMap((c) => c.variants);
  const variants = [...new Set(claims.flatMap((c) => c.variants))].sort(
    (a, b) => order.indexOf(a) - order.indexOf(b),
  ) as VariantName[];
  const exp: Experiment = parseExperiment({
    modelSize: "small",
    seeds: opts.seeds,
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
  const ckpt = opts.checkpoint
    ? loadCheckpoint(new Uint8Array(readFileSync(opts.checkpoint)))
    : loadShippedCheckpoint(exp);
  if (!ckpt)
    throw new Error(
      "no shipped cold-start checkpoint for the default claims' task (public/checkpoints); make it with npm run train:sft",
    );
  const rows0 = sink.rows.length;
  const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  sink.log(
    `[default] claims ${claims.map((c) => c.id).join(", ")}; variants ${variants.join(", ") || "none"}`,
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

/**
 * One SCS / ACRE run of CLAIM_RUNS under every seed: its preset's task,
 * variants (only `only`, when set) and weights, from the preset's shipped
 * cold start, at the claims' sizes (steps, G, prompts per step, eval every,
 * held-out size, lr). Rows of an arm (`label`) are renamed from the variant
 * to the label.
 * @throws Error when the preset's cold start is not shipped.
 */
async function runScenario(
  ctx: Awaited<ReturnType<typeof nodeContext>>,
  sink: ReturnType<typeof consoleSink>,
  key: ClaimRun,
  S: ClaimSizeSpec,
  seeds: number[],
): Promise<ClaimInputs> {
  const spec: { preset: string; only?: string; label?: string } = CLAIM_RUNS[key];
  const preset = presetExperiment(spec.preset);
  const exp = parseExperiment({
    ...preset,
    seeds,
    variants: preset.variants.filter((v) => !spec.only || v.name === spec.only),
    algorithm: {
      ...preset.algorithm,
      steps: S.steps,
      groupSize: S.groupSize,
      batchPrompts: S.batchPrompts,
      evalEvery: S.evalEvery,
      lr: S.lr,
    },
    evalSize: S.evalSize,
  });
  const ckpt = loadShippedCheckpoint(exp);
  if (!ckpt)
    throw new Error(
      `no shipped cold start for the ${key} claims' run (public/${checkpointPath(exp)}); make it with npm run train:sft (docs/checkpoints.md)`,
    );
  const rows0 = sink.rows.length;
  const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  sink.log(
    `[${key}] preset ${spec.preset}; variants ${exp.variants.map((v) => v.name).join(", ")}${spec.label ? ` (rows as ${spec.label})` : ""}`,
  );
  await run.evalStart();
  await run.runSteps(exp.algorithm.steps);
  const rows = sink.rows.slice(rows0);
  return {
    rows: spec.label ? rows.map((r) => ({ ...r, variant: spec.label! })) : rows,
    stability: new Map(),
  };
}

/** One claim's result: per-seed figures, their summary and the verdict. */
function judgeClaim(
  c: ClaimSpec,
  inputs: ClaimInputs,
  seeds: number[],
  size: ClaimSize,
  evalSize?: number,
): ClaimResult {
  const base = {
    id: c.id,
    paper: c.paper,
    statement: c.statement,
    paper_figure: c.paper_figure,
    command: commandFor(size, seeds, c.id, evalSize),
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
  if (!c.parts)
    return {
      ...base,
      lab: { mean: sum.mean, ci95: sum.ci95, per_seed: perSeed },
      verdict: verdict(sum, c.direction),
    };
  // A claim of parts holds only when every part does (intersection–union).
  const parts = c.parts.map((p) => {
    const per = seeds.map((s) => p.perSeed(inputs, s));
    const ps = summarizeSeeds(per);
    return {
      label: p.label,
      mean: ps.mean,
      ci95: ps.ci95,
      per_seed: per,
      verdict: verdict(ps, c.direction),
    };
  });
  const all = parts.map((p) => p.verdict);
  return {
    ...base,
    lab: { mean: sum.mean, ci95: sum.ci95, per_seed: perSeed, parts },
    verdict: all.every((v) => v === "reproduced")
      ? "reproduced"
      : all.includes("not reproduced")
        ? "not reproduced"
        : "inconclusive",
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
  byRun: ReadonlyMap<RunKey, ClaimInputs>,
  seeds: number[],
): void {
  // One metrics file per run: metrics.jsonl (default scenario), metrics-<run>.jsonl (SCS, ACRE).
  for (const [key, inputs] of byRun)
    writeFileAtomic(
      join(dir, key === "default" ? "metrics.jsonl" : `metrics-${key}.jsonl`),
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
