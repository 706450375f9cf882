/**
 * The token weights of the groups the run keeps as samples (the inspector's
 * groups): what each RL step kept of its sample group (src/rl/token-weights.ts
 * SampleTokens), by copy key, seed and step, and on request the reference
 * policy's forward on that group and the per-token weights. Nothing runs on
 * a step nobody inspects.
 */
import type { LabEngine, Policy } from "../engine/lab-engine";
import { imageTensor, joinPromptResponse, promptTensor } from "../engine/sequences";
import {
  groupTokenWeights,
  type RolloutTokenWeights,
  type SampleTokens,
} from "../rl/token-weights";
import type { EstimatorName } from "../settings/estimator-table";
import { VOCAB } from "../tasks/tokenizer";

/**
 * Kept groups at most (lab choice: the page keeps about this many sample
 * groups of history; one group is G·maxNew ids and logprobs, ~4 KB at G 8).
 */
const MAX_KEPT = 2000;

/** A token-weights answer (the `tokenWeights` event without its request fields). */
export interface TokenWeightsResult {
  estimator: EstimatorName;
  beta: number;
  clipEps: number;
  rollouts: RolloutTokenWeights[];
}

/** The kept sample groups' tokens, oldest dropped first past MAX_KEPT. */
export class RunTokens {
  private readonly kept = new Map<string, SampleTokens>();

  private static key(variant: string, step: number, seed: number | undefined): string {
    return `${variant}|${step}|${seed ?? ""}`;
  }

  /** Keeps a step's sample group of copy `variant` (under `seed` in a multi-seed run). */
  keep(variant: string, step: number, seed: number | undefined, tokens: SampleTokens): void {
    const k = RunTokens.key(variant, step, seed);
    this.kept.delete(k);
    this.kept.set(k, tokens);
    if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value as string);
  }

  /** Forgets every kept group (reset, re-seed, resume: the steps' groups are gone). */
  clear(): void {
    this.kept.clear();
  }

  /**
   * The token weights of the kept group of `variant` at `step` (and `seed`)
   * for prompt `promptId`: the reference policy's logprobs of its response
   * tokens (one forward of G rows on the GPU), then groupTokenWeights.
   * `policy` is any policy of the run (its own logprobs are not used).
   * @throws Error naming the request when no such group is kept.
   */
  async weights(
    engine: LabEngine,
    policy: Policy,
    req: { variant: string; step: number; promptId: string; seed?: number },
  ): Promise<TokenWeightsResult> {
    const kept = this.kept.get(RunTokens.key(req.variant, req.step, req.seed));
    if (!kept || kept.prompt.id !== req.promptId)
      throw new Error(
        `no group of ${req.variant} at step ${req.step}${req.seed === undefined ? "" : ` (seed ${req.seed})`} for prompt ${req.promptId} is kept (only the inspector's groups of the last ${MAX_KEPT} steps and variants are)`,
      );
    const G = kept.lengths.length;
    const { promptLen, maxNew } = engine.shape;
    const batch = joinPromptResponse(
      promptTensor([kept.prompt], promptLen, G),
      kept.responseIds,
      engine.shape,
    );
    const lp = await engine.logprobs(
      policy,
      imageTensor([kept.prompt], G),
      batch,
      kept.temperature,
    );
    // Text position promptLen + s holds response token s.
    const L = promptLen + maxNew;
    const ref = new Float32Array(G * maxNew);
    for (let i = 0; i < G; i++)
      ref.set(lp.ref.subarray(i * L + promptLen, (i + 1) * L), i * maxNew);
    return {
      estimator: kept.estimator,
      beta: kept.beta,
      clipEps: kept.clipEps,
      rollouts: groupTokenWeights(kept, ref, VOCAB),
    };
  }
}
