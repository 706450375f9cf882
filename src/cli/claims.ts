/**
 * Runs the papers' claims in the lab and judges each one over seeds:
 *   npm run claims -- [--size ci|full|tiny] [--seeds S1,S2,…] [--claims ID,…] [--judge NAME]
 *                     [--out DIR] [--checkpoint FILE] [--quiet]
 *
 * One multi-seed lab run per task and arm set trains every arm the selected
 * claims need from the same cold start under each seed: the default
 * experiment's (the shipped hinted checkpoint; --checkpoint replaces it), a
 * run of its own for an arm with other weights (StructReward with its
 * auxiliary tasks on), and for SCS and ACRE a multiple-choice run without
 * hints, every variant with GRPO (the shipped multiple-choice checkpoint).
 * Seeds go in runs of at most MAX_SEEDS_PER_RUN. The judge-stability sweep
 * runs on each seed's cold-start rollouts. The judge arms and the sweep use
 * --judge (text-auditor, the default, or oracle-auditor) at its default
 * noise. Each claim's paired comparisons (src/experiments/claims.ts) are
 * summarized as mean and 95 % Student-t interval over seeds, with the
 * minimum detectable effect at N and the N the paper's effect would need,
 * and judged "reproduced" (interval strictly on the paper's side of 0),
 * "not reproduced" (on the other side or at 0) or "inconclusive"; a claim
 * of several comparisons by their intersection–union (docs/reward-spec.md
 * §2). Claims the lab cannot run yet are "not runnable" with the reason;
 * claims whose paper effect needs more seeds than N are listed on stderr
 * and in `cannot_decide_at_n`.
 *
 * Prints progress on stderr and one JSON line on stdout:
 *   {"size", "seeds", "judge", "seconds", "cannot_decide_at_n", "claims": [{"id", "paper", "statement",
 *    "paper_figure", "lab": {"mean", "ci95", "per_seed"} | null, "comparisons": [{"label", "direction",
 *    "mean", "sd", "ci95", "per_seed", "mde", "paper_effect", "n_needed", "verdict"}], "verdict",
 *    "decidable", "command", "metric", "reason"?}]}
 * --out DIR (a new or empty folder; an existing non-empty one is refused so
 * no earlier report is overwritten) gets claims.json, claims.md, metrics.jsonl
 * (and metrics-<run>.jsonl for every further run) and per claim <id>.svg and
 * <id>.png (the arms' mean curves with 95 % bands beside the judged paired
 * differences per step). DIR and --checkpoint are checked before any work;
 * every file is written under a temporary name and renamed. On failure the
 * last stdout line is {"error"}.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadCheckpoint } from "../model/checkpoint";
import {
  selectClaims,
  type ClaimInputs,
  type ClaimSpec,
  type StabilityPoint,
} from "../experiments/claims";
import {
  claimInputs,
  planRuns,
  relabel,
  sigmaBSweep,
  type RunPlan,
} from "../experiments/claims-plan";
import { judgeClaim } from "../experiments/claims-judge";
import { plotFor } from "../experiments/claims-plots";
import { parseExperiment, type Experiment, type VariantName } from "../settings/experiment";
import { createInProcessScorer } from "../run/reward-client";
import { LabRun } from "../run/lab-run";
import { stabilityReport } from "../experiments/stability-study";
import { JUDGE_NAMES, judgeSettings, type JudgeSettings } from "../rewards/judges";
import { variantEntry } from "../settings/variant-table";
import { PRM_FILE } from "../prm/file";
import type { MetricRow } from "../run/run-types";
import {
  claimsMarkdown,
  panelsSvg,
  svgToPng,
  type ClaimResult,
} from "../experiments/claims-report";
import { nodePrm } from "./node-prm";
import {
  consoleSink,
  loadShippedCheckpoint,
  mnistFor,
  nodeContext,
  parseFlags,
  parseSeedList,
  REPO_ROOT,
} from "./node-run";
import { checkInputFile, checkWritableFolder, finishCli, writeFileAtomic } from "./out-files";

/**
 * Seeds (stated 2026-12-03, with what each was used for). Used for choices,
 * never reported as evidence: 1–9 (the scenario, the judge noise of the
 * oracle auditor, pilots), 11–13 (the ci seeds until 2026-12-03, used to
 * decide 20 steps), 201–205 (the text auditor's calibration draws). Reported
 * before, not used for a choice: 21–25. Never used for anything before the
 * runs they report: the ci seeds 31–32 (33 is kept free) and the full seeds
 * 41 onward.
 */
