/**
 * LabRun: one experiment on one device. Cold-start SFT (or a shipped
 * checkpoint), then the selected reward variants trained side by side from
 * the same start, interleaved step by step, with a greedy held-out eval every
 * E steps. The trainer worker and the headless CLI both drive this class, so
 * the page and the CLI run the same code.
 */
import type { GpuContext } from "../gpu/context";
import { paramLayout, type ModelConfig } from "../model/config";
import { initParams } from "../model/init";
import { createTaskGenerator, type TaskGenerator } from "../tasks/generator";
import type { MnistSubset } from "../tasks/mnist-data";
import { deriveSeed, Rng } from "../tasks/rng";
import { decodeResponse } from "../tasks/tokenizer";
import type { TaskPrompt } from "../tasks/types";
import { shuffleImages } from "../tasks/generator";
import type { GroupView, Marker, MetricRow } from "../workers/protocol";
import { LabEngine, type Policy } from "./engine";
import { evalMetrics, type EvalMetrics } from "./eval-metrics";
import { parseExperiment, type Experiment, type VariantConfig } from "./experiment";
import { labModelConfig, textShapeFor } from "./lab-model";
import type { RewardScorer } from "./reward-client";
import { rlStep } from "./rl-step";
import { imageTensor, promptTensor, row } from "./sequences";
import { sftStep } from "./sft";

/** Where a run's outputs go (the worker posts them; the CLI prints and writes files). */
export interface RunSink {
  metrics(rows: MetricRow[]): void;
  samples(groups: GroupView[]): void;
  marker(m: Marker): void;
  log(message: string): void;
}

/** The task generator of an experiment (MNIST subset needed for digits). */
export function taskGeneratorFor(exp: Experiment, mnist?: MnistSubset): TaskGenerator {
  return createTaskGenerator(
    {
      family: exp.task.family,
      multipleChoice: exp.task.multipleChoice,
      optionSkew: exp.task.optionSkew,
      distractorCloseness: exp.task.distractorCloseness,
      numDigits: exp.task.numDigits as 2 | 3,
      hintRate: exp.task.hintRate,
      hintAccuracy: exp.task.hintAccuracy,
      hintCopyRate: exp.task.hintCopyRate,
    },
    { mnist },
  );
}

/** A variant being trained under one seed. */
interface VariantRun {
  config: VariantConfig;
  policy: Policy;
  /** The seed of this copy: Experiment.seeds[i], or `seed` for a single-seed run. */
  seed: number;
}

export class LabRun {
  readonly engine: LabEngine;
  readonly config: ModelConfig;
  readonly tasks: TaskGenerator;
  readonly evalPrompts: TaskPrompt[];
  /** RL steps done (0 after reset). */
  step = 0;
  private variants: VariantRun[] = [];
  private sftPolicy: Policy | null = null;
  /** Variants that finished the step in progress (a failed step resumes with the others only). */
  private stepDone = new Set<string>();
  private initial: Float32Array;
  private startTime = performance.now();

  /**
   * @param start cold-start parameters (a checkpoint) or null for a fresh
   *   random init (then run `sft` before RL).
   * @throws Error on an invalid experiment or a checkpoint that does not fit the task's model.
   */
  constructor(
    readonly ctx: GpuContext,
    public experiment: Experiment,
    readonly sink: RunSink,
    readonly scorer: RewardScorer,
    mnist: MnistSubset | undefined,
    start: { config: ModelConfig; params: Float32Array } | null,
  ) {
    this.experiment = parseExperiment(experiment);
    this.tasks = taskGeneratorFor(this.experiment, mnist);
    this.evalPrompts = this.tasks.evalSet({ size: this.experiment.evalSize });
    const shape = textShapeFor(this.tasks.evalSet());
    this.config = labModelConfig(this.experiment.modelSize, this.evalPrompts[0], shape);
    if (start) {
      const want = JSON.stringify(this.config);
      if (JSON.stringify(start.config) !== want) {
        throw new Error(`checkpoint config ${JSON.stringify(start.config)} does not match this task's model ${want}`);
      }
      this.initial = start.params;
    } else {
      this.initial = initParams(this.config, this.experiment.seed);
    }
    this.engine = new LabEngine(ctx, this.config, shape, this.initial);
    this.buildVariants();
  }

  /** Number of trainable parameters. */
  get paramCount(): number {
    return paramLayout(this.config).count;
  }

  private adamOptions(lr: number) {
    const a = this.experiment.algorithm;
    return { lr, weightDecay: a.weightDecay, maxGradNorm: a.gradClip };
  }

  /** The seeds this run trains every variant under (Experiment.seeds, else [seed]). */
  get seeds(): number[] {
    return this.experiment.seeds ?? [this.experiment.seed];
  }

  /** True when rows carry their seed (Experiment.seeds given). */
  private get multiSeed(): boolean {
    return this.experiment.seeds !== undefined;
  }

