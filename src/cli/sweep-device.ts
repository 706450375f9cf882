/**
 * The device side of a CLI sweep (`claims`, `lab --seeds`): one GPU context
 * watched for a lost device, one engine per cold start shared by the units
 * that start from it (a unit's policies are freed when it ends), and each
 * seed-variant trained through RunTraining (src/controller/run-training.ts), so a
 * lost device mid-step costs that step and the sweep goes on on a new
 * device. Any other unit that meets a lost device runs again on a new one.
 */
import type { GpuContext } from "../gpu/context";
import type { LabEngine } from "../engine/lab-engine";
import type { ModelConfig } from "../model/config";
import type { EvalMetrics } from "../rl/eval-metrics";
import { parseExperiment, type Experiment } from "../settings/experiment";
import type { MnistSubset } from "../tasks/mnist-data";
import { HeldSink } from "../controller/held-sink";
import { LabRun } from "../run/lab-run";
import type { RewardScorer } from "../rl/reward-contract";
import type { MetricRow, RunSink } from "../run/run-types";
import { RunTraining } from "../controller/run-training";

/** Tries of one unit on a lost device before the sweep gives up (lab choice). */
const MAX_DEVICE_TRIES = 3;

/** What one seed-variant unit gives: its rows (step 0 first), final eval, or why it stopped. */
export interface SeedVariantResult {
  rows: MetricRow[];
  /** The last eval's metrics (null when the copy was stopped before one). */
  final: Record<string, number> | null;
  /** Set when the copy was stopped for good (a PRM file error): the reason. */
  stopped?: string;
}

/** A cold start a unit trains from: model config, parameters, and the key its engine is shared under. */
export interface UnitStart {
  key: string;
  config: ModelConfig;
  params: Float32Array;
}

/** The device of one sweep (see the file comment). */
export class SweepDevice {
  private readonly held: HeldSink;
  private readonly training: RunTraining;
  private readonly engines = new Map<string, LabEngine>();
  private readonly out: { target: RunSink };
  /** The reward scorer of the unit in progress (a seed-variant may bring its own). */
  private scorer: RewardScorer;

  /**
   * @param createContext a new GPU context (at the start, and after a lost device).
   * @param sink where every unit's output goes (progress, files).
   * @param defaultScorer every unit's reward scorer unless a seed-variant names another.
   */
  constructor(
    createContext: () => Promise<GpuContext>,
    private readonly sink: RunSink,
    private readonly defaultScorer: RewardScorer,
  ) {
    this.scorer = defaultScorer;
    this.out = { target: sink };
    const relay: RunSink = {
      metrics: (r) => this.out.target.metrics(r),
      samples: (g) => this.out.target.samples(g),
      marker: (m) => this.out.target.marker(m),
      log: (l) => this.out.target.log(l),
    };
    this.held = new HeldSink(relay);
    this.training = new RunTraining({
      createContext,
      sink: this.held,
      notices: relay,
      output: this.held,
      notify: (m) => sink.log(m),
    });
    this.training.scorer = defaultScorer;
  }

  /** The current context (a new one when there is none or it was lost). */
  context(): Promise<GpuContext> {
    return this.training.acquire();
  }

  /**
   * A LabRun of `exp` from `start` on the shared engine of `start.key`
   * (made on first use), writing to `sink`.
   */
  async run(exp: Experiment, start: UnitStart, mnist: MnistSubset | undefined, sink: RunSink) {
    const ctx = await this.context();
    const shared = this.engines.get(start.key);
    const engine = shared && shared.ctx === ctx ? shared : undefined;
    const r = new LabRun(ctx, exp, sink, this.scorer, mnist, start, engine);
    this.engines.set(start.key, r.engine);
    return r;
  }

