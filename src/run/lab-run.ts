/**
 * LabRun: one experiment on one device. Cold-start SFT (or a shipped
 * checkpoint), then the selected reward variants trained side by side from
 * the same start, interleaved step by step, with a held-out eval every
 * E steps. Every entry point trains through `runSteps`, the one run loop:
 * the page's run controller, `lab`, `claims`, `train:sft`, `bench:rl`.
 *
 * One RL step, top to bottom (CleanRL style):
 *   runSteps(n, hooks)      the loop: n steps, hooks at each step boundary
 *   └ stepVariants()        one RL step of every variant (every seed), then of every fork
 *     └ trainCopy(copy)     the step's prompts and seeds for one copy, its rows
 *       └ rlStep()          the algorithm (src/rl/rl-step.ts): rollouts, rewards,
 *                           advantages, update
 * During cold-start SFT (beginSft) runSteps runs SFT steps (./run-sft.ts); evaluation:
 * ./run-eval.ts; forks: ./run-forks.ts; snapshots: ./snapshot.ts; warm-up: ./warm-up.ts.
 */
import type { GpuContext } from "../gpu/context";
import { paramLayout, type ModelConfig } from "../model/config";
import { initParams } from "../model/init";
import type { TaskGenerator } from "../tasks/generator";
import type { MnistSubset } from "../tasks/mnist-data";
import { deriveSeed, Rng } from "../tasks/rng";
import type { TaskPrompt } from "../tasks/types";
import type { MetricRow, RunSink, StepHooks } from "./run-types";
import type { GroupView } from "../rl/step-types";
import { taskGeneratorFor } from "./run-tasks";
export type { RunSink, StepHooks } from "./run-types";
export { taskGeneratorFor } from "./run-tasks";
import { LabEngine, type Policy } from "../engine/lab-engine";
import type { EvalMetrics } from "../rl/eval-metrics";
import { parseExperiment, type Experiment, type VariantConfig } from "../settings/experiment";
import type { WeightValue } from "../settings/variant-table";
import { configMismatch, runModel } from "../engine/lab-model";
import type { RewardScorer } from "../rl/reward-contract";
import { rlStep, type RlStepResult } from "../rl/rl-step";
import type { GenerateResult } from "../model/generate";
import type { PolicySnapshot, RunSnapshot } from "./snapshot";
import { warmUpRun } from "./warm-up";
import { SftPhase, type SftSnapshot } from "./run-sft";
import { isPrmFileError } from "../prm/file";
import { RunEvaluator, type EvalParams } from "./run-eval";
import { RunForks, type TrainedCopy } from "./run-forks";
import { VariantCopies } from "./run-copies";
import { RunTokens, type TokenWeightsResult } from "./run-tokens";

export class LabRun {
  readonly engine: LabEngine;
  readonly config: ModelConfig;
  readonly tasks: TaskGenerator;
  readonly evaluator: RunEvaluator;
  step = 0; // RL steps done (0 after reset)
  /** The final eval of the last SFT that ran to its end in this run (null: none did). */
  sftEval: EvalMetrics | null = null;
  private readonly variants: VariantCopies;
  /** Step 1's rollouts of each seed, shared by its variants (all still at the cold start) within one stepVariants call. */
  private readonly firstRollouts = new Map<number, GenerateResult>();
  readonly forks: RunForks; // the forked branches (LabRun.fork): keys, settings, parameters
  readonly sft: SftPhase; // cold-start SFT in progress (beginSft): progress, parameters, snapshots
  private readonly tokens = new RunTokens(); // the sample groups' tokens, for their token weights
  private initial: Float32Array;
  private startTime = performance.now();

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
   *   random init (then run SFT before RL: beginSft).
   * @param engine an engine to train on instead of a new one: it must hold
   *   the same model config and `start` as its reference (a sweep trains its
   *   seed-variants one after another on one engine, `dispose` between them).
   * @throws Error on an invalid experiment or a checkpoint that does not fit the task's model.
   */
  constructor(
    readonly ctx: GpuContext,
    public experiment: Experiment,
    readonly sink: RunSink,
    readonly scorer: RewardScorer,
    mnist: MnistSubset | undefined,
    start: { config: ModelConfig; params: Float32Array } | null,
    engine?: LabEngine,
  ) {
    this.experiment = parseExperiment(experiment);
    this.tasks = taskGeneratorFor(this.experiment, mnist);
    const model = runModel(this.experiment.modelSize, this.tasks, this.experiment.evalSize);
    this.config = model.config;
    if (start) {
      const mismatch = configMismatch(start.config, this.config);
      if (mismatch) throw new Error(mismatch);
      this.initial = start.params;
    } else {
      this.initial = initParams(this.config, this.experiment.seed);
    }
    if (engine) {
      const mismatch = configMismatch(engine.config, this.config);
      if (mismatch) throw new Error(`LabRun: the given engine does not fit: ${mismatch}`);
    }
    this.engine = engine ?? new LabEngine(ctx, this.config, model.shape, this.initial);
    this.evaluator = new RunEvaluator(this.engine, () => this.experiment, model.evalPrompts, {
      sink,
      elapsed: () => this.elapsed(),
    });
    this.forks = new RunForks(
      this.engine,
      (key, seed) => this.policyName(key, seed),
      () => this.multiSeed,
    );
    this.sft = new SftPhase(this.engine, this.tasks);
    this.variants = new VariantCopies(
      this.engine,
      this.experiment,
      this.seeds,
      (key, seed) => this.policyName(key, seed),
      this.adamOptions(),
    );
  }

