/**
 * The extra generation passes some rewards need beyond the G rollouts of a
 * step (the variant table's `passes`):
 *   truncated-continuations  SCS §3 (Alg. 1): keep the first floor(k·L)
 *     response tokens of each rollout, perturb the image m times, and sample
 *     m continuations from the kept prefix (one batched generate call: the
 *     kept prefixes are prefilled into the KV cache in one batched pass,
 *     then sampling goes on).
 *   option-shuffle-reask     ACRE §3: ask the same question with the options
 *     shuffled, keep the rollout's reasoning up to and including `</think>`
 *     as a forced prefix, and sample the answer after it.
 * Both return per-group results the reward side scores (GroupPasses).
 */
import { decodeResponse, EOS_ID, THINK_END_ID } from "../tasks/tokenizer";
import { deriveSeed, Rng } from "../tasks/rng";
import { reaskWithShuffledOptions } from "../tasks/generator";
import type { TaskPrompt } from "../tasks/types";
import type { GenerateResult } from "../model/generate";
import type { LabEngine, Policy } from "../engine/lab-engine";
import type { AlgorithmConfig } from "../settings/experiment";
import { perturbImages } from "./perturb";
import { imageTensor, promptTensor, row } from "../engine/sequences";
import type { ContinuationSettings, GroupPasses } from "../settings/variant-table";

/** Sampling of a pass: the step's rollout temperature and filters, and its seed. */
interface PassSampling {
  alg: Pick<AlgorithmConfig, "temperature" | "topK" | "topP">;
  seed: number;
}

/** Response tokens of row i of a generate result, EOS excluded. */
function responseIds(gen: GenerateResult, i: number, maxNew: number, eosId: number): Int32Array {
  const ids = row(gen.tokens, i, maxNew);
  const len = gen.lengths[i];
  return ids.subarray(0, len > 0 && ids[len - 1] === eosId ? len - 1 : len);
}

/**
 * One generate call of a pass: images [rows, pixels] and prompts [rows,
 * promptLen], rows in groups of `groupSize` that share their image (and,
 * where they are equal, their prompt: the generator then prefills it once per
 * group), each row's forced prefix (null: none; prefilled in one batched
 * pass), then sampling at the step's temperature and filters from the pass's
 * own stream `stream` of the step seed.
 */
function sampleForced(
  engine: LabEngine,
  policy: Pick<Policy, "params">,
  images: Float32Array,
  promptIds: Int32Array,
  forced: readonly (Int32Array | null)[],
  sampling: PassSampling,
  stream: string,
  groupSize: number,
  greedy = false,
): Promise<GenerateResult> {
  const { temperature, topK, topP } = sampling.alg;
  const seed = deriveSeed(sampling.seed, stream);
  return engine.generate(
    policy,
    images,
    promptIds,
    { temperature, topK, topP, greedy, seed },
    groupSize,
    forced,
  );
}

/**
 * Kept prefix length of a response of `length` tokens: floor(k·length)
 * (docs/reward-spec.md §4: k fixed, in model tokens).
 */
export function keptTokens(length: number, k: number): number {
  return Math.floor(k * length);
}

/**
 * SCS's truncation–resampling with visual perturbation for every rollout of
 * a step. `gen` holds the rollouts [prompts·G, maxNew] in group order; the
 * continuations are one generate call of prompts·G·m rows (rollout-major:
 * row i·m + t is continuation t of rollout i), each forced through its
 * rollout's kept prefix under its own perturbed image, then sampled at the
 * step's temperature from the seed's "scs" streams (greedy with
 * `settings.greedy`: the perturbation-only ablation arm).
 * @returns per group: `continuations[k]` the m full response texts (kept
 *   prefix + continuation) of rollout k, `keptTokens[k]` its kept length,
 *   `sigmas[k]` the m noise levels; plus the generate result (for tests).
 * `settings` are the scs weights as parsed at the trainer's entry (k ∈ [0, 1],
 * m ≥ 1, 0 ≤ σ_min ≤ σ_max ≤ 1): not checked again here.
 */
