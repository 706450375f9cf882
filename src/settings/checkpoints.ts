/**
 * Names of the shipped cold-start checkpoints: one per task setting and model
 * size, under public/checkpoints/, made by `npm run train:sft`.
 */
import type { Experiment } from "./experiment";

/**
 * File name of the cold-start checkpoint for an experiment's task and model
 * size: `sft-<task>-<mc|open>[-hint][-slip<p>[-<box>box]][-misread<p>][-bind<p>]-<size>.ckpt`,
 * rates in percent. Knobs that change only the prompts' options (skew,
 * distractors) pick no cold start of their own.
 */
function checkpointFileName(exp: Pick<Experiment, "task" | "modelSize">): string {
  const t = exp.task;
  const task = t.family === "digits" ? `digits${t.numDigits}` : t.family;
  // Hinted tasks (TaskConfig.hintRate > 0) have their own cold start: its prompts carry the hint;
  // so do cold starts trained on slipped traces (TaskConfig.traceSlipRate > 0), named by
  // their rate in percent, so a rate that was never shipped trains its own cold start.
  const hint = t.hintRate > 0 ? "-hint" : "";
  const slipRate = t.traceSlipRate ?? 0;
  const slipBox = t.traceSlipBox ?? "answer";
  const box = slipBox !== "answer" ? `-${slipBox}box` : "";
  const slip = slipRate > 0 ? `-slip${Math.round(slipRate * 100)}${box}` : "";
  // Cold starts trained on misread digits (SCS scenario) or letter-bound traces (ACRE scenario),
  // by their rate in percent (TaskConfig.misreadRate, indexBindingRate).
  const misreadRate = t.misreadRate ?? 0;
  const misread = misreadRate > 0 ? `-misread${Math.round(misreadRate * 100)}` : "";
  const bindRate = t.indexBindingRate ?? 0;
  const bind = bindRate > 0 ? `-bind${Math.round(bindRate * 100)}` : "";
  return `sft-${task}-${t.multipleChoice ? "mc" : "open"}${hint}${slip}${misread}${bind}-${exp.modelSize}.ckpt`;
}

/** Path of that checkpoint relative to the site root (and to public/). */
export function checkpointPath(exp: Pick<Experiment, "task" | "modelSize">): string {
  return `checkpoints/${checkpointFileName(exp)}`;
}
