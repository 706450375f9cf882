/**
 * One RL step of one reward variant, readable top to bottom (CleanRL style):
 *   1 rollouts: G samples per prompt on the GPU
 *   2 rewards: the variant's reward on the detokenized texts (reward worker)
 *   3 advantages: the estimator kernel on the GPU
 *   4 update: clipped policy-gradient loss + k3 KL, backward, AdamW (GPU)
 *   4b the variant's auxiliary step, if it has one on (StructReward's
 *      recycling and hard negatives: target cross-entropy, ./aux-step.ts)
 *   5 metrics and a sample group for the inspector
 * The same prompts are used by every variant at a step, so curves compare
 * step for step.
 */
import { judgeConsistency, parseTrace, type GroupScore } from "../rewards/index";
import { decodeResponse } from "../tasks/tokenizer";
import type { TaskPrompt } from "../tasks/types";
import type { GroupView, MetricValues } from "./step-types";
import type { LabEngine, Policy } from "../engine/lab-engine";
import type { AlgorithmConfig, VariantConfig } from "../settings/experiment";
import { scoringPrompt, type RewardScorer } from "./reward-contract";
import { foldKlIntoRewards } from "./kl-penalty";
import { estimatorEntry } from "../settings/estimator-table";
import { evalMetrics, isLuckyGuess } from "./eval-metrics";
import {
  COMPONENT_PREFIX,
  type RolloutClassKey,
  type TrainMetricKey,
} from "../settings/metric-table";
import { variantEntry, type GroupPasses, type VariantEntry } from "../settings/variant-table";
import { optionShuffleReask, truncatedContinuations } from "./passes";
import { auxStep } from "./aux-step";
import { rolloutFacts } from "./rollout-class";
import { creditValues, shuffleChanged } from "./credit";
import type { SampleTokens } from "./token-weights";
import type { GenerateResult } from "../model/generate";
import {
  imageTensor,
  joinPromptResponse,
  promptTensor,
  row,
  type TextBatch,
} from "../engine/sequences";

/** Inputs of one step. */
export interface RlStepArgs {
  engine: LabEngine;
  policy: Policy;
  variant: VariantConfig;
  algorithm: AlgorithmConfig;
  prompts: readonly TaskPrompt[];
  scorer: RewardScorer;
  step: number;
  /** Seed of this (variant, step): sampling and judge noise. */
  seed: number;
  /**
   * The rollouts, when another copy already generated them from the same
   * parameters, prompts and seed (LabRun: the first RL step of the variants
   * of one seed); absent: generated here. Same tokens either way.
   */
  rollouts?: GenerateResult;
}

/** What one step reports. */
export interface RlStepResult {
  values: MetricValues;
  /**
   * The rewards the estimator got [prompts·G], in group order: the variant's
   * totals, with the k1 KL penalty folded in for a REINFORCE++ estimator
   * with β > 0 (foldKlIntoRewards); NaN or null = unscorable.
   */
  rewards: (number | null)[];
  /** Per-rollout Σ_t (logπ_old − logπ_ref) over response tokens [prompts·G] when folded into the rewards, else null. */
  klSums: number[] | null;
  /** The advantages the update used [prompts·G], read back from the GPU kernel. */
  advantages: Float32Array;
  /**
   * True when AdamW skipped the update (a NaN/Inf gradient): the policy's
   * parameters and optimizer state are as before the step (LabEngine.policyUpdate).
   */
  updateSkipped: boolean;
  sample: GroupView;
  /** The sample group's tokens, sampling logprobs and loss settings, for its token weights (./token-weights.ts). */
  sampleTokens: SampleTokens;
  /** The step's rollouts [prompts·G] (args.rollouts when given). */
  rollouts: GenerateResult;
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

function std(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) * (b - m), 0) / (xs.length - 1));
}

/**
 * Per-rollout k1 KL sums Σ_t (logπ_old − logπ_ref) over the response tokens
 * (batch.mask) of `batch` [N], logprobs at the sampling temperature.
 */
