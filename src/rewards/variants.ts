/**
 * One entry point for the trainer and the reward worker: score a group with
 * any reward variant by name, with ONE object argument. It only dispatches to
 * the per-paper scorers, which stay the source of each formula.
 */
import type { TaskPrompt } from "../tasks/types";
import { scoreACRE } from "./acre";
import { createAuditorJudge, type AuditorConfig } from "./auditor-judge";
import {
  scoreGRR,
  scorePointwiseGR,
  scorePRMMean,
  scoreRLVR,
  type Judge,
  type ProcessRewardModel,
  type RankMapping,
} from "./grr";
import type { Rng } from "./rng";
import type { GroupScore } from "./rollout";
import { scoreSCS, type ScsForm } from "./scs";
import { scoreStructReward, type StructWeights } from "./structreward";

export const REWARD_VARIANTS = [
  "rlvr",
  "prm",
  "pointwise-gr",
  "grr",
  "structreward",
  "scs",
  "acre",
] as const;
export type RewardVariant = (typeof REWARD_VARIANTS)[number];

export interface ScoreGroupArgs {
  variant: RewardVariant;
  prompt: TaskPrompt;
  /** The G rollout texts of the prompt. */
  texts: readonly string[];
  /** Seeded randomness (judges). Required by "pointwise-gr" and "grr". */
  rng?: Rng;
  /** λ of R = r_ver + λ r_aux (GRR variants; default 1). */
  lambda?: number;
  /** A judge, or auditor noise settings (default: the rubric auditor). */
  judge?: Judge | Partial<AuditorConfig>;
  mapping?: RankMapping;
  prm?: ProcessRewardModel;
  weights?: Partial<StructWeights>;
  /** SCS: m continuation texts per rollout; c and form. */
  continuations?: ReadonlyArray<readonly string[]>;
  c?: number;
  form?: ScsForm;
  /** ACRE: second-pass texts and the shuffled options they were asked with. */
  second?: { texts: readonly string[]; options: ReadonlyArray<Record<string, string> | null> };
  alphas?: readonly number[];
  length?: { omega?: number; lMin: number; lMax: number };
}

function judgeOf(j: ScoreGroupArgs["judge"]): Judge {
  return j && typeof (j as Judge).groupwise === "function"
    ? (j as Judge)
    : createAuditorJudge(j as Partial<AuditorConfig> | undefined);
}

function need<T>(value: T | undefined, field: string, variant: string): T {
  if (value === undefined)
    throw new Error(`scoreGroup: ${field} is required for variant "${variant}"`);
  return value;
}

/**
 * `scoreGroup({variant, prompt, texts, ...})`: per-rollout totals and
 * components plus group info (judge calls, failures, tiers) for any variant.
 * Throws an Error naming the field for an unknown variant or a missing input
 * the variant needs; never throws on rollout text.
 */
export function scoreGroup(args: ScoreGroupArgs): GroupScore {
  const { variant, prompt, texts } = args;
  switch (variant) {
    case "rlvr":
      return scoreRLVR(prompt, texts);
    case "prm":
      return scorePRMMean(prompt, texts, {
        prm: need(args.prm, "prm", variant),
        lambda: args.lambda,
      });
    case "pointwise-gr":
      return scorePointwiseGR(
        prompt,
        texts,
        { judge: judgeOf(args.judge), lambda: args.lambda },
        need(args.rng, "rng", variant),
      );
    case "grr":
      return scoreGRR(
        prompt,
        texts,
        { judge: judgeOf(args.judge), lambda: args.lambda, mapping: args.mapping },
        need(args.rng, "rng", variant),
      );
    case "structreward":
      return scoreStructReward(prompt, texts, { weights: args.weights });
    case "scs":
      return scoreSCS(prompt, texts, need(args.continuations, "continuations", variant), {
        c: args.c,
        form: args.form,
      });
    case "acre":
      return scoreACRE(prompt, texts, need(args.second, "second", variant), {
        alphas: args.alphas,
        length: args.length,
      });
    default:
      throw new Error(
        `scoreGroup: unknown variant ${JSON.stringify(variant)} (use ${REWARD_VARIANTS.join("|")})`,
      );
  }
}