  /**
   * Runs `work` on the device; when the device is lost under it, again on a
   * new one (at most MAX_DEVICE_TRIES times in all).
   * @throws work's error when the device was not lost, or the last one.
   */
  async withDevice<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const ctx = await this.context();
      try {
        return await work();
      } catch (e) {
        if (!(await this.training.devices.isLost(ctx)) || attempt >= MAX_DEVICE_TRIES) throw e;
        this.sink.log(
          `${this.training.devices.lossOf(ctx)}; the unit runs again on a new device (try ${attempt + 1} of ${MAX_DEVICE_TRIES})`,
        );
      }
    }
  }

  /** The cold start's held-out metrics under `seed` (RunEvaluator.heldOut of the reference). */
  coldStartEval(
    exp: Experiment,
    start: UnitStart,
    mnist: MnistSubset | undefined,
    seed: number,
  ): Promise<EvalMetrics> {
    return this.withDevice(async () => {
      const r = await this.run(exp, start, mnist, this.sink);
      try {
        return await r.evaluator.heldOut({ params: r.engine.ref }, seed);
      } finally {
        r.dispose();
      }
    });
  }

  /**
   * Trains one seed-variant (`exp`: one seed, one variant) from `start` to
   * `exp.algorithm.steps` through RunTraining; its rows are the step-0 row
   * (`coldStart`, stamped with the variant and seed) and every row the run
   * emits.
   * @param whenDone called with the run at its end, before it is freed (checkpoints).
   * @param scorer the unit's reward scorer (e.g. a `prm` arm's own PRM); absent: the sweep's.
   */
  trainSeedVariant(args: {
    exp: Experiment;
    start: UnitStart;
    mnist: MnistSubset | undefined;
    coldStart: EvalMetrics;
    whenDone?: (run: LabRun) => Promise<void>;
    scorer?: RewardScorer;
  }): Promise<SeedVariantResult> {
    const { exp } = args;
    const seed = exp.seeds?.[0] ?? exp.seed;
    const variant = exp.variants[0].name;
    return this.withDevice(async () => {
      const rows: MetricRow[] = [
        {
          variant,
          step: 0,
          time: 0,
          kind: "eval",
          values: { ...args.coldStart },
          ...(exp.seeds ? { seed } : {}),
        },
      ];
      this.sink.metrics(rows);
      this.scorer = args.scorer ?? this.defaultScorer;
      this.training.scorer = this.scorer;
      this.out.target = {
        ...this.sink,
        metrics: (r) => {
          rows.push(...r);
          this.sink.metrics(r);
        },
      };
      try {
        const first = await this.run(exp, args.start, args.mnist, this.held);
        this.training.mnist = args.mnist;
        this.training.setRun(first, await first.snapshot());
        await this.training.trainSteps(Number.POSITIVE_INFINITY, () => false, {
          keepSkipping: true,
        });
        // A lost device rebuilds the run: take the one that finished, and share its engine.
        const run = this.training.run!;
        this.engines.set(args.start.key, run.engine);
        const stopped = [...run.stoppedVariants.values()][0];
        const lastEval = [...rows].reverse().find((r) => r.kind === "eval" && r.step > 0);
        await args.whenDone?.(run);
        run.dispose();
        return {
          rows,
          final: lastEval ? lastEval.values : null,
          ...(stopped !== undefined ? { stopped } : {}),
        };
      } finally {
        this.out.target = this.sink;
        this.scorer = this.defaultScorer;
        this.training.scorer = this.defaultScorer;
        this.training.setRun(null, null);
      }
    });
  }

  /**
   * Cold-start SFT from a fresh random init (seeded by `exp.seed`, its
   * sftSteps, no intermediate eval) through RunTraining.trainSft: a lost
   * device continues from the last SFT snapshot.
   * @returns the SFT result (the cold start) and its final eval.
   */
  sftFromScratch(
    exp: Experiment,
    mnist: MnistSubset | undefined,
  ): Promise<{ config: ModelConfig; params: Float32Array; eval: EvalMetrics }> {
    // SFT reads the experiment's seed, not its seed list: one variant suffices to build the run.
    const one = parseExperiment({ ...exp, seeds: undefined, variants: [exp.variants[0]] });
    return this.withDevice(async () => {
      const ctx = await this.context();
      const first = new LabRun(ctx, one, this.held, this.scorer, mnist, null);
      first.beginSft({ steps: one.sftSteps, evalEvery: 0 });
      this.training.mnist = mnist;
      this.training.setRun(first, await first.snapshot());
      try {
        await this.training.trainSft(() => false);
        const run = this.training.run!;
        if (run.sft.active || !run.sftEval) throw new Error("SFT from scratch did not finish");
        const out = { config: run.config, params: run.initialParams, eval: run.sftEval };
        run.dispose();
        return out;
      } finally {
        this.training.setRun(null, null);
      }
    });
  }

  /**
   * The cost of a seed-variant's parts on this device now: one RL step of a
   * scratch copy of `exp`'s first variant under `seed` from `start` (its
   * output dropped) and one held-out eval of the cold start, in seconds.
   */
  async measureStep(
    exp: Experiment,
    start: UnitStart,
    mnist: MnistSubset | undefined,
    seed: number,
    variant = exp.variants[0].name,
  ): Promise<{ stepSeconds: number; evalSeconds: number }> {
    const quiet: RunSink = { metrics() {}, samples() {}, marker() {}, log() {} };
    const one = parseExperiment({
      ...exp,
      seeds: [seed],
      variants: exp.variants.filter((v) => v.name === variant),
    });
    return this.withDevice(async () => {
      const r = await this.run(one, start, mnist, quiet);
      try {
        let t0 = performance.now();
        await r.stepVariants();
        const stepSeconds = (performance.now() - t0) / 1000;
        t0 = performance.now();
        await r.evaluator.heldOut({ params: r.engine.ref }, seed);
        return { stepSeconds, evalSeconds: (performance.now() - t0) / 1000 };
      } finally {
        r.dispose();
      }
    });
  }

  /** Frees the device. */
  dispose(): void {
    this.training.devices.disposing = true;
    this.training.ctx?.destroy();
    this.training.ctx = null;
  }
}