export async function truncatedContinuations(
  engine: LabEngine,
  policy: Pick<Policy, "params">,
  prompts: readonly TaskPrompt[],
  groupSize: number,
  gen: GenerateResult,
  settings: ContinuationSettings,
  sampling: PassSampling,
): Promise<{ groups: GroupPasses[]; result: GenerateResult }> {
  const { k, m } = settings;
  const { promptLen, maxNew } = engine.shape;
  const eos = EOS_ID;
  const n = prompts.length * groupSize;
  const pixels = prompts[0].image.length;
  const perturbed = perturbImages(
    imageTensor(prompts, groupSize),
    pixels,
    m,
    settings,
    deriveSeed(sampling.seed, "scs-noise"),
  );
  const kept: number[] = [];
  const forced: (Int32Array | null)[] = [];
  for (let i = 0; i < n; i++) {
    const ids = responseIds(gen, i, maxNew, eos);
    const keep = keptTokens(ids.length, k);
    kept.push(keep);
    for (let t = 0; t < m; t++) forced.push(keep > 0 ? ids.subarray(0, keep) : null);
  }
  // Without noise (σ_max = 0: truncation only) the G·m continuations of a group see the same
  // image and prompt, which the generator then prefills once per group; otherwise each its own.
  const result = await sampleForced(
    engine,
    policy,
    perturbed.images,
    promptTensor(prompts, promptLen, groupSize * m),
    forced,
    sampling,
    "scs",
    settings.sigmaMax === 0 ? groupSize * m : 1,
    settings.greedy === true,
  );
  const groups = prompts.map((_, g): GroupPasses => {
    const rollouts = Array.from({ length: groupSize }, (_, r) => g * groupSize + r);
    return {
      continuations: rollouts.map((i) =>
        Array.from({ length: m }, (_, t) => decodeResponse(row(result.tokens, i * m + t, maxNew))),
      ),
      keptTokens: rollouts.map((i) => kept[i]),
      sigmas: rollouts.map((i) => Array.from(perturbed.sigmas.subarray(i * m, (i + 1) * m))),
    };
  });
  return { groups, result };
}

/**
 * ACRE's second pass for every rollout of a step: rollout i's prompt asked
 * again with its options shuffled (never the identity; the seed's "acre"
 * stream), its response up to and including `</think>` forced, and the answer
 * after it sampled at the step's temperature ("acre-answer" stream). One
 * generate call of prompts·G rows. A rollout without `</think>` (or with it
 * in the last position) gets no second answer: text null.
 * @returns per group: `reask.texts[k]` the second response (forced trace +
 *   answer) of rollout k or null, `reask.options[k]` the options it was asked with.
 * @throws Error for an open-ended prompt (no options to shuffle).
 */
export async function optionShuffleReask(
  engine: LabEngine,
  policy: Pick<Policy, "params">,
  prompts: readonly TaskPrompt[],
  groupSize: number,
  gen: GenerateResult,
  sampling: PassSampling,
): Promise<{ groups: GroupPasses[]; result: GenerateResult }> {
  const { promptLen, maxNew } = engine.shape;
  const rng = new Rng(deriveSeed(sampling.seed, "acre"));
  const n = prompts.length * groupSize;
  const reasked = Array.from({ length: n }, (_, i) =>
    reaskWithShuffledOptions(prompts[Math.floor(i / groupSize)], rng),
  );
  const forced = Array.from({ length: n }, (_, i) => {
    const ids = row(gen.tokens, i, maxNew);
    const end = ids.indexOf(THINK_END_ID);
    return end >= 0 && end < maxNew - 1 ? ids.subarray(0, end + 1) : null;
  });
  const result = await sampleForced(
    engine,
    policy,
    imageTensor(prompts, groupSize),
    promptTensor(
      reasked.map((r) => r.prompt),
      promptLen,
    ),
    forced,
    sampling,
    "acre-answer",
    groupSize, // the group's image, prefilled once (the shuffled prompts differ)
  );
  const groups = prompts.map((_, g): GroupPasses => {
    const rollouts = Array.from({ length: groupSize }, (_, r) => g * groupSize + r);
    return {
      reask: {
        texts: rollouts.map((i) =>
          forced[i] === null ? null : decodeResponse(row(result.tokens, i, maxNew)),
        ),
        options: rollouts.map((i) => reasked[i].options),
      },
    };
  });
  return { groups, result };
}
