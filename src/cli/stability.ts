/**
 * Judge stability on the lab's own rollouts (GRR §4.3.4), headless:
 *   npm run stability -- [--prompts N] [--group-size G] [--repeats R] [--seed S]
 *                        [--checkpoint FILE] [--temperature T] [--full-size] [--quiet]
 *                        [--sigma-j LIST --sigma-b LIST [--delta X]]
 * Samples G rollouts of N training prompts once from a cold start (the
 * shipped checkpoint, or FILE: e.g. a `lab --out` variant checkpoint), then
 * repeats the reward assignment R times with the rubric auditor for each
 * judge-noise setting of DEFAULT_SWEEP_SETTINGS and reports the mean
 * per-rollout variance of pointwise GR and of GRR. Defaults 16 × 8, R = 4,
 * seed 1 (lab choice: a minute on a 2-core CPU adapter; the paper used
 * 500 × 8, R = 4). With --sigma-j and --sigma-b (comma-separated values in
 * [0, 1]) the settings are instead their grid, every σ_j with every σ_b, at
 * δ = --delta (default the auditor's): e.g. to find the judge noise at which
 * the lab's variances match the paper's. On a CPU adapter (SwiftShader) the small model is used
 * unless --full-size.
 * Without --checkpoint the cold start is the shipped one of the lab's default
 * task, or, when none ships, of the open-ended task without answer hints.
 * A checkpoint whose meta.task predates the hint knob was trained without
 * hints (hintRate 0).
 * --checkpoint is checked before any work. On failure the last stdout line is
 * {"error": message} (exit 1).
 * Prints progress on stderr and one JSON line on stdout:
 *   {"prompts", "groupSize", "repeats", "seed", "checkpoint", "temperature", "passRate",
 *    "settings": [{"label", "judge": {"sigmaJ", "sigmaB", "delta"}, "pointwise", "groupwise", "reduction", "rollouts", "repeats"}]}
 */
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { SMALL_CONFIG } from "../model/config";
import { loadCheckpoint } from "../model/checkpoint";
import { parseExperiment } from "../settings/experiment";
import { inProcessScorer } from "../run/reward-client";
import { LabRun } from "../run/lab-run";
import {
  MAX_STABILITY_GROUP_SIZE,
  MAX_STABILITY_PROMPTS,
  stabilityReport,
} from "../experiments/stability-study";
import { DEFAULT_AUDITOR } from "../rewards/auditor-judge";
import { checkpointFile, consoleSink, mnistFor, nodeContext, parseFlags } from "./node-run";
import { checkInputFile, finishCli } from "./out-files";

function intFlag(
  flags: Record<string, unknown>,
  name: string,
  fallback: number,
  lo: number,
  hi: number,
): number {
  const v = flags[name] ?? fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi)
    throw new Error(`--${name} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
  return v;
}

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

/** The σ_j × σ_b grid of --sigma-j / --sigma-b, or undefined for the default sweep. */
function gridSettings(
  flags: Record<string, unknown>,
): { label: string; sigmaJ: number; sigmaB: number; delta: number }[] | undefined {
  const j = flags["sigma-j"];
  const b = flags["sigma-b"];
  if (j === undefined && b === undefined) {
    if (flags.delta !== undefined) throw new Error("--delta needs --sigma-j and --sigma-b");
    return undefined;
  }
  if (j === undefined || b === undefined)
    throw new Error("--sigma-j and --sigma-b go together (their grid is the sweep)");
  const delta = (flags.delta as number | undefined) ?? DEFAULT_AUDITOR.delta;
  if (!(delta >= 0 && delta <= 1)) throw new Error(`--delta must be in [0, 1], got ${delta}`);
  return unitList("sigma-j", String(j)).flatMap((sigmaJ) =>
    unitList("sigma-b", String(b)).map((sigmaB) => ({
      label: `σ_j ${sigmaJ}, σ_b ${sigmaB}`,
      sigmaJ,
      sigmaB,
      delta,
    })),
  );
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    prompts: "number",
    "group-size": "number",
    repeats: "number",
    seed: "number",
    checkpoint: "string",
    temperature: "number",
    "full-size": "boolean",
    quiet: "boolean",
    "sigma-j": "string",
    "sigma-b": "string",
    delta: "number",
  });
  const prompts = intFlag(flags, "prompts", 16, 1, MAX_STABILITY_PROMPTS);
  const groupSize = intFlag(flags, "group-size", 8, 2, MAX_STABILITY_GROUP_SIZE);
  const repeats = intFlag(flags, "repeats", 4, 2, 1000);
  const seed = intFlag(flags, "seed", 1, 0, 2 ** 31 - 1);
  const temperature = flags.temperature as number | undefined;
  if (temperature !== undefined && !(temperature > 0 && temperature <= 5))
    throw new Error(`--temperature must be in (0, 5], got ${temperature}`);
  if (flags.checkpoint !== undefined) checkInputFile("--checkpoint", String(flags.checkpoint));
  const settings = gridSettings(flags);
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
    seed,
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
    `cold start: ${file}${ckpt.meta?.step !== undefined ? ` (step ${String(ckpt.meta.step)})` : ""}, ${run.paramCount} parameters; ${prompts} prompts × ${groupSize} rollouts, ${repeats} repeats`,
  );
  const report = await stabilityReport(run, {
    prompts,
    groupSize,
    repeats,
    seed,
    policy: "reference",
    ...(settings ? { settings } : {}),
  });
  ctx.destroy();
  const {
    prompts: p,
    groupSize: g,
    repeats: r,
    seed: s,
    temperature: t,
    passRate,
    settings: results,
  } = report;
  process.stdout.write(
    `${JSON.stringify({
      prompts: p,
      groupSize: g,
      repeats: r,
      seed: s,
      checkpoint: basename(file),
      temperature: t,
      passRate,
      settings: results,
    })}\n`,
  );
}

finishCli("stability", main());
