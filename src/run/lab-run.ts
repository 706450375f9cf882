/**
 * LabRun: one experiment on one device. Cold-start SFT (or a shipped
 * checkpoint), then the selected reward variants trained side by side from
 * the same start, interleaved step by step, with a held-out eval every
 * E steps. The trainer worker and the headless CLI both drive this class, so
 * the page and the CLI run the same code.
 */
import type { GpuContext } from "../gpu/context";
import { paramLayout, type ModelConfig } from "../model/config";
import { initParams } from "../model/init";
import { createTaskGenerator, type TaskGenerator } from "../tasks/generator";
import type { MnistSubset } from "../tasks/mnist-data";
import { deriveSeed, Rng } from "../tasks/rng";
import type { TaskPrompt } from "../tasks/types";
import { shuffleImages } from "../tasks/generator";
import type { GroupView, Marker, MetricRow } from "./run-types";
import { LabEngine, type Policy } from "../engine/lab-engine";
import { evalMetrics, type EvalMetrics } from "../rl/eval-metrics";
import { evalGenerate, heldOutMetrics } from "../rl/held-out";
import {
  parseExperiment,
  VariantSchema,
  type Experiment,
  type VariantConfig,
} from "../settings/experiment";
import { forkKey } from "./fork-key";
import { configMismatch, runModel } from "../engine/lab-model";
import type { RewardScorer } from "./reward-client";
import { rlStep, type RlStepResult } from "../rl/rl-step";
import type { PolicySnapshot, RunSnapshot } from "./snapshot";
import { imageTensor, joinPromptResponse, promptTensor } from "../engine/sequences";
import { sftStep } from "../rl/sft";
import { isPrmFileError } from "../prm/file";

/** Where a run's outputs go (the worker posts them; the CLI prints and writes files). */
export interface RunSink {
  metrics(rows: MetricRow[]): void;
  samples(groups: GroupView[]): void;
  marker(m: Marker): void;
  log(message: string): void;
}

/**
 * The task generator of an experiment (MNIST subset needed for digits). Every
 * field of the experiment's task is passed on, so a new task knob cannot be
 * left out (resolveTaskConfig rejects a field it does not know).
 */
export function taskGeneratorFor(exp: Experiment, mnist?: MnistSubset): TaskGenerator {
  const { numDigits, ...rest } = exp.task;
  return createTaskGenerator({ ...rest, numDigits: numDigits as 2 | 3 }, { mnist });
}

/** A variant being trained under one seed. */
interface VariantRun {
  config: VariantConfig;
  policy: Policy;
  /** The seed of this copy: Experiment.seeds[i], or `seed` for a single-seed run. */
  seed: number;
}

/** A forked branch under one seed (LabRun.fork). */
interface ForkRun {
  /** Row, sample and marker key: `<parent>@fork<step>` (src/run/fork-key.ts). */
  key: string;
  /** The variant name or fork key it was forked from. */
  parent: string;
  /** The fork's reward settings (the parent's with the changed weights). */
  config: VariantConfig;
  policy: Policy;
  seed: number;
  /** Last RL step this copy has been trained on (the fork step right after the fork). */
  trainedTo: number;
}