  /** Number of trainable parameters. */
  get paramCount(): number {
    return paramLayout(this.config).count;
  }

  /** The held-out prompts [evalSize]. */
  get evalPrompts(): readonly TaskPrompt[] {
    return this.evaluator.prompts;
  }

  private adamOptions(lr = this.experiment.algorithm.lr) {
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

  /** Buffer label of a copy's policy: the key, with `.s<seed>` in a multi-seed run. */
  private policyName(key: string, seed: number): string {
    return this.multiSeed ? `${key}.s${seed}` : key;
  }

  /** Stamps a row with its seed in a multi-seed run. */
  private rowFor(r: MetricRow, seed: number): MetricRow {
    return this.multiSeed ? { ...r, seed } : r;
  }

  /** Seconds since the run (or the last reset) started. */
  private elapsed(): number {
    return (performance.now() - this.startTime) / 1000;
  }

  // ---- the run loop -------------------------------------------------------

  /** True when the current phase has no step left (SFT in progress never is). */
  get phaseDone(): boolean {
    return !this.sft.active && this.step >= this.experiment.algorithm.steps;
  }

  /**
   * The run loop: up to `n` steps of the current phase (SFT steps while SFT
   * is in progress, else RL steps of every variant and fork), ending early at
   * the phase's end (SFT's last step; RL at `algorithm.steps`) or when
   * `hooks.shouldStop` says so. A failed step throws and leaves the run at
   * its last step boundary (an RL step's finished variants are not trained
   * on it again when it is retried).
   * @returns the steps done.
   */
  async runSteps(n: number, hooks: StepHooks = {}): Promise<number> {
    const phase = this.sft.active ? "sft" : "rl";
    let done = 0;
    while (done < n && this.inPhase(phase) && !hooks.shouldStop?.()) {
      await hooks.beforeStep?.();
      const step = phase === "sft" ? await this.stepSft() : await this.stepVariants();
      done++;
      await hooks.afterStep?.({ phase, step });
    }
    return done;
  }

  /** True while the run is in `phase` with a step left (SFT ends with its last step). */
  private inPhase(phase: "sft" | "rl"): boolean {
    return phase === "sft" ? this.sft.active : !this.phaseDone;
  }

  /**
   * One RL step of every variant (under every seed) on the same prompts and
   * the same sampling seed per seed, an eval every E steps, then the same
   * step of every fork (forks left behind by a failed step catch up first).
   * @returns the RL step done.
   */
  async stepVariants(): Promise<number> {
    await this.trainForks();
    const step = this.step + 1;
    const samples: GroupView[] = [];
    try {
      for (const v of this.variants.pending()) {
        try {
          samples.push(await this.trainCopy(v, step));
        } catch (e) {
          if (!isPrmFileError(e)) throw e;
          this.stopVariant(v, step, (e as Error).message);
          continue;
        }
        this.variants.markDone(v);
      }
    } finally {
      // Kept for this call only: a retried or later step generates its own.
      this.firstRollouts.clear();
    }
    this.sink.samples(samples);
    this.step = step;
    this.variants.clearStep();
    this.engine.ctx.releaseBackgroundBuilds(); // held by warmUp until a step is done
    if (this.isEvalStep(step)) await this.evalAll();
    await this.trainForks();
    return step;
  }

  private isEvalStep(step: number): boolean {
    const a = this.experiment.algorithm;
    return step % a.evalEvery === 0 || step === a.steps;
  }

  /**
   * One RL step of one copy: the seed's prompts of the step and its rollout
   * seed (the same for every variant and fork of that seed: at step 1, same
   * weights, they see the same rollouts), rlStep, its train row and skip marker.
   * @returns the step's sample group (the caller emits it).
   */
  private async trainCopy(copy: TrainedCopy, step: number): Promise<GroupView> {
    const prompts = this.tasks.sampleBatch(
      this.experiment.algorithm.batchPrompts,
      new Rng(deriveSeed(copy.seed, "rl", step)),
    );
    // Before the first update every copy of a seed has the cold start's parameters, prompts and
    // rollout seed: the first of them generates the step's rollouts, the others reuse them.
    const fromColdStart = this.step === 0;
    const res = await rlStep({
      engine: this.engine,
      policy: copy.policy,
      variant: copy.config,
      algorithm: this.experiment.algorithm,
      prompts,
      scorer: this.scorer,
      step,
      seed: deriveSeed(copy.seed, "rollout", step),
      rollouts: fromColdStart ? this.firstRollouts.get(copy.seed) : undefined,
    });
    if (fromColdStart) this.firstRollouts.set(copy.seed, res.rollouts);
    this.tokens.keep(copy.key, step, this.multiSeed ? copy.seed : undefined, res.sampleTokens);
    this.noteSkip(copy, step, res);
    this.sink.metrics([
      this.rowFor(
        { variant: copy.key, step, time: this.elapsed(), kind: "train", values: res.values },
        copy.seed,
      ),
    ]);
    return this.multiSeed
      ? { ...res.sample, variant: copy.key, seed: copy.seed }
      : { ...res.sample, variant: copy.key };
  }

  /** Trains every fork copy up to the current step (normally one step), with an eval on eval steps. */
  private async trainForks(): Promise<void> {
    for (const f of this.forks.copies) {
      while (f.trainedTo < this.step) {
        const step = f.trainedTo + 1;
        const sample = await this.trainCopy(f, step);
        f.trainedTo = step;
        this.sink.samples([sample]);
        if (this.isEvalStep(step)) await this.evalCopy(f, step);
      }
    }
  }

  /** Counts a skipped update (or ends a streak); a skip gets an "update-skipped" marker. */
  private noteSkip(copy: TrainedCopy, step: number, res: RlStepResult): void {
    this.variants.noteSkip(copy.policy.name, res.updateSkipped);
    if (!res.updateSkipped) return;
    this.sink.marker({
      variant: copy.key,
      step,
      label: `update skipped: non-finite gradient (‖g‖ = ${res.values.grad_norm})${this.multiSeed ? `, seed ${copy.seed}` : ""}`,
      fault: "update-skipped",
    });
  }

  /** Policies whose update AdamW skipped (a NaN/Inf gradient) at each of the last `n` ≥ 1 RL steps or more, with the streak. */
  repeatedSkips(n: number): { policy: string; steps: number }[] {
    return this.variants.repeatedSkips(n);
  }

  /**
   * Stops a copy whose reward cannot be computed for good (its PRM file is
   * missing, corrupt or of the wrong shape); the others go on. The reason
   * goes to the log and, as a ⚠ marker, to the charts.
   */
  private stopVariant(copy: TrainedCopy, step: number, message: string): void {
    this.variants.stop(copy, message);
    const name = copy.key;
    this.sink.log(`${name} stopped at step ${step}: ${message}; the other variants keep training`);
    this.sink.marker({ variant: name, step, label: message, fault: "variant-stopped" });
  }

  /** Why each stopped variant copy (`name|seed`) stopped (empty when none did). */
  get stoppedVariants(): ReadonlyMap<string, string> {
    return this.variants.stopped;
  }

  /**
   * Builds the rollout generator and the RL update's pipelines before the
   * first step (LabEngine.warmGenerate, warmUpdate) on a batch of the step's
   * size made of held-out prompts with empty responses (./warm-up.ts);
   * changes no policy, draws no random number.
   */
  async warmUp(): Promise<void> {
    const estimators = this.variants.all.map(
      (c) => c.config.estimator ?? this.experiment.algorithm.estimator,
    );
    await warmUpRun(this.engine, this.evalPrompts, this.experiment.algorithm, estimators);
  }

  // ---- cold-start SFT -----------------------------------------------------

  /**
   * Starts cold-start SFT: from here `runSteps` runs SFT steps (one row of
   * variant "sft" each, an eval every `evalEvery` steps), and the last one
   * makes the result the reference policy and every variant's start (RL
   * step 0), then evaluates it (`sftEval`).
   * @param opts.steps SFT steps (default Experiment.sftSteps).
   * @param opts.evalEvery intermediate eval interval in SFT steps (0, the default: only the final eval).
   * @param opts.fromScratch start from a fresh random init (seeded by the
   *   experiment's seed) instead of the current cold-start parameters.
   */
  beginSft(opts: { steps?: number; evalEvery?: number; fromScratch?: boolean } = {}): void {
    const exp = this.experiment;
    const start = opts.fromScratch ? initParams(this.config, exp.seed) : this.initial;
    this.sft.begin(
      start,
      this.adamOptions(exp.sftLr),
      opts.steps ?? exp.sftSteps,
      opts.evalEvery ?? 0,
    );
  }

  /** Ends SFT in progress without committing it: the previous cold start stays (a later beginSft starts over). */
  abandonSft(): void {
    this.sft.end();
  }

  /**
   * Continues SFT from `snap` (this run's cold start must be the one the SFT
   * snapshot's run started from): its next SFT step is the snapshot's step + 1.
   * @throws Error when the state does not fit the model (writePolicyState).
   */
  restoreSft(snap: SftSnapshot): void {
    this.beginSft({ steps: snap.total, evalEvery: snap.evalEvery });
    this.sft.restore(snap);
  }

  /** One SFT step with its rows (SftPhase.stepWithRows); the last one commits SFT. @returns the SFT step done. */
  private async stepSft(): Promise<number> {
    const done = await this.sft.stepWithRows(this.experiment, this.sink, {
      elapsed: () => this.elapsed(),
      evalPolicy: (policy, step) => this.evalPolicy(policy, "sft", step),
    });
    if (done.last) await this.commitSft(done.policy, done.total);
    return done.step;
  }

  /** SFT's result becomes the cold start: reference policy, every variant's start, RL step 0; then its eval. */
  private async commitSft(policy: Policy, total: number): Promise<void> {
    this.initial = await this.engine.readParams(policy.params);
    this.engine.setReference(this.initial);
    this.variants.reset();
    this.step = 0;
    this.sft.end();
    this.sftEval = await this.evalPolicy(policy, "sft", total);
  }

  /** The cold-start parameters (to save as a checkpoint). */
  get initialParams(): Float32Array {
    return this.initial;
  }

  // ---- evaluation (./run-eval.ts) -----------------------------------------

  /** Held-out eval of one policy under the experiment's seed; emits one eval row. */
  private evalPolicy(policy: EvalParams, variant: string, step: number): Promise<EvalMetrics> {
    return this.evaluator.evalRow(
      policy,
      { key: variant, seed: this.experiment.seed },
      step,
      false,
    );
  }

  /** Evaluates the reference (cold-start) policy; emits rows for every variant at step 0. */
  evalStart(): Promise<EvalMetrics> {
    return this.evaluator.startRows({ params: this.engine.ref }, this.variants.all, this.seeds);
  }

  /** Evaluates every variant (under every seed) at the current step; keyed `name` (one seed) or `name.s<seed>`. */
  async evalAll(): Promise<Record<string, EvalMetrics>> {
    const out: Record<string, EvalMetrics> = {};
    for (const v of this.variants.all)
      if (!this.variants.isStopped(v)) out[v.policy.name] = await this.evalCopy(v, this.step);
    return out;
  }

  /** Held-out eval of one copy under its seed; emits one eval row under its key. */
  private evalCopy(copy: TrainedCopy, step: number): Promise<EvalMetrics> {
    return this.evaluator.evalRow(copy.policy, copy, step, this.multiSeed);
  }

  /**
   * Gives variant `config.name` the settings `config` (parsed at the
   * trainer's entry, applyVariantPatch) from the next step on and emits a
   * chart marker labelled `label` ("lambda=2").
   * @throws Error naming a variant that is not in this run.
   */
  setWeights(config: VariantConfig, label: string): void {
    this.experiment = this.variants.withWeights(this.experiment, config);
    this.sink.marker({ variant: config.name, step: this.step + 1, label: label || "weights" });
  }

  /**
   * The token weights of a kept sample group (./run-tokens.ts): `variant` a
   * variant name or fork key, `seed` the copy's seed in a multi-seed run.
   * @throws Error naming the request when the variant or the group is unknown.
   */
  async tokenWeights(req: {
    variant: string;
    step: number;
    promptId: string;
    seed?: number;
  }): Promise<TokenWeightsResult> {
    const copy = [...this.variants.named(req.variant), ...this.forks.ofKey(req.variant)][0];
    if (!copy) throw new Error(`tokenWeights: unknown variant '${req.variant}'`);
    return this.tokens.weights(this.engine, copy.policy, req);
  }

  /** Reset: every variant back to the cold-start parameters (same initial weights), step 0. */
  reset(): void {
    this.tokens.clear();
    this.variants.reset();
    this.step = 0;
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

  /** Frees every policy's GPU buffers (variants, forks, SFT), not the engine's; the run is not used afterwards. */
  dispose(): void {
    this.clearForks();
    this.variants.dispose();
    this.sft.dispose();
  }

  // ---- snapshots (./snapshot.ts) --------------------------------------------

  /**
   * The run's state at this step boundary (src/run/snapshot.ts): experiment,
   * cold start, and every variant's and fork's parameters and AdamW state
   * (read back from the GPU: 3 × totalFloats f32 per policy).
   * @throws Error when the current step is only partly done (a variant failed).
   */
  async snapshot(): Promise<RunSnapshot> {
    if (this.variants.partlyDone || !this.forks.allTrainedTo(this.step))
      throw new Error(
        `snapshot: step ${this.step + 1} is only partly done (a variant failed); train it first`,
      );
    const policies: PolicySnapshot[] = [
      ...(await this.variants.snapshots()),
      ...(await this.forks.snapshots((name) => this.variants.streak(name))),
    ];
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
    this.variants.restore(snapshot.policies.filter((p) => !p.fork));
    this.tokens.clear();
    this.clearForks();
    for (const [name, k] of this.forks.restore(snapshot.policies, this.adamOptions()))
      this.variants.setStreak(name, k);
    this.step = snapshot.step;
    this.startTime = performance.now() - snapshot.elapsed * 1000;
  }

  // ---- policies, forks (./run-forks.ts) -------------------------------------

  /**
   * The policy of a variant (or a fork key) under `seed` (default: the first
   * seed): its GPU parameters and optimizer, for tools and tests.
   * @throws Error for an unknown name or seed.
   */
  policyOf(name: string, seed = this.seeds[0]): Policy {
    const p = this.variants.find(name, seed)?.policy ?? this.forks.find(name, seed)?.policy;
    if (!p) throw new Error(`no variant or fork '${name}' with seed ${seed} in this run`);
    return p;
  }

  /** Parameters of a variant's policy (checkpoint export); `seed` picks the copy in a multi-seed run (default: the first seed). */
  async variantParams(name: string, seed = this.seeds[0]): Promise<Float32Array> {
    const v = this.variants.find(name, seed);
    if (!v) throw new Error(`no variant '${name}' with seed ${seed} in this run`);
    return this.engine.readParams(v.policy.params);
  }

  /** Names of the variants being trained (once each, whatever the number of seeds). */
  get variantNames(): string[] {
    return this.experiment.variants.map((v) => v.name);
  }

  /**
   * Forks `name` (a variant of this run or a fork key) at the current step
   * into a new branch with changed reward weights / judge noise, one copy
   * per seed, trained from the next step on beside the others on its
   * parent's prompts and sampling seeds (RunForks.fork: the copies, the
   * marker, the first eval row; `opts.parentEval` gives the parent's latest
   * eval row under a seed, copied when it is of this step).
   * @returns the fork key (`<name>@fork<step>`, src/settings/fork-key.ts).
   * @throws Error naming an unknown parent, an invalid value, a step that is
   *   half done (a variant failed; train a step first) or too many forks.
   */
  fork(
    name: string,
    weights: Readonly<Record<string, WeightValue>>,
    judge?: Partial<VariantConfig["judge"]>,
    opts: { parentEval?: (seed: number) => MetricRow | undefined } = {},
  ): Promise<string> {
    return this.forks.fork({
      variantParents: this.variants.named(name),
      name,
      step: this.step,
      partlyDone: this.variants.partlyDone,
      weights,
      judge,
      parentEval: opts.parentEval,
      sink: this.sink,
      evalCopy: (f, step) => this.evalCopy(f, step),
    });
  }

  /** Drops every fork and frees its GPU buffers (reset, reseed and SFT keep forks: the controller calls this with each). */
  clearForks(): void {
    for (const name of this.forks.clear()) this.variants.setStreak(name, 0);
  }
}