const CI_SEEDS = [31, 32];
/**
 * Full size: as many seeds as the GRR claims need by the minimum-detectable-
 * effect calculation (docs/reward-spec.md §2), at least 10: GRR's 2.4-point
 * lead over pointwise GR at the pooled per-seed sd 0.0258 of GRR − pointwise
 * GR (pilot, tuning seeds 1–3: 0.043, 0.025, 0.000; seeds 11–13: 0.008,
 * 0.066, 0.029) needs 12 seeds (MDE 0.0229 at 12). Seeds 41–52, none used
 * for a choice.
 */
const FULL_SEED_COUNT = 12;
const FULL_SEEDS = Array.from({ length: FULL_SEED_COUNT }, (_, i) => 41 + i);

/**
 * Run sizes (lab choice). Evals at steps 0, 10 and 20. `full`: 512 held-out
 * prompts (one sampled answer each): at 128 prompts one prompt is 0.8 points
 * and the seed-to-seed spread of a paired RC-Acc difference was about ±5
 * points, against GRR's 2.4-point gap over pointwise GR; four times the
 * prompts halve the eval's share of that spread; and the seeds the GRR
 * claims need. `ci` keeps to 25 minutes on the 2-core CPU adapter with every
 * claim's arms (6 default-scenario arms, StructReward's auxiliary step in
 * one, and the multiple-choice run): 2 seeds and 256 held-out prompts
 * (estimated 2026-12-03 from the earlier measured ci, 19.5 min for 4 arms ×
 * 3 seeds at 512 prompts on a quiet machine; 3 seeds of the RL steps alone
 * would take about 26 min); it says which claims its N cannot decide.
 * Wall-clock times of each size are in docs/results.md.
 */
