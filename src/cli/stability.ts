/**
 * Judge stability on the lab's own rollouts (GRR §4.3.4), headless:
 *   npm run stability -- [--prompts N] [--group-size G] [--repeats R] [--seed S | --seeds S1,S2,…]
 *                        [--judge NAME] [--checkpoint FILE] [--temperature T] [--full-size] [--quiet]
 *                        [--sigma-j LIST --sigma-b LIST [--delta X]] [--fit P,G]
 * The paper's protocol (docs/reward-spec.md §2 "Stability study"): each draw
 * (one seed of --seeds, default the one --seed, default 1) samples N training
 * prompts and G rollouts of each once from a cold start (the shipped
 * checkpoint, or FILE: e.g. a `lab --out` variant checkpoint), then repeats
 * the reward assignment R times per judge setting and reports the mean
 * per-rollout variance of pointwise GR and of GRR. Several draws print each
 * draw's figures and, per setting, their mean over draws (the pooled figure),
 * sd and 95 % t-interval. Defaults 16 × 8, R = 4 (lab choice: a minute on a
 * 2-core CPU adapter; the paper used 500 × 8, R = 4). The judge is --judge
 * (text-auditor, the default, or oracle-auditor); the settings are
 * `judgeSweep` of that judge (its defaults, σ_b 0 / 0.1 / 0.2, σ_j 0), or,
 * with --sigma-j and --sigma-b
 * (comma-separated values in [0, 1]), their grid, every σ_j with every σ_b
 * (δ = --delta, the oracle auditor's tie margin). --fit P,G prints the grid
 * point whose pooled variances are nearest P (pointwise) and G (groupwise)
 * by the calibration rule (`fitTargets`; GRR's 0.026,0.016). On a CPU adapter
 * (SwiftShader) the small model is used unless --full-size.
 * Without --checkpoint the cold start is the shipped one of the lab's default
 * task, or, when none ships, of the open-ended task without answer hints.
 * A checkpoint whose meta.task predates the hint knob was trained without
 * hints (hintRate 0).
 * --checkpoint is checked before any work. On failure the last stdout line is
 * {"error": message} (exit 1).
 * Prints progress on stderr and one JSON line on stdout:
 *   {"prompts", "groupSize", "repeats", "seeds", "judge", "checkpoint", "temperature",
 *    "draws": [{"seed", "passRate", "settings": [{"label", "judge": {"name", "sigmaJ", "sigmaB", "delta"},
 *               "pointwise", "groupwise", "reduction", "rollouts", "repeats"}]}],
 *    "pooled": [{"label", "judge", "pointwise": {"mean", "sd", "ci95", "perDraw"}, "groupwise": {…}, "reduction"}],
 *    "fit"?: {"targets": {"pointwise", "groupwise"}, "index", "label", "judge", "error"}}
 */
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { SMALL_CONFIG } from "../model/config";
import { loadCheckpoint } from "../model/checkpoint";
import { parseExperiment } from "../settings/experiment";
import { inProcessScorer } from "../rl/reward-contract";
import { LabRun } from "../run/lab-run";
import { stabilityReport } from "../experiments/stability-study";
import { JUDGE_DEFAULTS, type JudgeName } from "../rewards/judges";
import {
  fitTargets,
  judgeSweep,
  poolDraws,
  type SweepResult,
  type SweepSetting,
} from "../experiments/stability-sweep";
import { checkpointFile, consoleSink, mnistFor, nodeContext, parseSeedList } from "./node-run";
import { checkInputFile, finishCli } from "./out-files";
import { STABILITY_TABLE } from "./claims-flags";
import { readCliFlags } from "../lib/cli-flags";
import type { FlagValues } from "../lib/cli-table";

type StabilityFlags = FlagValues<typeof STABILITY_TABLE.flags>;

/** A comma-separated list of numbers in [0, 1] (`--sigma-j 0,0.05,0.1`). @throws Error naming the flag. */
function unitList(flag: string, text: string): number[] {
  const xs = text.split(",").map((t) => t.trim());
  if (xs.length > 32) throw new Error(`--${flag}: at most 32 values, got ${xs.length}`);
  return xs.map((t) => {
    const x = Number(t);
    if (t === "" || !Number.isFinite(x) || x < 0 || x > 1)
      throw new Error(`--${flag}: '${t}' is not a number in [0, 1]; give e.g. 0,0.05,0.1`);
    return x;
  });
}

/** The σ_j × σ_b grid of --sigma-j / --sigma-b for judge `name`, or its default sweep. */
function gridSettings(flags: StabilityFlags, name: JudgeName): SweepSetting[] {
  const j = flags["sigma-j"];
  const b = flags["sigma-b"];
  if (j === undefined && b === undefined) {
    if (flags.delta !== undefined) throw new Error("--delta needs --sigma-j and --sigma-b");
    return judgeSweep(name);
  }
  if (j === undefined || b === undefined)
    throw new Error("--sigma-j and --sigma-b go together (their grid is the sweep)");
  const delta = flags.delta ?? JUDGE_DEFAULTS[name].delta;
  return unitList("sigma-j", String(j)).flatMap((sigmaJ) =>
    unitList("sigma-b", String(b)).map((sigmaB) => ({
      label: `σ_j ${sigmaJ}, σ_b ${sigmaB}`,
      name,
      sigmaJ,
      sigmaB,
      delta,
    })),
  );
}