  /** Stamps a row with its seed in a multi-seed run. */
  private rowFor(r: MetricRow, seed: number): MetricRow {
    return this.multiSeed ? { ...r, seed } : r;
  }

  private buildVariants(): void {
    const dup = this.seeds.find((s, i) => this.seeds.indexOf(s) !== i);
    if (dup !== undefined) throw new Error(`Invalid experiment config: seeds: ${dup} appears twice`);
    // Seed-major order: one seed's variants see the same prompts, so they sit together.
    this.variants = this.seeds.flatMap((seed) =>
      this.experiment.variants.map((config) => ({
        config,
        seed,
        policy: this.engine.createPolicy(this.multiSeed ? `${config.name}.s${seed}` : config.name, this.adamOptions(this.experiment.algorithm.lr)),
      })),
    );
  }

  /** Seconds since the run (or the last reset) started. */
  private elapsed(): number {
    return (performance.now() - this.startTime) / 1000;
  }

  /**
   * Cold-start SFT; the result becomes the reference policy and every
   * variant's start. Emits rows of variant "sft".
   * @param evalEvery eval interval in SFT steps (0: only at the end).
   * @param opts.fromScratch start from a fresh random init (seeded by the
   *   experiment's seed) instead of the current cold-start parameters.
   * @param opts.afterStep awaited after every SFT step (the worker lets the page draw).
   * @param opts.afterEval awaited after each intermediate eval with the SFT
   *   step and the parameters then (the CLI saves snapshots with it).
   * @returns the final eval, or null when `shouldStop` ended SFT early (then
   *   nothing is committed: the previous cold start stays in place).
   */
  async sft(
    steps = this.experiment.sftSteps,
    evalEvery = 0,
    shouldStop: () => boolean = () => false,
    opts: { fromScratch?: boolean; afterStep?: () => Promise<void>; afterEval?: (step: number, params: Float32Array) => Promise<void> } = {},
  ): Promise<EvalMetrics | null> {
    const exp = this.experiment;
    const start = opts.fromScratch ? initParams(this.config, exp.seed) : this.initial;
    this.sftPolicy ??= this.engine.createPolicy("sft", this.adamOptions(exp.sftLr), start);
    const policy = this.sftPolicy;
    this.engine.resetPolicy(policy, start);
    for (let s = 0; s < steps; s++) {
      if (shouldStop()) return null;
      const t0 = performance.now();
      const st = await sftStep(this.engine, policy, this.tasks, { step: s, total: steps, batch: exp.sftBatch, lr: exp.sftLr, seed: exp.seed });
      this.sink.metrics([
        { variant: "sft", step: s + 1, time: this.elapsed(), kind: "train", values: { loss: st.loss, grad_norm: st.gradNorm, step_time_ms: performance.now() - t0 } },
      ]);
      if (evalEvery > 0 && (s + 1) % evalEvery === 0 && s + 1 < steps) {
        await this.evalPolicy(policy, "sft", s + 1);
        if (opts.afterEval) await opts.afterEval(s + 1, await this.engine.readParams(policy.params));
      }
      await opts.afterStep?.();
    }
    this.initial = await this.engine.readParams(policy.params);
    this.engine.setReference(this.initial);
    for (const v of this.variants) this.engine.resetPolicy(v.policy);
    this.step = 0;
    this.stepDone.clear();
    return this.evalPolicy(policy, "sft", steps);
  }

  /** The cold-start parameters (to save as a checkpoint). */
  get initialParams(): Float32Array {
    return this.initial;
  }

  /** Greedy answers of `policy` on `prompts` (one generate call per eval). */
  async greedyTexts(policy: Pick<Policy, "params">, prompts: readonly TaskPrompt[]): Promise<string[]> {
    const { promptLen, maxNew } = this.engine.shape;
    const gen = await this.engine.generate(policy, imageTensor(prompts), promptTensor(prompts, promptLen), {
      temperature: 1,
      topK: 0,
      topP: 1,
      greedy: true,
      seed: 0,
    });
    return prompts.map((_, i) => decodeResponse(row(gen.tokens, i, maxNew)));
  }

  /** Held-out eval of one policy; emits one eval row. */
  async evalPolicy(policy: Pick<Policy, "params">, variant: string, step: number): Promise<EvalMetrics> {
    const m = evalMetrics(this.evalPrompts, await this.greedyTexts(policy, this.evalPrompts));
    this.sink.metrics([{ variant, step, time: this.elapsed(), kind: "eval", values: { ...m } }]);
    return m;
  }

  /**
   * Held-out accuracy with the images shuffled between prompts: a model that
   * reads the image falls to about chance (design.md "Tasks").
   */
  async shuffledImageEval(policy: Pick<Policy, "params"> = { params: this.engine.ref }): Promise<EvalMetrics> {
    const shuffled = shuffleImages(this.evalPrompts, new Rng(deriveSeed(this.experiment.seed, "shuffle")));
    return evalMetrics(shuffled, await this.greedyTexts(policy, shuffled));
  }

