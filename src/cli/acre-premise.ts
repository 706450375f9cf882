/**
 * The ACRE premise check (docs/results.md, 2026-12-06), headless:
 *   npm run premise:acre -- [--scenario binding|prior|blank|skew-letter] [--seeds S1,S2,…] [--steps N] [--eval-every E] [--eval-size N] [--quiet]
 * `--scenario prior` runs the `acre-prior` preset instead and checks that the
 * baseline learns an option-position prior: topLetterShare at or above the
 * step-0 band's upper edge at the last eval and on average after step 0;
 * `--scenario blank` the same on `acre-prior-blank` (the faint digit blank);
 * `--scenario skew-letter` on `acre-prior-blank` with skewLetterShare (the
 * share of A, the letter the training skew pays) instead of the top letter's.
 * Runs the `acre-premise` preset's baseline arm alone (acre-baseline: GRPO +
 * format + length) from its shipped cold start, once per seed (default the
 * tuning seeds 41,42,43; the preset's steps, eval interval and held-out size
 * unless given), and checks the criterion written down before the first run:
 * the index-bound share of the held-out answers (boundRate) at the last eval
 * and its mean over the evals after step 0 stay at or above the step-0 band
 * (p0 ± 1.96·√(p0(1 − p0)/n)), with |accBound − accFree| ≤ 0.10 at step 0.
 * Prints the UTC time, each seed's line and the verdict on stderr, then one
 * JSON line on stdout {"date", "preset", "arm", "settings", "criterion",
 * "seeds": [...], "holds", "rows": {seed: eval rows}}. On failure the last
 * stdout line is {"error": message} (exit 1).
 */
import { presetExperiment } from "../settings/presets";
import { inProcessScorer } from "../rl/reward-contract";
import { LabRun } from "../run/lab-run";
import type { MetricRow } from "../run/run-types";
import { formatPremise, premiseCheck, type PremiseCriterion } from "../experiments/premise-band";
import {
  consoleSink,
  loadShippedCheckpoint,
  mnistFor,
  nodeContext,
  parseSeedList,
} from "./node-run";
import { readCliFlags } from "../lib/cli-flags";
import { ACRE_PREMISE_TABLE } from "./premise-flags";

/** Tuning seeds of the ACRE premise check (docs/results.md, 2026-12-06). */
const TUNING_SEEDS = [41, 42, 43];

/**
 * Each scenario's preset and the criterion written down before its first run
 * (docs/results.md, 2026-12-06): index binding the baseline keeps (10:13 UTC),
 * an option-position prior the baseline learns (16:54 UTC), the same prior
 * with the faint digit blank (18:55 UTC), and on that scenario the share of
 * the letter the skew pays instead of the top letter's (19:37 UTC).
 */
const SCENARIOS = {
  binding: {
    preset: "acre-premise",
    criterion: (n: number): PremiseCriterion => ({
      metric: "boundRate",
      n,
      z: 1.96,
      gap: { a: "accBound", b: "accFree", tolerance: 0.1 },
    }),
  },
  prior: {
    preset: "acre-prior",
    criterion: (n: number): PremiseCriterion => ({
      metric: "topLetterShare",
      n,
      z: 1.96,
      direction: "rises",
    }),
  },
  blank: {
    preset: "acre-prior-blank",
    criterion: (n: number): PremiseCriterion => ({
      metric: "topLetterShare",
      n,
      z: 1.96,
      direction: "rises",
    }),
  },
  "skew-letter": {
    preset: "acre-prior-blank",
    criterion: (n: number): PremiseCriterion => ({
      metric: "skewLetterShare",
      n,
      z: 1.96,
      direction: "rises",
    }),
  },
} as const;

async function main(): Promise<void> {
  const { flags } = readCliFlags(ACRE_PREMISE_TABLE);
  const scenario = SCENARIOS[flags.scenario as keyof typeof SCENARIOS];
  const PRESET = scenario.preset;
  const seeds = flags.seeds === undefined ? TUNING_SEEDS : parseSeedList("seeds", flags.seeds);
  const base = presetExperiment(PRESET);
  const arm = base.variants[0];
  // Ranges are the experiment schema's (checked when the preset's experiment is parsed).
  const steps = flags.steps ?? base.algorithm.steps;
  const evalEvery = flags["eval-every"] ?? base.algorithm.evalEvery;
  const evalSize = flags["eval-size"] ?? base.evalSize;
  const rowsBySeed = new Map<number, MetricRow[]>();
  const ctx = await nodeContext();
  try {
    for (const seed of seeds) {
      const exp = presetExperiment(PRESET, { steps, seed });
      exp.variants = [arm];
      exp.algorithm.evalEvery = evalEvery;
      exp.evalSize = evalSize;
      const ckpt = loadShippedCheckpoint(exp);
      if (!ckpt) throw new Error(`no shipped cold start for ${PRESET}`);
      const sink = consoleSink(undefined, flags.quiet);
      const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), {
        config: ckpt.config,
        params: ckpt.params,
      });
      await run.evalStart();
      await run.runSteps(steps);
      rowsBySeed.set(
        seed,
        sink.rows.filter((r) => r.kind === "eval"),
      );
      run.dispose();
    }
  } finally {
    ctx.destroy();
  }
  const crit = scenario.criterion(evalSize);
  const result = premiseCheck(rowsBySeed, crit);
  const date = new Date().toISOString();
  process.stderr.write(
    `${date} premise check, ${PRESET} arm ${arm.name} alone\n${formatPremise(result, crit)}\n`,
  );
  process.stdout.write(
    `${JSON.stringify({
      date,
      preset: PRESET,
      arm: arm.name,
      settings: { steps, evalEvery, evalSize, lr: base.algorithm.lr },
      criterion: crit,
      ...result,
      rows: Object.fromEntries(rowsBySeed),
    })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stdout.write(`${JSON.stringify({ error: (e as Error).message })}\n`);
    process.exit(1);
  },
);
