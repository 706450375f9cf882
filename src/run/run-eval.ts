/**
 * Held-out evaluation of a lab run's policies (LabRun.evaluator): the greedy
 * or sampled answers of a policy on the held-out prompts, the metrics of
 * src/rl/eval-metrics.ts with OSCR's option-shuffled second ask and SCS's
 * distinct options among continuations (src/rl/held-out.ts), the
 * shuffled-image control, and K sampled answers per prompt (eval:sampled).
 * One generate call per pass, on the run's engine; nothing here changes a
 * policy.
 */
import type { LabEngine, Policy } from "../engine/lab-engine";
import { imageTensor, promptTensor, row } from "../engine/sequences";
import { evalMetrics, type EvalMetrics } from "../rl/eval-metrics";
import { evalGenerate, heldOutMetrics } from "../rl/held-out";
import type { Experiment } from "../settings/experiment";
import { resolveTaskConfig } from "../tasks/config";
import { shuffleImages } from "../tasks/generator";
import { deriveSeed, Rng } from "../tasks/rng";
import { decodeResponse } from "../tasks/tokenizer";
import type { TaskPrompt } from "../tasks/types";
import type { RunSink } from "./run-types";

/** Parameters to evaluate: a policy's, or any parameter buffer (the reference). */
export type EvalParams = Pick<Policy, "params">;

/** Where eval rows go: the run's sink, stamped with the run's clock. */
interface EvalRowSink {
  sink: RunSink;
  /** Seconds of run time now (a row's `time`). */
  elapsed(): number;
}

/** The held-out evaluation of one run (see the file comment). */
export class RunEvaluator {
  /**
   * @param engine the run's engine (its text shape and generate call).
   * @param experiment the run's experiment now (read at every call: live changes apply).
   * @param prompts the held-out prompts [evalSize].
   * @param out where `evalRow` and `startRows` emit their rows.
   */
  constructor(
    private readonly engine: LabEngine,
    private readonly experiment: () => Experiment,
    readonly prompts: readonly TaskPrompt[],
    private readonly out: EvalRowSink,
  ) {}

  /**
   * Held-out metrics of `params` under `copy.seed` (heldOut), emitted as one
   * eval row of `copy.key` at `step` (with its seed when `withSeed`).
   */
  async evalRow(
    params: EvalParams,
    copy: { key: string; seed: number },
    step: number,
    withSeed: boolean,
  ): Promise<EvalMetrics> {
    const m = await this.heldOut(params, copy.seed);
    const row = { variant: copy.key, step, time: this.out.elapsed(), kind: "eval" as const };
    this.out.sink.metrics([
      withSeed ? { ...row, values: { ...m }, seed: copy.seed } : { ...row, values: { ...m } },
    ]);
    return m;
  }

  /**
   * The cold start's held-out metrics (`params`: the reference), emitted as
   * a step-0 eval row of every copy. Greedy decoding is the same for every
   * seed (one eval); sampled eval draws each seed's own stream (one per seed).
   * Rows carry their seed when `seeds` has several entries or `copies` do.
   * @returns the first seed's metrics.
   */
  async startRows(
    params: EvalParams,
    copies: readonly { key: string; seed: number }[],
    seeds: readonly number[],
  ): Promise<EvalMetrics> {
    const perSeed = this.experiment().evalTemperature > 0 ? seeds : seeds.slice(0, 1);
    const bySeed = new Map<number, EvalMetrics>();
    for (const seed of perSeed) bySeed.set(seed, await this.heldOut(params, seed));
    const first = bySeed.get(perSeed[0]) as EvalMetrics;
    const withSeed = this.experiment().seeds !== undefined;
    const time = this.out.elapsed();
    this.out.sink.metrics(
      copies.map((c) => {
        const row = { variant: c.key, step: 0, time, kind: "eval" as const };
        const values = { ...(bySeed.get(c.seed) ?? first) };
        return withSeed ? { ...row, values, seed: c.seed } : { ...row, values };
      }),
    );
    return first;
  }

  /**
   * Held-out answers of `params` on `prompts` (one generate call): greedy
   * when `Experiment.evalTemperature` is 0, else sampled at it from the eval
   * stream of `seed` (the training seed of the copy being evaluated), the
   * same stream for every variant and step of that seed, so variants compare
   * on common random numbers while seeds differ in their eval draws too.
   * @returns one decoded response per prompt.
   */
  async texts(params: EvalParams, prompts: readonly TaskPrompt[], seed: number): Promise<string[]> {
    return (await this.generate(params, prompts, seed, "eval")).texts;
  }

  /** One eval generate call (texts' decoding; `stream` names its sampling stream). */
  private generate(
    params: EvalParams,
    prompts: readonly TaskPrompt[],
    seed: number,
    stream: string,
  ): Promise<{ texts: string[]; tokens: Int32Array }> {
    return evalGenerate(
      this.engine,
      params,
      prompts,
      this.experiment().evalTemperature,
      seed,
      stream,
    );
  }

  /**
   * Held-out metrics of `params` under `seed`: the first answers, OSCR's
   * option-shuffle re-ask (ACRE eq. 2) and SCS's distinct-options statistic
   * (Fig. 2c) on the multiple-choice prompts (src/rl/held-out.ts,
   * docs/reward-spec.md §4–§5). Open-ended prompts get neither pass.
   */
  heldOut(
    params: EvalParams,
    seed: number,
    prompts: readonly TaskPrompt[] = this.prompts,
  ): Promise<EvalMetrics> {
    const exp = this.experiment();
    return heldOutMetrics(this.engine, params, prompts, seed, {
      evalTemperature: exp.evalTemperature,
      rolloutTemperature: exp.algorithm.temperature,
      // The experiment has no skew-letter setting: the task config's default letter is the skewed one.
      ...(exp.task.optionSkew > 0 ? { skewLetter: resolveTaskConfig().skewLetter } : {}),
    });
  }

  /**
   * Held-out accuracy with the images shuffled between prompts (the seed's
   * "shuffle" stream): a model that reads the image falls to about chance
   * (docs/design.md "Tasks").
   */
  async shuffledImages(params: EvalParams, seed: number): Promise<EvalMetrics> {
    const shuffled = shuffleImages(this.prompts, new Rng(deriveSeed(seed, "shuffle")));
    return evalMetrics(shuffled, await this.texts(params, shuffled, seed));
  }

  /**
   * K answers per held-out prompt sampled at τ = 1 (no top-k / top-p) with
   * sampling seed `seed`, in one generate call, scored as K·evalSize answers:
   * the policy's sampled behaviour, which greedy decoding hides (eval:sampled).
   * @param k answers per prompt, an integer ≥ 1.
   * @throws Error for a k that is not an integer ≥ 1.
   */
  async sampled(params: EvalParams, k: number, seed: number): Promise<EvalMetrics> {
    if (!Number.isInteger(k) || k < 1)
      throw new Error(`sampled eval: k must be an integer ≥ 1, got ${k}`);
    const { promptLen, maxNew } = this.engine.shape;
    const prompts = this.prompts;
    const gen = await this.engine.generate(
      params,
      imageTensor(prompts, k),
      promptTensor(prompts, promptLen, k),
      { temperature: 1, topK: 0, topP: 1, greedy: false, seed },
      k,
    );
    const texts = prompts.flatMap((_, i) =>
      Array.from({ length: k }, (_, j) => decodeResponse(row(gen.tokens, i * k + j, maxNew))),
    );
    return evalMetrics(
      prompts.flatMap((p) => Array.from({ length: k }, () => p)),
      texts,
    );
  }
}