async function rolloutKlSums(
  engine: LabEngine,
  policy: Policy,
  images: Float32Array,
  batch: TextBatch,
  temperature: number,
): Promise<number[]> {
  const lp = await engine.logprobs(policy, images, batch, temperature);
  const textLen = engine.textLen;
  const rollouts = batch.tokens.length / textLen;
  return Array.from({ length: rollouts }, (_, i) => {
    let sum = 0;
    for (let t = i * textLen; t < (i + 1) * textLen; t++)
      if (batch.mask[t]) sum += lp.old[t] - lp.ref[t];
    return sum;
  });
}

/**
 * Runs the generation passes of `entry` (in table order; each adds its part
 * of every group's GroupPasses), or returns undefined when it has none.
 * The pass weights are the variant's, parsed by its schema.
 */
async function runPasses(
  entry: VariantEntry,
  variant: VariantConfig,
  args: RlStepArgs,
  gen: GenerateResult,
): Promise<GroupPasses[] | undefined> {
  if (entry.passes.length === 0) return undefined;
  const { engine, policy, prompts, algorithm: alg } = args;
  const G = alg.groupSize;
  const weights = entry.weights.parse(variant.weights);
  const sampling = { alg, seed: args.seed };
  const out: GroupPasses[] = prompts.map(() => ({}));
  for (const pass of entry.passes) {
    const part =
      pass === "truncated-continuations"
        ? await truncatedContinuations(
            engine,
            policy,
            prompts,
            G,
            gen,
            {
              k: Number(weights.k),
              m: Number(weights.m),
              sigmaMin: Number(weights.sigmaMin),
              sigmaMax: Number(weights.sigmaMax),
            },
            sampling,
          )
        : await optionShuffleReask(engine, policy, prompts, G, gen, sampling);
    part.groups.forEach((g, i) => {
      Object.assign(out[i], g);
    });
  }
  return out;
}

/**
 * Runs one RL step.
 * @throws Error on a diverged loss (parameters untouched), a reward-side failure, or
 *   `args.rollouts` of another shape than [prompts·G] rows of maxNew tokens.
 */