export const CLAIM_SIZES = {
  ci: {
    seeds: CI_SEEDS,
    steps: 20,
    groupSize: 8,
    batchPrompts: 4,
    evalEvery: 10,
    evalSize: 256,
    lr: 5e-4,
    stabilityPrompts: 16,
    stabilityRepeats: 4,
  },
  full: {
    seeds: FULL_SEEDS,
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

/** Seeds per lab run (the experiment schema's limit); more seeds go in several runs from the same cold start. */
const MAX_SEEDS_PER_RUN = 8;

function commandFor(size: ClaimSize, seeds: number[], id: string, judge: JudgeSettings): string {
  const j = judge.name === judgeSettings().name ? "" : ` --judge ${judge.name}`;
  return `npm run claims -- --size ${size} --seeds ${seeds.join(",")} --claims ${id}${j}`;
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
    judge: "string",
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
  const judgeName = String(flags.judge ?? judgeSettings().name);
  if (!(JUDGE_NAMES as readonly string[]).includes(judgeName))
    throw new Error(`--judge must be one of ${JUDGE_NAMES.join(", ")}, got '${judgeName}'`);
  const judge = judgeSettings({ name: judgeName as JudgeSettings["name"] });
  const out = flags.out !== undefined ? String(flags.out) : undefined;
  if (flags.checkpoint !== undefined) checkInputFile("--checkpoint", String(flags.checkpoint));
  if (out) checkOutDir(out);
  const t0 = performance.now();

  const runnable = claims.filter((c) => !c.notRunnable);
  const plans = planRuns(runnable);
  const sink = consoleSink(undefined, Boolean(flags.quiet));
  const ctx = await nodeContext();
  sink.log(`adapter: ${ctx.adapter.description}${ctx.adapter.isFallback ? " (CPU fallback)" : ""}`);
  sink.log(
    `claims: ${claims.map((c) => c.id).join(", ")}; size ${size}; seeds ${seeds.join(",")}; judge ${judge.name} (σ_j ${judge.sigmaJ}, σ_b ${judge.sigmaB})`,
  );
  // One multi-seed run per plan: the default scenario's, arms with other weights, a multiple-choice one (SCS, ACRE).
  const byPlan = new Map<string, ClaimInputs>();
  for (const plan of plans) {
    byPlan.set(
      plan.key,
      await runPlan(ctx, sink, plan, {
        size: S,
        seeds,
        judge,
        checkpoint: plan.task === "default" ? (flags.checkpoint as string | undefined) : undefined,
      }),
    );
  }
  ctx.destroy();

  const inputsOf = (c: ClaimSpec) => claimInputs(c, plans, byPlan, judge);
  const results: ClaimResult[] = claims.map((c) =>
    judgeClaim(c, inputsOf(c), seeds, commandFor(size, seeds, c.id, judge)),
  );
  const seconds = Math.round((performance.now() - t0) / 1000);
  const cannot = results.filter((r) => r.decidable === "no").map((r) => r.id);
  const unknown = results.filter((r) => r.decidable === "unknown").map((r) => r.id);
  sink.log(
    `N = ${seeds.length}: cannot decide ${cannot.length ? cannot.join(", ") : "none"} (inconclusive, and a paper effect needs more seeds)${unknown.length ? `; no paper effect to size: ${unknown.join(", ")}` : ""}`,
  );
  if (out) writeReport(out, claims, results, inputsOf, byPlan, seeds, size, judge);
  process.stdout.write(
    `${JSON.stringify({ size, seeds, judge, seconds, cannot_decide_at_n: cannot, claims: results })}\n`,
  );
}

type ClaimSizeSpec = (typeof CLAIM_SIZES)[ClaimSize];

/** Runs a plan on every seed, at most MAX_SEEDS_PER_RUN seeds per lab run; rows and sweeps of all seeds. */
async function runPlan(
  ctx: Awaited<ReturnType<typeof nodeContext>>,
  sink: ReturnType<typeof consoleSink>,
  plan: RunPlan,
  opts: { size: ClaimSizeSpec; seeds: number[]; judge: JudgeSettings; checkpoint?: string },
): Promise<ClaimInputs> {
  const rows: MetricRow[] = [];
  const stability = new Map<number, StabilityPoint[]>();
  for (let i = 0; i < opts.seeds.length; i += MAX_SEEDS_PER_RUN) {
    const part = await runGroup(ctx, sink, plan, {
      ...opts,
      seeds: opts.seeds.slice(i, i + MAX_SEEDS_PER_RUN),
    });
    rows.push(...part.rows);
    for (const [seed, pts] of part.stability) stability.set(seed, [...pts]);
  }
  return { rows, stability, judge: opts.judge };
}

/** The learned PRM of the `prm` arm: the shipped file. */
const PRM_PATH = join(REPO_ROOT, "public", PRM_FILE);

/**
 * Runs one plan under the given seeds from one cold start: the
 * judge-stability sweep (when the plan has it) and one multi-seed RL run of
 * its arms. The default task is the default experiment's (the hinted
 * scenario); the multiple-choice one has no hints and trains every variant
 * with GRPO. Rows of an arm with other weights are relabelled with its key.
 * Sizes from CLAIM_SIZES.
 * @throws Error when no cold-start checkpoint fits the task.
 */
async function runGroup(
  ctx: Awaited<ReturnType<typeof nodeContext>>,
  sink: ReturnType<typeof consoleSink>,
  plan: RunPlan,
  opts: { size: ClaimSizeSpec; seeds: number[]; judge: JudgeSettings; checkpoint?: string },
): Promise<ClaimInputs> {
  const S = opts.size;
  const mc = plan.task === "multiple-choice";
  const arms = plan.arms.length
    ? plan.arms
    : [{ key: "rlvr", variant: "rlvr" as VariantName, weights: {} }];
  const exp: Experiment = parseExperiment({
    modelSize: "small",
    seeds: opts.seeds,
    ...(mc ? { task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 } } : {}),
    variants: arms.map((a) => ({
      name: a.variant,
      weights: a.weights,
      ...(variantEntry(a.variant).judge !== "none" ? { judge: opts.judge } : {}),
      ...(mc ? { estimator: "grpo" } : {}),
    })),
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
      `no shipped cold-start checkpoint for the ${plan.task} claims' task (public/checkpoints); make it with npm run train:sft`,
    );
  const rows0 = sink.rows.length;
  const scorer = createInProcessScorer(nodePrm(PRM_PATH));
  const run = new LabRun(ctx, exp, sink, scorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  sink.log(
    `[${plan.key}] seeds ${opts.seeds.join(",")}; arms ${plan.arms.map((a) => a.key).join(", ") || "none"}`,
  );

  const stability = new Map<number, StabilityPoint[]>();
  if (plan.stability) {
    for (const seed of opts.seeds) {
      const rep = await stabilityReport(run, {
        prompts: S.stabilityPrompts,
        groupSize: S.groupSize,
        seed,
        repeats: S.stabilityRepeats,
        settings: sigmaBSweep(opts.judge).map((sigmaB) => ({ ...opts.judge, sigmaB })),
      });
      stability.set(
        seed,
        rep.settings.map((r) => ({
          sigmaJ: r.judge.sigmaJ,
          sigmaB: r.judge.sigmaB,
          delta: r.judge.delta,
          pointwise: r.pointwise,
          groupwise: r.groupwise,
        })),
      );
      sink.log(
        `[stability] seed ${seed}: ${rep.settings.map((r) => `σ_b ${r.judge.sigmaB}: pointwise ${r.pointwise.toFixed(4)} groupwise ${r.groupwise.toFixed(4)}`).join("; ")}`,
      );
    }
  }
  if (plan.arms.length) {
    await run.evalStart();
    await run.runSteps(exp.algorithm.steps);
  }
  return { rows: relabel(sink.rows.slice(rows0), plan.arms), stability, judge: opts.judge };
}

function writeReport(
  dir: string,
  claims: ClaimSpec[],
  results: ClaimResult[],
  inputsOf: (c: ClaimSpec) => ClaimInputs,
  byPlan: ReadonlyMap<string, ClaimInputs>,
  seeds: number[],
  size: ClaimSize,
  judge: JudgeSettings,
): void {
  // One metrics file per run: metrics.jsonl (default scenario), metrics-<run>.jsonl for the others.
  for (const [key, inputs] of byPlan)
    writeFileAtomic(
      join(dir, key === "default" ? "metrics.jsonl" : `metrics-${key}.jsonl`),
      `${inputs.rows.map((r) => JSON.stringify(r)).join("\n")}\n`,
    );
  claims.forEach((c) => {
    if (c.notRunnable) return;
    const plots = plotFor(c, inputsOf(c), seeds, judge);
    if (!plots) return;
    const svg = panelsSvg(plots);
    writeFileAtomic(join(dir, `${c.id}.svg`), svg);
    writeFileAtomic(join(dir, `${c.id}.png`), svgToPng(svg));
  });
  writeFileAtomic(join(dir, "claims.md"), claimsMarkdown(results, { size, seeds, judge }));
  writeFileAtomic(
    join(dir, "claims.json"),
    `${JSON.stringify({ size, seeds, judge, claims: results }, null, 2)}\n`,
  );
}

finishCli("claims", main());
