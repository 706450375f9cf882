/**
 * The held-out eval pass of one policy: the first answers, ACRE's option-
 * shuffle re-ask (OSCR, eq. 2) and SCS's distinct-options statistic (Fig. 2c,
 * App. C.2), then the metrics of ./eval-metrics.ts. The trainer worker and
 * the CLI reach it through LabRun.
 *
 *   1 first answers: one generate call over the prompts, greedy when the
 *     eval temperature is 0, else sampled at it from the seed's "eval" stream
 *   2 re-ask (multiple-choice prompts): the options shuffled (the seed's
 *     "oscr" stream, never the identity), the first response up to and
 *     including `</think>` forced, the answer after it decoded as in 1
 *     ("oscr-answer" stream); a response without `</think>` is not re-asked
 *   2b at a sampled eval, 1 and 2 again greedily (ACRE §5.1 decodes at τ 0.01
 *     with top-p 0.001, which keeps the most likely token) with the same
 *     shuffles: oscrGreedy; at a greedy eval it is OSCR itself
 *   3 distinct options (the first DISTINCT_PROMPTS multiple-choice prompts):
 *     for each k of DISTINCT_KS, the first response's first ⌊k·L⌋ tokens
 *     (L: its tokens, EOS excluded) forced, DISTINCT_CONTINUATIONS
 *     continuations sampled at the rollout temperature with the unperturbed
 *     image ("distinct-k<k>" stream); one generate call per k
 */
import { deriveSeed, Rng } from "../tasks/rng";
import { reaskWithShuffledOptions } from "../tasks/generator";
import { decodeResponse, EOS_ID, THINK_END_ID } from "../tasks/tokenizer";
import type { TaskPrompt } from "../tasks/types";
import type { LabEngine, Policy } from "../engine/lab-engine";
import { imageTensor, promptTensor, row } from "../engine/sequences";
import {
  DISTINCT_CONTINUATIONS,
  DISTINCT_KS,
  evalMetrics,
  type DistinctPass,
  type EvalMetrics,
  type Reasked,
} from "./eval-metrics";
import { letterShare } from "./letter-prior";
import { optionShuffleMetrics, reaskPairs } from "./option-shuffle-metrics";

/**
 * Multiple-choice prompts the distinct-options statistic measures per eval:
 * the first 128 (lab choice: 128 × 4 continuations is one generate batch of
 * 512 rows, the engine's largest; a prompt moves the mean by at most 3/128).
 */
const DISTINCT_PROMPTS = 128;

/** How an eval decodes: its temperature (0 = greedy) and the rollouts' temperature. */
export interface HeldOutDecoding {
  /** Experiment.evalTemperature: 0 greedy, else sampled at it. */
  evalTemperature: number;
  /** AlgorithmConfig.temperature: the distinct-options continuations sample at it (SCS samples at τ 1, Tab. 6–9). */
  rolloutTemperature: number;
  /**
   * TaskConfig.skewLetter when the training prompts are skewed
   * (TaskConfig.optionSkew > 0): the held-out answers' share of it is
   * measured (`skewLetterShare`). Absent: not measured.
   */
  skewLetter?: string;
}

/**
 * One eval generate call: `prompts` [n] with their images, `forced[i]` forced
 * after the separator (null: none), decoded at `temperature` (0 = greedy),
 * sampled from `stream` of `seed`; `copies` rows per prompt (prompt-major),
 * generated as groups of `copies` (the image and prompt prefilled once per
 * prompt, GeneratorOptions.groupSize; the tokens are those of unshared rows).
 * @returns the response texts [n·copies] and the token rows [n·copies, maxNew].
 */
export async function evalGenerate(
  engine: LabEngine,
  policy: Pick<Policy, "params">,
  prompts: readonly TaskPrompt[],
  temperature: number,
  seed: number,
  stream: string,
  forced?: ReadonlyArray<Int32Array | number[] | null>,
  copies = 1,
): Promise<{ texts: string[]; tokens: Int32Array }> {
  const { promptLen, maxNew } = engine.shape;
  const gen = await engine.generate(
    policy,
    imageTensor(prompts, copies),
    promptTensor(prompts, promptLen, copies),
    {
      temperature: temperature > 0 ? temperature : 1,
      topK: 0,
      topP: 1,
      greedy: temperature === 0,
      seed: temperature === 0 ? 0 : deriveSeed(seed, stream),
    },
    // A prompt's copies share its image and prompt: their prefill runs once (same tokens as unshared).
    copies,
    forced,
  );
  const texts = Array.from({ length: prompts.length * copies }, (_, i) =>
    decodeResponse(row(gen.tokens, i, maxNew)),
  );
  return { texts, tokens: gen.tokens };
}

