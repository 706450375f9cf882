/**
 * Cold-start SFT on the normalized format (docs/reward-spec.md §0): cross-entropy on
 * the response tokens of the task's SFT targets, AdamW with warm-up and a
 * cosine decay (nanoGPT's get_lr).
 */
import type { TaskGenerator } from "../tasks/generator";
import { deriveSeed, Rng } from "../tasks/rng";
import type { LabEngine, Policy, UpdateStats } from "./lab-engine";
import { imageTensor, joinPromptResponse, promptTensor, targetTensor } from "./sequences";

/**
 * Learning rate at `step` of `total`: 1) linear warm-up over the first 5 % of
 * steps, 2) cosine decay to 10 % of `maxLr`, 3) `maxLr / 10` past the end
 * (nanoGPT train.py get_lr; the fractions are a lab choice).
 */
export function sftLearningRate(step: number, total: number, maxLr: number): number {
  const warmup = Math.max(1, Math.round(0.05 * total));
  const minLr = maxLr / 10;
  if (step < warmup) return (maxLr * (step + 1)) / warmup; // 1
  if (step >= total) return minLr; // 3
  const ratio = (step - warmup) / Math.max(1, total - warmup); // 2
  return minLr + 0.5 * (1 + Math.cos(Math.PI * ratio)) * (maxLr - minLr);
}

/** Runs one SFT step on a fresh batch; returns the step's statistics. */
export async function sftStep(
  engine: LabEngine,
  policy: Policy,
  tasks: TaskGenerator,
  args: { step: number; total: number; batch: number; lr: number; seed: number },
): Promise<UpdateStats> {
  const prompts = tasks.sampleBatch(args.batch, new Rng(deriveSeed(args.seed, "sft", args.step)));
  const text = joinPromptResponse(
    promptTensor(prompts, engine.shape.promptLen),
    targetTensor(prompts, engine.shape.maxNew),
    engine.shape,
  );
  return engine.sftUpdate(
    policy,
    imageTensor(prompts),
    text,
    sftLearningRate(args.step, args.total, args.lr),
  );
}