export async function rlStep(args: RlStepArgs): Promise<RlStepResult> {
  const { engine, policy, variant, algorithm: alg, prompts, scorer } = args;
  const t0 = performance.now();
  const stats0 = { ...engine.ctx.stats };
  const G = alg.groupSize;
  const { promptLen, maxNew } = engine.shape;
  const estimator = variant.estimator ?? alg.estimator;
  const beta = variant.beta ?? alg.beta;
  const entry = variantEntry(variant.name);

  // ---- 1 rollouts: G samples of every prompt, in group order ----
  const images = imageTensor(prompts, G);
  const promptIds = promptTensor(prompts, promptLen, G);
  const N = prompts.length * G;
  if (
    args.rollouts &&
    (args.rollouts.tokens.length !== N * maxNew || args.rollouts.lengths.length !== N)
  )
    throw new Error(
      `rlStep: the given rollouts hold ${args.rollouts.lengths.length} rows of ${args.rollouts.tokens.length / Math.max(1, args.rollouts.lengths.length)} tokens, not ${N} rows of ${maxNew}`,
    );
  const gen =
    args.rollouts ??
    (await engine.generate(
      policy,
      images,
      promptIds,
      {
        temperature: alg.temperature,
        topK: alg.topK,
        topP: alg.topP,
        greedy: false,
        seed: args.seed,
      },
      G,
    ));
  const texts: string[][] = prompts.map((_, g) =>
    Array.from({ length: G }, (_, k) => decodeResponse(row(gen.tokens, g * G + k, maxNew))),
  );
  const batch = joinPromptResponse(promptIds, gen.tokens, engine.shape);
  const t1 = performance.now();

  // ---- 1b the variant's extra generation passes (SCS continuations, ACRE re-ask) ----
  const passes = await runPasses(entry, variant, args, gen);
  const t1b = performance.now();

  // ---- 2 rewards (reward worker in the browser) ----
  const scored = await scorer.score({
    variant,
    prompts: prompts.map(scoringPrompt),
    texts,
    seed: args.seed,
    passes,
    // Only a variant that reads the learned PRM sends the images to the reward side.
    images: entry.prm === true ? prompts.map((p) => p.image) : undefined,
  });
  const groups: GroupScore[] = scored.groups;
  const rawRewards = groups.flatMap((g) => g.rollouts.map((r) => (r.unscorable ? NaN : r.total)));

  // REINFORCE++ folds a k1 KL penalty into the reward instead of the loss (docs/reward-spec.md §1).
  let rewards: (number | null)[] = rawRewards;
  let klSums: number[] | null = null;
  let lossBeta = beta;
  if (estimatorEntry(estimator).klInReward) {
    if (beta > 0) {
      klSums = await rolloutKlSums(engine, policy, images, batch, alg.temperature);
      rewards = foldKlIntoRewards({ rewards: rawRewards, klSums, beta });
    }
    lossBeta = 0;
  }

  // ---- 3 advantages on the GPU ----
  const t2 = performance.now();
  const adv = await engine.advantages(rewards, G, estimator, alg.std, alg.eps);
  const t3 = performance.now();

  // ---- 4 update on the GPU ----
  const upd = await engine.policyUpdate(policy, images, batch, adv.kernel.advantages, {
    clipEps: alg.clipEps,
    beta: lossBeta,
    aggregation: alg.aggregation,
    lr: alg.lr,
    temperature: alg.temperature,
    groupSize: G,
  });
  const advantages = await adv.kernel.readAdvantages();
  const t4 = performance.now();

  // ---- 4b the auxiliary step (StructReward recycling / hard negatives), after the update ----
  const auxConfig = entry.auxiliary?.(variant.weights) ?? null;
  const auxValues = auxConfig
    ? await auxStep(engine, policy, {
        prompts,
        texts,
        config: auxConfig,
        lr: alg.lr,
        seed: args.seed,
      })
    : null;

  // ---- 5 metrics ----
  // Metrics show the reward itself (without a folded KL penalty), comparable across variants.
  const finite = rawRewards.filter((r) => Number.isFinite(r));
  const stepMs = t4 - t0 + (auxValues?.aux_ms ?? 0);
  // The paper metrics on the step's own sampled rollouts: drift shows here every step, between the held-out evals.
  const onRollouts = evalMetrics(
    prompts.flatMap((p) => Array.from({ length: G }, () => p)),
    texts.flat(),
  );
  const stepValues: Record<TrainMetricKey, number> = {
    reward_mean: mean(finite),
    reward_std: std(finite),
    frac_reward_zero_std: adv.groups.zeroStd.filter(Boolean).length / prompts.length,
    frac_unscorable: adv.unscorable / N,
    train_acc: mean(groups.flatMap((g) => g.rollouts.map((r) => (r.verifierPassed ? 1 : 0)))),
    kl: upd.kl,
    entropy: upd.entropy,
    loss: upd.loss,
    clip_frac: upd.clipFrac,
    grad_norm: upd.gradNorm,
    update_skipped: upd.finite ? 0 : 1,
    response_length: mean(Array.from(batch.lengths)),
    judge_calls: groups.reduce((a, g) => a + g.judgeCalls, 0),
    judge_failures: groups.reduce((a, g) => a + g.judgeFailures, 0),
    step_time_ms: stepMs,
    generate_ms: t1 - t0,
    passes_ms: t1b - t1,
    reward_ms: t2 - t1b,
    advantages_ms: t3 - t2,
    update_ms: t4 - t3,
    dispatches: engine.ctx.stats.dispatches - stats0.dispatches,
    submits: engine.ctx.stats.submits - stats0.submits,
    train_incr: onRollouts.incR,
    train_cbir: onRollouts.cbir,
    train_rcacc: onRollouts.rcAcc,
    train_hint_follow: onRollouts.hintFollow,
    train_step_acc: onRollouts.stepAcc,
  };
  // What the reward paid each class of rollout, with the advantages the update used (read back above).
  const facts = prompts.map((p, g) => texts[g].map((t) => rolloutFacts(p, t)));
  const credit = creditValues(
    prompts.map((p, g) => {
      const reask = passes?.[g]?.reask;
      const changed = reask ? shuffleChanged(p, texts[g], reask) : null;
      return texts[g].map((_, k) => ({
        facts: facts[g][k],
        reward: rawRewards[g * G + k],
        advantage: advantages[g * G + k],
        changed: changed?.[k] ?? null,
      }));
    }),
  );
  const values: MetricValues = { ...stepValues, ...auxValues, ...credit };
  const componentNames = new Set(
    groups.flatMap((g) => g.rollouts.flatMap((r) => Object.keys(r.components))),
  );
  for (const c of componentNames)
    values[`${COMPONENT_PREFIX}${c}`] = mean(
      groups.flatMap((g) => g.rollouts.map((r) => r.components[c] ?? 0)),
    );

  return {
    values,
    rewards,
    klSums,
    advantages,
    updateSkipped: !upd.finite,
    sample: groupView(
      variant.name,
      args.step,
      prompts[0],
      texts[0],
      groups[0],
      advantages.subarray(0, G),
      passes?.[0],
      facts[0].map((f) => f.cls),
      Array.from({ length: G }, (_, k) => row(gen.tokens, k, maxNew)),
    ),
    sampleTokens: {
      prompt: prompts[0],
      responseIds: gen.tokens.slice(0, G * maxNew),
      logprobs: gen.logprobs.slice(0, G * maxNew),
      lengths: batch.lengths.slice(0, G),
      advantages: advantages.slice(0, G),
      estimator,
      beta,
      clipEps: alg.clipEps,
      aggregation: alg.aggregation,
      temperature: alg.temperature,
      batchRows: N,
      batchTokens: batch.lengths.reduce((a, b) => a + b, 0),
      normLength: maxNew,
    },
    rollouts: gen,
  };
}