/** Response tokens of row i, up to (not including) the first EOS. */
function responseTokens(tokens: Int32Array, i: number, maxNew: number): number[] {
  const ids = Array.from(row(tokens, i, maxNew));
  const end = ids.indexOf(EOS_ID);
  return end >= 0 ? ids.slice(0, end) : ids;
}

/**
 * Held-out metrics of `policy` on `prompts` under `seed` (the steps above).
 * Open-ended prompts get no re-ask and no distinct-options pass, so a run
 * without multiple-choice prompts reports neither OSCR nor distinct options.
 * @throws Error from the engine (a lost device) or evalMetrics.
 */
export async function heldOutMetrics(
  engine: LabEngine,
  policy: Pick<Policy, "params">,
  prompts: readonly TaskPrompt[],
  seed: number,
  decoding: HeldOutDecoding,
): Promise<EvalMetrics> {
  const { maxNew } = engine.shape;
  const t = decoding.evalTemperature;
  const first = await evalGenerate(engine, policy, prompts, t, seed, "eval");
  const mc = prompts.flatMap((p, i) => (p.options ? [i] : []));
  if (mc.length === 0) return evalMetrics(prompts, first.texts);

  // 2 the option-shuffle re-ask
  const reask = await reaskPass(engine, policy, prompts, mc, first.tokens, t, seed);
  // 2b the same at ACRE §5.1's decoding (τ 0.01, top-p 0.001: the most likely token), same shuffles
  let greedyPairs = null;
  if (t > 0) {
    const g = await evalGenerate(engine, policy, prompts, 0, seed, "eval");
    const gReask = await reaskPass(engine, policy, prompts, mc, g.tokens, 0, seed);
    greedyPairs = reaskPairs(prompts, g.texts, gReask);
  }

  // 3 distinct options among continuations from the same prefix
  const measured = mc.slice(0, DISTINCT_PROMPTS);
  const m = DISTINCT_CONTINUATIONS;
  const distinct: DistinctPass = [];
  for (const { k } of DISTINCT_KS) {
    const cut = measured.flatMap((i) => {
      const ids = responseTokens(first.tokens, i, maxNew);
      const keep = Math.floor(k * ids.length);
      return Array.from({ length: m }, () => (keep > 0 ? ids.slice(0, keep) : null));
    });
    const cont = await evalGenerate(
      engine,
      policy,
      measured.map((i) => prompts[i]),
      decoding.rolloutTemperature,
      seed,
      `distinct-k${k}`,
      cut,
      m,
    );
    const perPrompt: (string[] | null)[] = prompts.map(() => null);
    measured.forEach((i, j) => {
      perPrompt[i] = cont.texts.slice(j * m, (j + 1) * m);
    });
    (distinct as { k: number; continuations: (string[] | null)[] }[]).push({
      k,
      continuations: perPrompt,
    });
  }
  const metrics = evalMetrics(prompts, first.texts, reask, distinct);
  const oscrGreedy = greedyPairs ? optionShuffleMetrics(greedyPairs).oscr : metrics.oscr;
  const skew =
    decoding.skewLetter === undefined
      ? null
      : letterShare(prompts, first.texts, decoding.skewLetter);
  return {
    ...metrics,
    ...(oscrGreedy === undefined ? {} : { oscrGreedy }),
    ...(skew === null ? {} : { skewLetterShare: skew }),
  };
}

/**
 * The option-shuffle re-ask of the multiple-choice prompts `mc` (indices into
 * `prompts`): options shuffled by the seed's "oscr" stream (never the
 * identity; the same shuffles at every decoding), each first response
 * (`tokens` [prompts, maxNew]) up to and including `</think>` forced, the
 * answer after it decoded at `temperature` ("oscr-answer" stream). A response
 * without `</think>` is not re-asked (null entries).
 */
async function reaskPass(
  engine: LabEngine,
  policy: Pick<Policy, "params">,
  prompts: readonly TaskPrompt[],
  mc: readonly number[],
  tokens: Int32Array,
  temperature: number,
  seed: number,
): Promise<Reasked> {
  const { maxNew } = engine.shape;
  const rng = new Rng(deriveSeed(seed, "oscr"));
  const reasked = mc.map((i) => reaskWithShuffledOptions(prompts[i], rng));
  const forced = mc.map((i) => {
    const ids = Array.from(row(tokens, i, maxNew));
    const end = ids.indexOf(THINK_END_ID);
    return end >= 0 && end < maxNew - 1 ? ids.slice(0, end + 1) : null;
  });
  const second = await evalGenerate(
    engine,
    policy,
    reasked.map((r) => r.prompt),
    temperature,
    seed,
    "oscr-answer",
    forced,
  );
  const options: (Record<string, string> | null)[] = prompts.map(() => null);
  const texts: (string | null)[] = prompts.map(() => null);
  mc.forEach((i, k) => {
    if (forced[k] === null) return;
    options[i] = reasked[k].options;
    texts[i] = second.texts[k];
  });
  return { options, texts };
}
