/**
 * Headless lab on Node (same engine and reward code as the page):
 *   npm run lab -- --preset <name> [--steps N] [--seed S] [--lr X] [--temperature T] [--out DIR]
 *                  [--sft-steps N] [--from-scratch] [--full-size] [--quiet]
 * On a CPU adapter (SwiftShader) the small model is used unless --full-size.
 * Prints progress on stderr and ends with one JSON line on stdout:
 *   {"preset", "sft": {metrics}, "variants": {"<name>": {"final": {metrics}}}}
 */
import { LabRun } from "../rl/runner";
import { presetExperiment, PRESET_NAMES } from "../rl/presets";
import { parseExperiment } from "../rl/experiment";
import { inProcessScorer } from "../rl/reward-client";
import type { EvalMetrics } from "../rl/eval-metrics";
import { consoleSink, loadShippedCheckpoint, mnistFor, nodeContext, parseFlags } from "./node-run";

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    preset: "string", steps: "number", seed: "number", lr: "number", temperature: "number", out: "string", "sft-steps": "number", "from-scratch": "boolean", "full-size": "boolean", quiet: "boolean",
  });
  const preset = String(flags.preset ?? "smoke");
  if (!PRESET_NAMES.includes(preset)) throw new Error(`unknown preset '${preset}'; known: ${PRESET_NAMES.join(", ")}`);
  const exp = presetExperiment(preset, {
    steps: flags.steps as number | undefined,
    seed: flags.seed as number | undefined,
  });
  if (flags["sft-steps"] !== undefined) exp.sftSteps = flags["sft-steps"] as number;
  if (flags.lr !== undefined) exp.algorithm.lr = parseExperiment({ ...exp, algorithm: { ...exp.algorithm, lr: flags.lr } }).algorithm.lr;
  if (flags.temperature !== undefined) {
    exp.algorithm.temperature = parseExperiment({ ...exp, algorithm: { ...exp.algorithm, temperature: flags.temperature } }).algorithm.temperature;
  }
  const sink = consoleSink(flags.out as string | undefined, Boolean(flags.quiet));
  const ctx = await nodeContext();
  sink.log(`adapter: ${ctx.adapter.description}${ctx.adapter.isFallback ? " (CPU fallback)" : ""}`);
  if (ctx.adapter.isFallback && exp.modelSize === "default" && !flags["full-size"]) {
    // Same rule as the page: a CPU adapter gets the small model (d = 64, 2 layers).
    exp.modelSize = "small";
    sink.log("CPU adapter: using the small model (pass --full-size to keep the default d = 128, 4 layers)");
  }
  const ckpt = flags["from-scratch"] ? null : loadShippedCheckpoint(exp);
  const run = new LabRun(ctx, exp, sink, inProcessScorer, mnistFor(exp), ckpt ? { config: ckpt.config, params: ckpt.params } : null);
  sink.log(`model: ${run.paramCount} parameters, ${ckpt ? "cold start from the shipped SFT checkpoint" : `SFT from scratch (${exp.sftSteps} steps)`}`);
  let sft: EvalMetrics;
  if (ckpt) sft = await run.evalStart();
  else {
    sft = (await run.sft(exp.sftSteps, 0))!; // never stopped early here
    await run.evalStart();
  }
  for (let s = 0; s < exp.algorithm.steps; s++) await run.rlStep();
  const variants: Record<string, { final: EvalMetrics }> = {};
  for (const name of run.variantNames) {
    const last = [...sink.rows].reverse().find((r) => r.variant === name && r.kind === "eval");
    variants[name] = { final: last!.values as unknown as EvalMetrics };
  }
  ctx.destroy();
  process.stdout.write(JSON.stringify({ preset, sft, variants }) + "\n");
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`lab: ${(e as Error).message}`);
    process.exit(1);
  },
);