  /** Evaluates the reference (cold-start) policy; emits rows for every variant at step 0. */
  async evalStart(): Promise<EvalMetrics> {
    const m = evalMetrics(this.evalPrompts, await this.greedyTexts({ params: this.engine.ref }, this.evalPrompts));
    this.sink.metrics(this.variants.map((v) => this.rowFor({ variant: v.config.name, step: 0, time: this.elapsed(), kind: "eval" as const, values: { ...m } }, v.seed)));
    return m;
  }

  /**
   * One RL step of every variant (under every seed) on the same prompts and
   * the same sampling seed per seed; evals every E steps. If a variant fails,
   * the variants that already finished this step are not trained on it again
   * when the step is retried.
   */
  async rlStep(): Promise<void> {
    const exp = this.experiment;
    const step = this.step + 1;
    const samples: GroupView[] = [];
    for (const seed of this.seeds) {
      const prompts = this.tasks.sampleBatch(exp.algorithm.batchPrompts, new Rng(deriveSeed(seed, "rl", step)));
      for (const v of this.variants) {
        const key = `${v.config.name}|${v.seed}`;
        if (v.seed !== seed || this.stepDone.has(key)) continue;
        const res = await rlStep({
          engine: this.engine,
          policy: v.policy,
          variant: v.config,
          algorithm: exp.algorithm,
          prompts,
          scorer: this.scorer,
          step,
          // Same seed for every variant: at step 1 (same weights) they see the same rollouts.
          seed: deriveSeed(seed, "rollout", step),
        });
        this.stepDone.add(key);
        this.sink.metrics([this.rowFor({ variant: v.config.name, step, time: this.elapsed(), kind: "train", values: res.values }, seed)]);
        samples.push(this.multiSeed ? { ...res.sample, seed } : res.sample);
      }
    }
    this.sink.samples(samples);
    this.step = step;
    this.stepDone.clear();
    if (step % exp.algorithm.evalEvery === 0 || step === exp.algorithm.steps) await this.evalAll();
  }

  /** Evaluates every variant (under every seed) at the current step; keyed `name` (one seed) or `name.s<seed>`. */
  async evalAll(): Promise<Record<string, EvalMetrics>> {
    const out: Record<string, EvalMetrics> = {};
    for (const v of this.variants) {
      const m = evalMetrics(this.evalPrompts, await this.greedyTexts(v.policy, this.evalPrompts));
      this.sink.metrics([this.rowFor({ variant: v.config.name, step: this.step, time: this.elapsed(), kind: "eval", values: { ...m } }, v.seed)]);
      out[v.policy.name] = m;
    }
    return out;
  }

  /**
   * Changes a variant's reward weights / judge noise from the next step on
   * and emits a chart marker.
   * @throws Error naming an unknown variant or an invalid value.
   */
  setWeights(name: string, weights: Partial<VariantConfig["weights"]>, judge?: Partial<VariantConfig["judge"]>): void {
    const copies = this.variants.filter((x) => x.config.name === name);
    if (copies.length === 0) throw new Error(`setWeights: no variant '${name}' in this run`);
    const next = parseExperiment({
      ...this.experiment,
      variants: this.experiment.variants.map((c) =>
        c.name === name ? { ...c, weights: { ...c.weights, ...weights }, judge: { ...c.judge, ...(judge ?? {}) } } : c,
      ),
    });
    this.experiment = next;
    for (const v of copies) v.config = next.variants.find((c) => c.name === name)!;
    const changed = [...Object.entries(weights), ...Object.entries(judge ?? {})].map(([k, val]) => `${k}=${val}`).join(", ");
    this.sink.marker({ variant: name, step: this.step + 1, label: changed || "weights" });
  }

  /** Reset: every variant back to the cold-start parameters (same initial weights), step 0. */
  reset(): void {
    for (const v of this.variants) this.engine.resetPolicy(v.policy);
    this.step = 0;
    this.stepDone.clear();
    this.startTime = performance.now();
  }

  /** Re-seed: a new seed for prompts, sampling and judge noise (same cold-start weights); then Reset. */
  reseed(seed: number): void {
    if (this.multiSeed) throw new Error("reseed: this run trains several seeds (Experiment.seeds); start a new run to change them");
    this.experiment = parseExperiment({ ...this.experiment, seed });
    this.reset();
  }

  /** Parameters of a variant's policy (checkpoint export); `seed` picks the copy in a multi-seed run (default: the first seed). */
  async variantParams(name: string, seed = this.seeds[0]): Promise<Float32Array> {
    const v = this.variants.find((x) => x.config.name === name && x.seed === seed);
    if (!v) throw new Error(`no variant '${name}' with seed ${seed} in this run`);
    return this.engine.readParams(v.policy.params);
  }

  /** Names of the variants being trained (once each, whatever the number of seeds). */
  get variantNames(): string[] {
    return this.experiment.variants.map((v) => v.name);
  }
}