/** The inspector's view of one group. */
function groupView(
  variant: string,
  step: number,
  prompt: TaskPrompt,
  texts: readonly string[],
  group: GroupScore,
  advantages: ArrayLike<number>,
  passes: GroupPasses | undefined,
  classes: readonly RolloutClassKey[],
  responseIds: readonly Int32Array[],
): GroupView {
  const answerOf = (t: string | null) => {
    if (t === null) return null;
    const p = parseTrace({ text: t });
    return p.answerTruncated ? null : p.finalAnswer;
  };
  const scsOf = (i: number) =>
    passes?.continuations && passes.keptTokens
      ? {
          keptTokens: passes.keptTokens[i],
          keptText: decodeResponse(responseIds[i].subarray(0, passes.keptTokens[i])),
          continuations: passes.continuations[i].map((t, c) => ({
            answer: answerOf(t),
            sigma: passes.sigmas?.[i][c] ?? 0,
          })),
        }
      : undefined;
  const reaskOf = (i: number) =>
    passes?.reask
      ? {
          options: passes.reask.options[i],
          answer: answerOf(passes.reask.texts[i]),
          firstAnswer: answerOf(texts[i]),
        }
      : undefined;
  const rankOf = new Map<number, number>();
  group.tiers?.forEach((tier, m) => {
    for (const i of tier) rankOf.set(i, m + 1);
  });
  return {
    variant,
    step,
    promptId: prompt.id,
    question: prompt.question,
    options: prompt.options,
    answer: prompt.answer.letter
      ? `${prompt.answer.letter} (${prompt.answer.content})`
      : prompt.answer.content,
    image: {
      data: prompt.image.slice(),
      height: prompt.height,
      width: prompt.width,
      channels: prompt.channels,
    },
    rollouts: texts.map((text, i) => ({
      text,
      total: group.rollouts[i].total,
      components: group.rollouts[i].components,
      verifierPassed: group.rollouts[i].verifierPassed,
      judgment: judgeConsistency({ text, options: prompt.options }).judgment,
      luckyGuess: isLuckyGuess(prompt, text),
      rolloutClass: classes[i],
      rank: rankOf.get(i) ?? null,
      advantage: advantages[i],
      unscorable: group.rollouts[i].unscorable,
      scs: scsOf(i),
      reask: reaskOf(i),
      stepScores: group.rollouts[i].stepScores,
    })),
    judgeReply: group.judgeOutputs?.[0],
  };
}