/** --fit P,G: two variances > 0 (pointwise, groupwise). @throws Error naming the flag. */
function fitFlag(text: string): { pointwise: number; groupwise: number } {
  const xs = text.split(",").map((t) => Number(t.trim()));
  if (xs.length !== 2 || xs.some((x) => !(Number.isFinite(x) && x > 0)))
    throw new Error(`--fit: '${text}' is not two variances > 0; give e.g. 0.026,0.016`);
  return { pointwise: xs[0], groupwise: xs[1] };
}

async function main(): Promise<void> {
  const { flags, given } = readCliFlags(STABILITY_TABLE);
  const { prompts, repeats } = flags;
  const groupSize = flags["group-size"];
  if (given.includes("seed") && flags.seeds !== undefined)
    throw new Error("--seed and --seeds: give one (--seeds S1,S2,… for several draws)");
  const seeds = flags.seeds !== undefined ? parseSeedList("seeds", flags.seeds) : [flags.seed];
  const judgeName = flags.judge;
  const fit = flags.fit !== undefined ? fitFlag(flags.fit) : undefined;
  const temperature = flags.temperature;
  if (flags.checkpoint !== undefined) checkInputFile("--checkpoint", String(flags.checkpoint));
  const settings = gridSettings(flags, judgeName as JudgeName);
  const sink = consoleSink(undefined, Boolean(flags.quiet));

  const ctx = await nodeContext();
  sink.log(`adapter: ${ctx.adapter.description}${ctx.adapter.isFallback ? " (CPU fallback)" : ""}`);
  let file: string;
  if (flags.checkpoint !== undefined) {
    file = String(flags.checkpoint);
  } else {
    // Same rule as the page: a CPU adapter gets the small model.
    const modelSize = ctx.adapter.isFallback && !flags["full-size"] ? "small" : "default";
    const labDefault = parseExperiment({ modelSize });
    file = checkpointFile(labDefault);
    if (!existsSync(file))
      file = checkpointFile(
        parseExperiment({ modelSize, task: { hintRate: 0, traceSlipRate: 0 } }),
      );
    if (!existsSync(file))
      throw new Error(
        `no shipped cold start for the ${modelSize} model (${file}); pass --checkpoint FILE`,
      );
  }
  const ckpt = loadCheckpoint(new Uint8Array(readFileSync(file)));
  const task = {
    hintRate: 0,
    traceSlipRate: 0,
    ...((ckpt.meta?.task as object | undefined) ?? {}),
  };
  const small =
    ckpt.config.dModel === SMALL_CONFIG.dModel && ckpt.config.nLayers === SMALL_CONFIG.nLayers;
  const exp = parseExperiment({
    modelSize: small ? "small" : "default",
    task,
    seed: seeds[0],
    // One variant: the study samples from the checkpoint itself (policy "reference").
    variants: [{ name: "rlvr" }],
    evalSize: 4,
    ...(temperature !== undefined ? { algorithm: { temperature } } : {}),
  });
  const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), {
    config: ckpt.config,
    params: ckpt.params,
  });
  sink.log(
    `cold start: ${file}${ckpt.meta?.step !== undefined ? ` (step ${String(ckpt.meta.step)})` : ""}, ${run.paramCount} parameters; ${prompts} prompts × ${groupSize} rollouts, ${repeats} repeats, draws ${seeds.join(",")}`,
  );
  const draws: { seed: number; passRate: number; settings: SweepResult[] }[] = [];
  let temperatureUsed = 0;
  for (const seed of seeds) {
    const report = await stabilityReport(run, {
      prompts,
      groupSize,
      repeats,
      seed,
      policy: "reference",
      settings,
    });
    temperatureUsed = report.temperature;
    draws.push({ seed, passRate: report.passRate, settings: report.settings });
    sink.log(
      `draw ${seed}: pass rate ${report.passRate.toFixed(3)}; ${report.settings[0].label}: pointwise ${report.settings[0].pointwise.toFixed(4)}, groupwise ${report.settings[0].groupwise.toFixed(4)}`,
    );
  }
  ctx.destroy();
  const pooled = poolDraws(draws.map((d) => d.settings));
  const best = fit ? { targets: fit, ...fitTargets(pooled, fit) } : undefined;
  process.stdout.write(
    `${JSON.stringify({
      prompts,
      groupSize,
      repeats,
      seeds,
      judge: judgeName,
      checkpoint: basename(file),
      temperature: temperatureUsed,
      draws,
      pooled,
      ...(best ? { fit: best } : {}),
    })}\n`,
  );
}

finishCli("stability", main());