/** Most fork branches one run keeps (lab choice: each costs one variant-step of time per step). */
const MAX_FORKS = 4;

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
  /** Variant copies (`name|seed`) stopped by a PRM file error, with the message (stopVariant). */
  private stopped = new Map<string, string>();
  private initial: Float32Array;
  private startTime = performance.now();
  /** Forked branches, every seed's copy (LabRun.fork); trained by `stepAll`. */
  private forks: ForkRun[] = [];
  /** Consecutive RL steps whose update AdamW skipped, by policy name (0 or absent: the last update went through). */
  private skipStreak = new Map<string, number>();

  /**
   * A run continued from a snapshot (src/run/snapshot.ts): built with the
   * snapshot's experiment and cold start, then `restore`d, so its next step
   * is the step the snapshot's run would have trained next.
   * @throws Error as the constructor and `restore`.
   */
  static fromSnapshot(
    ctx: GpuContext,
    snapshot: RunSnapshot,
    sink: RunSink,
    scorer: RewardScorer,
    mnist: MnistSubset | undefined,
  ): LabRun {
    const run = new LabRun(ctx, snapshot.experiment, sink, scorer, mnist, {
      config: snapshot.config,
      params: snapshot.reference,
    });
    run.restore(snapshot);
    return run;
  }

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
    const model = runModel(this.experiment.modelSize, this.tasks, this.experiment.evalSize);
    this.evalPrompts = model.evalPrompts;
    this.config = model.config;
    const shape = model.shape;
    if (start) {
      const mismatch = configMismatch(start.config, this.config);
      if (mismatch) throw new Error(mismatch);
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
    if (dup !== undefined)
      throw new Error(`Invalid experiment config: seeds: ${dup} appears twice`);
    // Seed-major order: one seed's variants see the same prompts, so they sit together.
    this.variants = this.seeds.flatMap((seed) =>
      this.experiment.variants.map((config) => ({
        config,
        seed,
        policy: this.engine.createPolicy(
          this.multiSeed ? `${config.name}.s${seed}` : config.name,
          this.adamOptions(this.experiment.algorithm.lr),
        ),
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
    opts: {
      fromScratch?: boolean;
      afterStep?: () => Promise<void>;
      afterEval?: (step: number, params: Float32Array) => Promise<void>;
    } = {},
  ): Promise<EvalMetrics | null> {
    const exp = this.experiment;
    const start = opts.fromScratch ? initParams(this.config, exp.seed) : this.initial;
    this.sftPolicy ??= this.engine.createPolicy("sft", this.adamOptions(exp.sftLr), start);
    const policy = this.sftPolicy;
    this.engine.resetPolicy(policy, start);
    for (let s = 0; s < steps; s++) {
      if (shouldStop()) return null;
      const t0 = performance.now();
      const st = await sftStep(this.engine, policy, this.tasks, {
        step: s,
        total: steps,
        batch: exp.sftBatch,
        lr: exp.sftLr,
        seed: exp.seed,
      });
      this.sink.metrics([
        {
          variant: "sft",
          step: s + 1,
          time: this.elapsed(),
          kind: "train",
          values: { loss: st.loss, grad_norm: st.gradNorm, step_time_ms: performance.now() - t0 },
        },
      ]);
      if (evalEvery > 0 && (s + 1) % evalEvery === 0 && s + 1 < steps) {
        await this.evalPolicy(policy, "sft", s + 1);
        if (opts.afterEval)
          await opts.afterEval(s + 1, await this.engine.readParams(policy.params));
      }
      await opts.afterStep?.();
    }
    this.initial = await this.engine.readParams(policy.params);
    this.engine.setReference(this.initial);
    for (const v of this.variants) this.engine.resetPolicy(v.policy);
    this.step = 0;
    this.stepDone.clear();
    this.skipStreak.clear();
    return this.evalPolicy(policy, "sft", steps);
  }

  /** The cold-start parameters (to save as a checkpoint). */
  get initialParams(): Float32Array {
    return this.initial;
  }

  /**
   * Held-out answers of `policy` on `prompts` (one generate call per eval):
   * greedy when `Experiment.evalTemperature` is 0, else sampled at it from the
   * eval stream of `seed` (the training seed of the copy being evaluated), the
   * same stream for every variant and step of that seed, so variants compare
   * on common random numbers while seeds differ in their eval draws too.
   */
  async evalTexts(
    policy: Pick<Policy, "params">,
    prompts: readonly TaskPrompt[],
    seed: number = this.experiment.seed,
  ): Promise<string[]> {
    return (await this.evalGenerate(policy, prompts, seed, "eval")).texts;
  }

  /** One eval generate call (evalTexts' decoding; `stream` names its sampling stream). */
  private async evalGenerate(
    policy: Pick<Policy, "params">,
    prompts: readonly TaskPrompt[],
    seed: number,
    stream: string,
  ): Promise<{ texts: string[]; tokens: Int32Array }> {
    return evalGenerate(
      this.engine,
      policy,
      prompts,
      this.experiment.evalTemperature,
      seed,
      stream,
    );
  }

  /**
   * Held-out metrics of `policy` under `seed`: the first answers, OSCR's
   * option-shuffle re-ask and SCS's distinct-options statistic on the
   * multiple-choice prompts (src/rl/held-out.ts, docs/reward-spec.md §4–§5).
   */
  private heldOut(
    policy: Pick<Policy, "params">,
    prompts: readonly TaskPrompt[],
    seed: number,
  ): Promise<EvalMetrics> {
    return heldOutMetrics(this.engine, policy, prompts, seed, {
      evalTemperature: this.experiment.evalTemperature,
      rolloutTemperature: this.experiment.algorithm.temperature,
    });
  }

  /** Held-out eval of one policy; emits one eval row. */
  async evalPolicy(
    policy: Pick<Policy, "params">,
    variant: string,
    step: number,
  ): Promise<EvalMetrics> {
    const m = await this.heldOut(policy, this.evalPrompts, this.experiment.seed);
    this.sink.metrics([{ variant, step, time: this.elapsed(), kind: "eval", values: { ...m } }]);
    return m;
  }

  /**
   * Held-out accuracy with the images shuffled between prompts: a model that
   * reads the image falls to about chance (docs/design.md "Tasks").
   */
  async shuffledImageEval(
    policy: Pick<Policy, "params"> = { params: this.engine.ref },
  ): Promise<EvalMetrics> {
    const shuffled = shuffleImages(
      this.evalPrompts,
      new Rng(deriveSeed(this.experiment.seed, "shuffle")),
    );
    return evalMetrics(shuffled, await this.evalTexts(policy, shuffled));
  }

  /** Evaluates the reference (cold-start) policy; emits rows for every variant at step 0. */
  async evalStart(): Promise<EvalMetrics> {
    // Greedy decoding is the same for every seed; sampled eval draws each seed's own stream.
    const perSeed = this.experiment.evalTemperature > 0 ? this.seeds : this.seeds.slice(0, 1);
    const bySeed = new Map<number, EvalMetrics>();
    for (const seed of perSeed) {
      bySeed.set(seed, await this.heldOut({ params: this.engine.ref }, this.evalPrompts, seed));
    }
    const first = bySeed.get(perSeed[0]) as EvalMetrics;
    this.sink.metrics(
      this.variants.map((v) =>
        this.rowFor(
          {
            variant: v.config.name,
            step: 0,
            time: this.elapsed(),
            kind: "eval" as const,
            values: { ...(bySeed.get(v.seed) ?? first) },
          },
          v.seed,
        ),
      ),
    );
    return first;
  }

  /**
   * Builds the RL update's pipelines before the first step (LabEngine.warmUpdate)
   * on a batch of the step's size made of held-out prompts with empty
   * responses; changes no policy, draws no random number.
   */
  async warmUp(): Promise<void> {
    const { groupSize: G, batchPrompts } = this.experiment.algorithm;
    const prompts = this.evalPrompts.slice(0, batchPrompts);
    if (prompts.length < batchPrompts) return; // a held-out set smaller than a step: nothing to mirror
    const { promptLen, maxNew } = this.engine.shape;
    const promptIds = promptTensor(prompts, promptLen, G);
    const empty = new Int32Array(prompts.length * G * maxNew);
    await this.engine.warmUpdate(
      imageTensor(prompts, G),
      joinPromptResponse(promptIds, empty, this.engine.shape),
    );
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
      const prompts = this.tasks.sampleBatch(
        exp.algorithm.batchPrompts,
        new Rng(deriveSeed(seed, "rl", step)),
      );
      for (const v of this.variants) {
        const key = `${v.config.name}|${v.seed}`;
        if (v.seed !== seed || this.stepDone.has(key) || this.stopped.has(key)) continue;
        let res: Awaited<ReturnType<typeof rlStep>>;
        try {
          res = await rlStep({
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
        } catch (e) {
          if (!isPrmFileError(e)) throw e;
          this.stopVariant(key, v.config.name, step, (e as Error).message);
          continue;
        }
        this.stepDone.add(key);
        this.noteSkip(v.policy.name, v.config.name, seed, step, res);
        this.sink.metrics([
          this.rowFor(
            {
              variant: v.config.name,
              step,
              time: this.elapsed(),
              kind: "train",
              values: res.values,
            },
            seed,
          ),
        ]);
        samples.push(this.multiSeed ? { ...res.sample, seed } : res.sample);
      }
    }
    this.sink.samples(samples);
    this.step = step;
    this.stepDone.clear();
    if (step % exp.algorithm.evalEvery === 0 || step === exp.algorithm.steps) await this.evalAll();
  }

  /**
   * Stops one variant copy whose reward cannot be computed for a reason that
   * will not pass (its PRM file is missing, corrupt or of the wrong shape):
   * it trains no further steps and is not evaluated; the others go on. The
   * reason goes to the log and, as a ⚠ marker, to the charts.
   */
  private stopVariant(key: string, name: string, step: number, message: string): void {
    this.stopped.set(key, message);
    this.sink.log(`${name} stopped at step ${step}: ${message}; the other variants keep training`);
    this.sink.marker({ variant: name, step, label: message, fault: "variant-stopped" });
  }

  /** Why each stopped variant copy (`name|seed`) stopped (empty when none did). */
  get stoppedVariants(): ReadonlyMap<string, string> {
    return this.stopped;
  }

  /** Evaluates every variant (under every seed) at the current step; keyed `name` (one seed) or `name.s<seed>`. */
  async evalAll(): Promise<Record<string, EvalMetrics>> {
    const out: Record<string, EvalMetrics> = {};
    for (const v of this.variants) {
      if (this.stopped.has(`${v.config.name}|${v.seed}`)) continue;
      const m = await this.heldOut(v.policy, this.evalPrompts, v.seed);
      this.sink.metrics([
        this.rowFor(
          {
            variant: v.config.name,
            step: this.step,
            time: this.elapsed(),
            kind: "eval",
            values: { ...m },
          },
          v.seed,
        ),
      ]);
      out[v.policy.name] = m;
    }
    return out;
  }

  /**
   * Changes a variant's reward weights / judge noise from the next step on
   * and emits a chart marker.
   * @throws Error naming an unknown variant or an invalid value.
   */
  setWeights(
    name: string,
    weights: VariantConfig["weights"],
    judge?: Partial<VariantConfig["judge"]>,
  ): void {
    const copies = this.variants.filter((x) => x.config.name === name);
    if (copies.length === 0) throw new Error(`setWeights: no variant '${name}' in this run`);
    const next = parseExperiment({
      ...this.experiment,
      variants: this.experiment.variants.map((c) =>
        c.name === name
          ? { ...c, weights: { ...c.weights, ...weights }, judge: { ...c.judge, ...(judge ?? {}) } }
          : c,
      ),
    });
    this.experiment = next;
    for (const v of copies) v.config = next.variants.find((c) => c.name === name)!;
    const changed = [...Object.entries(weights), ...Object.entries(judge ?? {})]
      .map(([k, val]) => `${k}=${val}`)
      .join(", ");
    this.sink.marker({ variant: name, step: this.step + 1, label: changed || "weights" });
  }

  /**
   * Counts a skipped update (or ends a streak) and marks it on the charts:
   * a marker at the step with `fault` "update-skipped".
   */
  private noteSkip(
    policy: string,
    variant: string,
    seed: number,
    step: number,
    res: RlStepResult,
  ): void {
    if (!res.updateSkipped) {
      this.skipStreak.delete(policy);
      return;
    }
    this.skipStreak.set(policy, (this.skipStreak.get(policy) ?? 0) + 1);
    this.sink.marker({
      variant,
      step,
      label: `update skipped: non-finite gradient (‖g‖ = ${res.values.grad_norm})${this.multiSeed ? `, seed ${seed}` : ""}`,
      fault: "update-skipped",
    });
  }

  /**
   * Policies whose update AdamW skipped at each of the last `n` or more RL
   * steps (a NaN/Inf gradient every time), with the length of the streak.
   * @param n streak length, ≥ 1.
   */
  repeatedSkips(n: number): { policy: string; steps: number }[] {
    return [...this.skipStreak]
      .filter(([, k]) => k >= n)
      .map(([policy, steps]) => ({ policy, steps }));
  }

  /**
   * The run's state at this step boundary (src/run/snapshot.ts): experiment,
   * cold start, and every variant's and fork's parameters and AdamW state
   * (read back from the GPU: 3 × totalFloats f32 per policy).
   * @throws Error when the current step is only partly done (a variant failed).
   */
  async snapshot(): Promise<RunSnapshot> {
    if (this.stepDone.size > 0 || this.forks.some((f) => f.trainedTo !== this.step))
      throw new Error(
        `snapshot: step ${this.step + 1} is only partly done (a variant failed); train it first`,
      );
    const policies: PolicySnapshot[] = [];
    for (const v of this.variants)
      policies.push({
        key: v.config.name,
        seed: v.seed,
        ...(await this.engine.readPolicyState(v.policy)),
        skipStreak: this.skipStreak.get(v.policy.name) ?? 0,
      });
    for (const f of this.forks)
      policies.push({
        key: f.key,
        seed: f.seed,
        ...(await this.engine.readPolicyState(f.policy)),
        skipStreak: this.skipStreak.get(f.policy.name) ?? 0,
        fork: { parent: f.parent, config: f.config, trainedTo: f.trainedTo },
      });
    return {
      experiment: this.experiment,
      config: this.config,
      step: this.step,
      elapsed: this.elapsed(),
      reference: this.initial,
      policies,
    };
  }

  /**
   * Puts the run in the state of `snapshot`: step, run time, every variant's
   * parameters and AdamW state, and the forks (made again). The reference
   * policy is not touched: build the run with the snapshot's cold start
   * (`fromSnapshot`).
   * @throws Error when the snapshot's model config differs from the run's, or
   *   its variants and seeds are not the run's.
   */
  restore(snapshot: RunSnapshot): void {
    const mismatch = configMismatch(snapshot.config, this.config);
    if (mismatch) throw new Error(`restore: ${mismatch}`);
    const own = snapshot.policies.filter((p) => !p.fork);
    const want = this.variants.map((v) => `${v.config.name} (seed ${v.seed})`);
    const got = own.map((p) => `${p.key} (seed ${p.seed})`);
    if (want.join("|") !== got.join("|"))
      throw new Error(
        `restore: the snapshot holds ${got.join(", ")}; this run trains ${want.join(", ")}`,
      );
    this.clearForks();
    this.skipStreak.clear();
    this.variants.forEach((v, i) => {
      this.engine.writePolicyState(v.policy, own[i]);
      if (own[i].skipStreak > 0) this.skipStreak.set(v.policy.name, own[i].skipStreak);
    });
    for (const p of snapshot.policies) {
      if (!p.fork) continue;
      const name = this.multiSeed ? `${p.key}.s${p.seed}` : p.key;
      const policy = this.engine.createPolicy(name, this.adamOptions(this.experiment.algorithm.lr));
      this.engine.writePolicyState(policy, p);
      if (p.skipStreak > 0) this.skipStreak.set(name, p.skipStreak);
      this.forks.push({
        key: p.key,
        parent: p.fork.parent,
        config: p.fork.config,
        policy,
        seed: p.seed,
        trainedTo: p.fork.trainedTo,
      });
    }
    this.step = snapshot.step;
    this.stepDone.clear();
    this.startTime = performance.now() - snapshot.elapsed * 1000;
  }

  /**
   * The policy of a variant (or a fork key) under `seed` (default: the first
   * seed): its GPU parameters and optimizer, for tools and tests.
   * @throws Error for an unknown name or seed.
   */
  policyOf(name: string, seed = this.seeds[0]): Policy {
    const p =
      this.variants.find((x) => x.config.name === name && x.seed === seed)?.policy ??
      this.forks.find((x) => x.key === name && x.seed === seed)?.policy;
    if (!p) throw new Error(`no variant or fork '${name}' with seed ${seed} in this run`);
    return p;
  }

  /** Reset: every variant back to the cold-start parameters (same initial weights), step 0. */
  reset(): void {
    for (const v of this.variants) this.engine.resetPolicy(v.policy);
    this.step = 0;
    this.stepDone.clear();
    this.skipStreak.clear();
    this.startTime = performance.now();
  }

  /** Re-seed: a new seed for prompts, sampling and judge noise (same cold-start weights); then Reset. */
  reseed(seed: number): void {
    if (this.multiSeed)
      throw new Error(
        "reseed: this run trains several seeds (Experiment.seeds); start a new run to change them",
      );
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

  /**
   * Forks `name` at the current step into a new branch with changed reward
   * weights / judge noise. Every seed's copy of the parent gets its own
   * fork: a new policy whose parameters AND AdamW state (m, v, t) are GPU
   * copies of the parent's now (LabEngine.forkPolicy, no read-back). The
   * branch trains from the next step on, beside the others, on the same
   * prompts and sampling seeds as its parent (`stepAll`), so the curves part
   * only through the changed reward.
   *
   * Emits a marker (variant = the fork key, step = this step, `fork` set) and
   * the branch's first eval row at this step: a copy of the parent's eval row
   * when `opts.parentEval` returns one for this step, else a fresh greedy
   * eval of the fork (its parameters equal the parent's, so the values are
   * the parent's at this step).
   *
   * Key format (src/run/fork-key.ts): `<name>@fork<step>`, e.g. `grr@fork12`;
   * a second fork of the same parent at the same step is `grr@fork12.2`.
   * @param name a variant of this run or an existing fork key.
   * @param opts.parentEval the parent's latest eval row under `seed`, if the caller keeps one.
   * @returns the fork key.
   * @throws Error naming an unknown parent, an invalid value, a step that is
   *   half done (a variant failed; train a step first) or more than MAX_FORKS forks.
   */
  async fork(
    name: string,
    weights: VariantConfig["weights"],
    judge?: Partial<VariantConfig["judge"]>,
    opts: { parentEval?: (seed: number) => MetricRow | undefined } = {},
  ): Promise<string> {
    const variantParents = this.variants.filter((v) => v.config.name === name);
    const forkParents = this.forks.filter((f) => f.key === name);
    const parents: { config: VariantConfig; policy: Policy; seed: number }[] = variantParents.length
      ? variantParents
      : forkParents;
    if (parents.length === 0) throw new Error(`fork: no variant or fork '${name}' in this run`);
    if (this.stepDone.size > 0 || forkParents.some((f) => f.trainedTo !== this.step)) {
      throw new Error(
        `fork: step ${this.step + 1} is only partly done (a variant failed); train one more step, then fork`,
      );
    }
    if (new Set(this.forks.map((f) => f.key)).size >= MAX_FORKS)
      throw new Error(
        `fork: this run already has ${MAX_FORKS} forks (lab limit); Reset to start over`,
      );
    const base = parents[0].config;
    const parsed = VariantSchema.safeParse({
      ...base,
      weights: { ...base.weights, ...weights },
      judge: { ...base.judge, ...(judge ?? {}) },
    });
    if (!parsed.success) {
      throw new Error(
        `fork: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
      );
    }
    const config = parsed.data;
    const step = this.step;
    let n = 1;
    while (this.forks.some((f) => f.key === forkKey(name, step, n))) n++;
    const key = forkKey(name, step, n);
    const made = parents.map((p) => {
      const f: ForkRun = {
        key,
        parent: name,
        config,
        seed: p.seed,
        trainedTo: step,
        policy: this.engine.forkPolicy(p.policy, this.multiSeed ? `${key}.s${p.seed}` : key),
      };
      this.forks.push(f);
      return f;
    });
    const changes: Record<string, number | string> = {};
    for (const [k, v] of Object.entries(config.weights))
      if (base.weights[k as keyof typeof base.weights] !== v) changes[k] = v;
    for (const [k, v] of Object.entries(config.judge))
      if (base.judge[k as keyof typeof base.judge] !== v) changes[k] = v;
    const label = `fork of ${name}: ${
      Object.entries(changes)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ") || "same weights"
    }`;
    this.sink.marker({ variant: key, step, label, fork: { parent: name, changes } });
    for (const f of made) {
      const prev = opts.parentEval?.(f.seed);
      if (prev && prev.kind === "eval" && prev.step === step) {
        this.sink.metrics([
          this.rowFor(
            { variant: key, step, time: prev.time, kind: "eval", values: { ...prev.values } },
            f.seed,
          ),
        ]);
      } else {
        await this.evalFork(f, step);
      }
    }
    return key;
  }

  /**
   * One RL step of every variant (rlStep) and then of every fork, on the
   * same prompts and sampling seeds; forks left behind by a failed step
   * catch up first. What the page's trainer runs (the CLI, which never
   * forks, calls rlStep).
   */
  async stepAll(): Promise<void> {
    await this.trainForks();
    await this.rlStep();
    await this.trainForks();
  }

  /** Trains every fork copy up to the current step (normally one step), with an eval on eval steps. */
  private async trainForks(): Promise<void> {
    const exp = this.experiment;
    for (const f of this.forks) {
      while (f.trainedTo < this.step) {
        const step = f.trainedTo + 1;
        const prompts = this.tasks.sampleBatch(
          exp.algorithm.batchPrompts,
          new Rng(deriveSeed(f.seed, "rl", step)),
        );
        const res = await rlStep({
          engine: this.engine,
          policy: f.policy,
          variant: f.config,
          algorithm: exp.algorithm,
          prompts,
          scorer: this.scorer,
          step,
          // The parent's sampling seed: the fork and its parent differ only by the changed reward.
          seed: deriveSeed(f.seed, "rollout", step),
        });
        f.trainedTo = step;
        this.noteSkip(f.policy.name, f.key, f.seed, step, res);
        this.sink.metrics([
          this.rowFor(
            { variant: f.key, step, time: this.elapsed(), kind: "train", values: res.values },
            f.seed,
          ),
        ]);
        this.sink.samples([
          this.multiSeed
            ? { ...res.sample, variant: f.key, seed: f.seed }
            : { ...res.sample, variant: f.key },
        ]);
        if (step % exp.algorithm.evalEvery === 0 || step === exp.algorithm.steps)
          await this.evalFork(f, step);
      }
    }
  }

  /** Held-out eval of one fork copy; emits one eval row under the fork key. */
  private async evalFork(f: ForkRun, step: number): Promise<EvalMetrics> {
    const m = await this.heldOut(f.policy, this.evalPrompts, f.seed);
    this.sink.metrics([
      this.rowFor(
        { variant: f.key, step, time: this.elapsed(), kind: "eval", values: { ...m } },
        f.seed,
      ),
    ]);
    return m;
  }

  /**
   * Drops every fork and frees its GPU buffers. reset, reseed and sft do not
   * touch forks (they predate them): the trainer worker calls this with each.
   */
  clearForks(): void {
    for (const f of this.forks) {
      this.engine.destroyPolicy(f.policy);
      this.skipStreak.delete(f.policy.name);
    }
    this.forks = [];
  }

  /** Keys of the forks, once each, in the order they were made. */
  get forkKeys(): string[] {
    return [...new Set(this.forks.map((f) => f.key))];
  }

  /** Reward settings of a fork (the parent's with the changed weights). @throws Error for an unknown key. */
  forkConfig(key: string): VariantConfig {
    const f = this.forks.find((x) => x.key === key);
    if (!f) throw new Error(`no fork '${key}' in this run`);
    return f.config;
  }

  /** Parameters of a fork's policy; `seed` picks the copy in a multi-seed run (default: the first seed). */
  async forkParams(key: string, seed = this.seeds[0]): Promise<Float32Array> {
    const f = this.forks.find((x) => x.key === key && x.seed === seed);
    if (!f) throw new Error(`no fork '${key}' with seed ${seed} in this run`);
    return this.engine.readParams(f.policy.params);
  }
}
