/**
 * RunController: the controller of a lab run. It owns the device, the reward
 * scorer, the LabRun of the current experiment and the state machine around
 * them (init, cold-start SFT, the RL loop, pause, single steps, reset,
 * re-seed, live weights, forks, the judge-stability study), behind typed
 * commands (TrainerCommand) answered by typed events (TrainerEvent).
 *
 * The trainer worker (src/workers/trainer.worker.ts) is a message adapter
 * over it; the headless lab (src/cli/lab.ts) and the tests drive it in Node. What differs between
 * the two is the host (RunControllerHost): how the device, the scorer and the
 * site's files are got, and what happens after each unit of GPU work (the
 * worker lets the page draw).
 *
 * Commands run one at a time, in the order `send` gets them. `pause` also
 * stops a running loop (or SFT) at once, at the next step boundary, so it
 * never waits behind a long step. `start` is done once the loop runs; the
 * loop goes on in the background until paused or the step budget is spent
 * (`whenIdle` waits for it). A failed command is answered with an error
 * event and training pauses; the run is kept, so Train tries again.
 *
 * The output of one unit of GPU work (an RL step, an SFT step, an eval, a
 * fork) is held back and emitted at its end in one batch: the events in
 * order, then one `metrics` and one `samples` event with every row and group.
 *
 * Faults (docs: issue "Runs survive faults"):
 * - After every RL step (and after init, SFT, reset, re-seed and a fork) the
 *   controller keeps a snapshot of the run in memory (src/run/snapshot.ts: every
 *   variant's and fork's parameters and AdamW m, v, t). It posts it as a
 *   `snapshot` event (encoded) when training stops and at most every
 *   PERSIST_INTERVAL_MS while it runs; the page stores it in IndexedDB, so a
 *   saved run resumes (`init` with `resume`).
 * - A lost GPU device (any loss the controller did not cause by `dispose`):
 *   the step in flight is dropped (its rows never go out), a new device is
 *   requested from the host, the run is rebuilt from the snapshot (live
 *   weight changes kept) and the step is trained again; every variant gets a
 *   "device-lost" marker at that step. At most the step in flight is lost.
 * - A failed step is tried again at once; a step that fails the same way
 *   twice (same message, or a lost device both times), or MAX_STEP_ATTEMPTS
 *   times in all, pauses the run with the reason (an error event and the
 *   status message). Pressing Train again tries it once more and pauses again
 *   if it fails the same way: it never loops.
 * - A skipped optimizer update (NaN/Inf gradient) is the `update_skipped`
 *   metric and an "update-skipped" marker (LabRun); a policy whose update is
 *   skipped at two steps in a row pauses the run with the reason.
 */
import type { GpuContext } from "../gpu/context";
import { loadCheckpoint, type Checkpoint } from "../model/checkpoint";
import { parseMnistSubset, type MnistSubset } from "../tasks/mnist-data";
import { checkpointPath } from "../settings/checkpoints";
import { resolveColdStart } from "./cold-start";
import {
  parseExperiment,
  type Experiment,
  type VariantConfig,
  type VariantWeights,
} from "../settings/experiment";
import type { RewardScorer } from "./reward-client";
import type { GroupView, Marker, MetricRow } from "./run-types";
import { LabRun, type RunSink } from "./lab-run";
import { decodeSnapshot, encodeSnapshot, type RunSnapshot } from "./snapshot";
import {
  stabilityReport,
  type StabilityPolicy,
  type StabilityReport,
} from "../experiments/stability-study";

/** Where the controller is: what the page's controls and status line show. */
export type TrainerPhase = "loading" | "idle" | "sft" | "rl" | "paused" | "done" | "error";

/** Commands of the controller. */
export type TrainerCommand =
  /**
   * Builds the run of `experiment`: device (first time), data, cold start
   * (src/run/cold-start.ts), variants; then evaluates the cold start. Answered
   * by `ready` and the step-0 eval rows, or an error.
   */
  | {
      type: "init";
      experiment: Experiment;
      /** Where the cold start is read (RunControllerHost.readAsset) instead of the shipped file. */
      checkpoint?: string;
      /**
       * A run snapshot (encodeSnapshot bytes, e.g. a saved run's) to continue
       * instead of starting at step 0: its experiment, cold start, step and
       * every policy's state replace `experiment`'s (which only has to parse).
       * Answered by `ready`, a "resumed" marker per variant and a paused status.
       */
      resume?: Uint8Array;
      /** Keep the default model size on a CPU adapter (resolveColdStart `keepModelSize`). */
      keepModelSize?: boolean;
      /** Read no cold start: the run starts with SFT from scratch (on the first Train or Step). */
      fromScratch?: boolean;
      /** SFT's intermediate eval interval in steps (0: only the final eval; default max(10, sftSteps / 10)). */
      sftEvalEvery?: number;
      /** With `resume`: evaluate the cold start again (its step-0 eval rows), as a fresh run does. */
      evalColdStart?: boolean;
      /**
       * When the cold start's held-out eval (the step-0 rows) runs: "init"
       * (default) before `ready` goes idle; "after-first-step" right after
       * the first RL step, so that Train pressed at once gives its first
       * step without waiting for the eval (the page; the eval reads the
       * frozen reference, so its figures are the same either way).
       */
      startEval?: "init" | "after-first-step";
    }
  /** Trains until paused or `algorithm.steps` is reached (SFT first when there is no cold start). */
  | { type: "start" }
  /** Stops training (and SFT) at the next step boundary. */
  | { type: "pause" }
  /** One RL step of every variant and fork (SFT first when there is no cold start), then paused. */
  | { type: "step" }
  /** Every variant back to the cold-start weights at step 0; forks dropped. */
  | { type: "reset" }
  /** A new seed for prompts, sampling and judge noise, then Reset. */
  | { type: "reseed"; seed: number }
  /** SFT from a fresh random init; its result becomes the cold start. */
  | { type: "runSft" }
  /** A variant's reward weights / judge noise from the next step on; answered by a marker. */
  | {
      type: "setWeights";
      variant: string;
      weights: VariantWeights;
      judge?: Partial<VariantConfig["judge"]>;
    }
  /**
   * Fork `variant` (a variant name or a fork key) at the current step into a
   * new branch with these weights / judge settings (LabRun.fork); answered by
   * a fork marker and the branch's first eval row, or an error event.
   */
  | {
      type: "fork";
      variant: string;
      weights: VariantWeights;
      judge?: Partial<VariantConfig["judge"]>;
    }
  /**
   * Judge stability (GRR §4.3.4) on the current run: `groupSize` rollouts of
   * `prompts` training prompts from `policy` (default "reference", the cold
   * start), then the judge-noise sweep (src/experiments/stability-study.ts). Pauses
   * training at the step boundary while it runs, then resumes. Answered by a
   * `stability` event (result or error).
   */
  | {
      type: "stability";
      policy?: StabilityPolicy;
      prompts?: number;
      groupSize?: number;
      repeats?: number;
      seed?: number;
    };

/** Events of the controller. */
export type TrainerEvent =
  | {
      type: "ready";
      adapter: string;
      isFallback: boolean;
      modelSize: string;
      params: number;
      note?: string;
    }
  | { type: "status"; phase: TrainerPhase; step: number; message?: string }
  | { type: "metrics"; rows: MetricRow[] }
  | { type: "samples"; groups: GroupView[] }
  | { type: "marker"; marker: Marker }
  | { type: "log"; message: string }
  | { type: "error"; message: string; fatal: boolean }
  /**
   * The run's latest snapshot at `step` (encodeSnapshot bytes, src/run/snapshot.ts),
   * posted when training stops and at most every PERSIST_INTERVAL_MS while it runs.
   */
  | { type: "snapshot"; step: number; bytes: Uint8Array }
  /** Answer to a `stability` command: the report, or null and the reason it could not run. */
  | { type: "stability"; result: StabilityReport | null; error?: string };

/** What the controller gets from where it runs (the worker, or Node). */
export interface RunControllerHost {
  /** The GPU context; called at the first init, and again after a lost device. */
  createContext(): Promise<GpuContext>;
  /** The reward side; called once, at the first init. */
  createScorer(): RewardScorer;
  /**
   * A file of the site (public/: `data/mnist-subset.bin`, `checkpoints/…`),
   * by path relative to the site root or by URL; null when it is missing.
   */
  readAsset(path: string): Promise<Uint8Array | null>;
  /** Awaited after each unit of GPU work, once its output is emitted (the worker lets the page draw). */
  afterWork?(): Promise<void>;
}

/** Path of the MNIST subset on the site (digits tasks). */
const MNIST_ASSET = "data/mnist-subset.bin";

const evalKey = (variant: string, seed: number | undefined) => `${variant}|${seed ?? ""}`;

/** Tries of one RL step before the run pauses (lab choice: the first and two retries). */
const MAX_STEP_ATTEMPTS = 3;
/** Least time between two `snapshot` events while training runs (lab choice). */
const PERSIST_INTERVAL_MS = 30_000;
/** How long a failed step waits for the device's `lost` promise before counting as an ordinary failure (lab choice). */
const LOSS_GRACE_MS = 200;

/** A failure that stops training with a reason: non-fatal pauses the run, fatal ends it. */
class TrainerFault extends Error {
  constructor(
    message: string,
    readonly fatal: boolean,
  ) {
    super(message);
  }
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The lab's run controller (see the file comment). */
export class RunController {
  private ctx: GpuContext | null = null;
  private scorer: RewardScorer | null = null;
  private labRun: LabRun | null = null;
  private currentPhase: TrainerPhase = "loading";
  /** True while the RL loop should go on; cleared by pause and by every command that reshapes the run. */
  private running = false;
  private loop: Promise<void> | null = null;
  /** True while SFT runs; cleared by pause and by every command that reshapes the run. */
  private sftRunning = false;
  /** The run has no cold start yet: the next Train or Step runs SFT from scratch first. */
  private needsSft = false;
  private queue: Promise<void> = Promise.resolve();
  private holding = false;
  private readonly held: TrainerEvent[] = [];
  /** The MNIST subset of the current run (digits tasks), kept to rebuild the run after a lost device. */
  private mnist: MnistSubset | undefined;
  /** The run at the last step boundary (see the file comment). */
  private lastSnapshot: RunSnapshot | null = null;
  /** The snapshot last posted as an event, and when. */
  private posted: RunSnapshot | null = null;
  private postedAt = 0;
  /** The last failed RL step, how it failed (the message, or "device-lost") and the message. */
  private lastFailure: { step: number; signature: string; message: string } | null = null;
  /** Contexts whose device was lost, with the loss message. */
  private readonly lost = new WeakMap<GpuContext, string>();
  private recovering: Promise<void> | null = null;
  private disposing = false;
  /** The latest eval row per variant (and seed): a fork's first row copies its parent's. */
  private readonly lastEval = new Map<string, MetricRow>();
  /** SFT's intermediate eval interval of the current run (init `sftEvalEvery`). */
  private sftEvalEvery: number | undefined;
  /** The checkpoint the current run started from (null: none, or a resumed run). */
  private coldStart: Checkpoint | null = null;
  private readonly sink: RunSink = {
    metrics: (rows) => {
      for (const r of rows) if (r.kind === "eval") this.lastEval.set(evalKey(r.variant, r.seed), r);
      this.emit({ type: "metrics", rows });
    },
    samples: (groups) => this.emit({ type: "samples", groups }),
    marker: (marker) => this.emit({ type: "marker", marker }),
    log: (message) => this.emit({ type: "log", message }),
  };

  /**
   * @param host device, scorer, files and the after-work hook.
   * @param listener gets every event, in order.
   */
  constructor(
    private readonly host: RunControllerHost,
    private readonly listener: (ev: TrainerEvent) => void,
  ) {}

  /** The current phase. */
  get phase(): TrainerPhase {
    return this.currentPhase;
  }

  /** RL steps done by the current run (0 before init). */
  get step(): number {
    return this.labRun?.step ?? 0;
  }

  /** The current run (null before init, or after a failed one). */
  get run(): LabRun | null {
    return this.labRun;
  }

  /** The cold-start checkpoint the current run was built from (null: SFT from scratch, or a resumed run). */
  get coldStartCheckpoint(): Checkpoint | null {
    return this.coldStart;
  }

  /** The GPU context (null before the first init). */
  get context(): GpuContext | null {
    return this.ctx;
  }

  /**
   * Queues a command behind the ones before it; `pause` also stops a running
   * loop or SFT at once. Never rejects: a failure is an error event.
   * @returns a promise that settles when the command is done (for `start`:
   *   when the loop is running).
   */
  send(cmd: TrainerCommand): Promise<void> {
    if (cmd.type === "pause") {
      this.running = false;
      this.sftRunning = false;
    }
    this.queue = this.queue.then(() => this.handle(cmd)).catch((e) => this.report(e));
    return this.queue;
  }

  /** Waits until every queued command is done and no training loop runs. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const queued = this.queue;
      await queued;
      if (this.loop) await this.loop;
      else if (queued === this.queue) return;
    }
  }

  /** The run's snapshot at the last step boundary (null before init). */
  get snapshot(): RunSnapshot | null {
    return this.lastSnapshot;
  }

  /** Stops training and frees the device (the controller must not be used afterwards). */
  async dispose(): Promise<void> {
    await this.send({ type: "pause" });
    this.disposing = true;
    this.ctx?.destroy();
    this.ctx = null;
    this.scorer?.dispose?.();
    this.scorer = null;
  }

  private post(ev: TrainerEvent): void {
    this.listener(ev);
  }

  private emit(ev: TrainerEvent): void {
    if (this.holding) this.held.push(ev);
    else this.post(ev);
  }

  private release(): void {
    this.holding = false;
    const held = this.held.splice(0);
    const rows = held.flatMap((e) => (e.type === "metrics" ? e.rows : []));
    const groups = held.flatMap((e) => (e.type === "samples" ? e.groups : []));
    for (const e of held) if (e.type !== "metrics" && e.type !== "samples") this.post(e);
    if (rows.length) this.post({ type: "metrics", rows });
    if (groups.length) this.post({ type: "samples", groups });
  }

  /**
   * Runs one unit of GPU work with its output held back, then calls the
   * host's after-work hook. `onError` runs before the held output goes out
   * (it may drop some: dropStepOutput).
   */
  private async unit<T>(work: () => Promise<T>, onError?: () => Promise<void>): Promise<T> {
    this.holding = true;
    try {
      return await work();
    } catch (e) {
      await onError?.();
      throw e;
    } finally {
      this.release();
      await this.host.afterWork?.();
    }
  }

  private status(next: TrainerPhase, message?: string): void {
    this.currentPhase = next;
    this.post({ type: "status", phase: next, step: this.step, message });
  }

  private requireRun(): LabRun {
    if (!this.labRun) throw new Error("the controller has no experiment yet (send init first)");
    return this.labRun;
  }

  /**
   * A failed command or step: reported, training paused, the run kept (Train
   * tries again), and its last snapshot posted; a fatal fault ends in "error".
   */
  private report(e: unknown): void {
    this.running = false;
    const message = messageOf(e);
    const fatal = e instanceof TrainerFault && e.fatal;
    this.post({ type: "error", message, fatal });
    this.persist();
    this.status(this.labRun && !fatal ? "paused" : "error", message);
  }

  /** A new GPU context from the host, watched for a lost device. */
  private async acquireContext(): Promise<GpuContext> {
    const ctx = await this.host.createContext();
    ctx.device.lost.then((info) => {
      if (this.disposing) return;
      const message = `GPU device lost (${info.reason}${info.message ? `: ${info.message}` : ""})`;
      this.lost.set(ctx, message);
      if (ctx !== this.ctx) return;
      this.post({ type: "log", message });
      // A step in flight fails and recovers itself; when idle, recover now, behind the queued commands.
      this.queue = this.queue.then(() => this.recoverIfLost()).catch((e) => this.report(e));
    });
    return ctx;
  }

  /**
   * True when the device of `ctx` (the one a failed step ran on) is lost;
   * waits up to LOSS_GRACE_MS for its `lost` promise.
   */
  private async deviceLost(ctx: GpuContext | null): Promise<boolean> {
    if (!ctx) return false;
    if (!this.lost.has(ctx))
      await Promise.race([
        ctx.device.lost,
        new Promise((resolve) => setTimeout(resolve, LOSS_GRACE_MS)),
      ]);
    return this.lost.has(ctx);
  }

  /**
   * Rebuilds the run on a new device from the last snapshot when the current
   * device is lost (once, however many callers wait); a no-op otherwise.
   * @throws TrainerFault (fatal) when no new device can be had or there is no snapshot.
   */
  private recoverIfLost(): Promise<void> {
    const ctx = this.ctx;
    const message = ctx ? this.lost.get(ctx) : undefined;
    if (!ctx || message === undefined) return this.recovering ?? Promise.resolve();
    this.recovering ??= this.recoverDevice(message).finally(() => {
      this.recovering = null;
    });
    return this.recovering;
  }

  private async recoverDevice(message: string): Promise<void> {
    const old = this.labRun;
    const snap = this.lastSnapshot;
    if (!old || !snap) {
      // No run to keep: the next init gets a new device.
      this.ctx = null;
      return;
    }
    let ctx: GpuContext;
    try {
      ctx = await this.acquireContext();
    } catch (e) {
      this.ctx = null;
      throw new TrainerFault(
        `${message}, and no new GPU device could be had (${messageOf(e)}). The snapshot of step ${snap.step} is kept: save the run and resume it after a reload.`,
        true,
      );
    }
    this.ctx = ctx;
    // The live weight changes since the snapshot are kept (the old run's experiment is CPU state).
    const run = LabRun.fromSnapshot(
      ctx,
      { ...snap, experiment: old.experiment },
      this.sink,
      this.scorer!,
      this.mnist,
    );
    this.labRun = run;
    this.lastSnapshot = await run.snapshot();
    const step = snap.step + 1;
    for (const variant of [...run.variantNames, ...run.forkKeys])
      this.sink.marker({
        variant,
        step,
        label: `${message}: went on from the snapshot of step ${snap.step} on a new device`,
        fault: "device-lost",
      });
    this.sink.log(
      `${message}; new device: ${ctx.adapter.description}. Restored the snapshot of step ${snap.step}; step ${step} is trained again.`,
    );
  }

  /**
   * Drops the rows, groups and fault markers a failed step has emitted so
   * far (they are made again when the step is trained again from the snapshot).
   */
  private dropStepOutput(): void {
    const keep = this.held.filter(
      (e) =>
        e.type !== "metrics" && e.type !== "samples" && !(e.type === "marker" && e.marker.fault),
    );
    this.held.splice(0, this.held.length, ...keep);
  }

  /** Posts the last snapshot as a `snapshot` event, unless it was posted already. */
  private persist(): void {
    const snap = this.lastSnapshot;
    if (!snap || snap === this.posted) return;
    this.posted = snap;
    this.postedAt = performance.now();
    let bytes: Uint8Array;
    try {
      bytes = encodeSnapshot(snap);
    } catch (e) {
      this.post({
        type: "log",
        message: `the run's snapshot could not be encoded: ${messageOf(e)}`,
      });
      return;
    }
    this.post({ type: "snapshot", step: snap.step, bytes });
  }

  /**
   * One RL step of every variant and fork, with the recovery of the file
   * comment: a lost device is replaced and the step trained again from the
   * snapshot; any failure is tried again until it repeats or MAX_STEP_ATTEMPTS.
   * @throws TrainerFault naming the step and the reason when the run must pause (or end).
   */
  private async trainStep(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await this.recoverIfLost();
      const r = this.requireRun();
      const ctx = this.ctx;
      const step = r.step + 1;
      let lostDevice = false;
      try {
        await this.unit(
          async () => {
            await r.stepAll();
            this.lastSnapshot = await r.snapshot();
            this.emit({ type: "status", phase: "rl", step: r.step });
          },
          async () => {
            // The recovery queued by the device's `lost` handler may have replaced this.ctx already.
            lostDevice = await this.deviceLost(ctx);
            if (lostDevice) this.dropStepOutput();
          },
        );
      } catch (e) {
        const message = lostDevice && ctx ? (this.lost.get(ctx) ?? messageOf(e)) : messageOf(e);
        const signature = lostDevice ? "device-lost" : message;
        const prev = this.lastFailure;
        this.lastFailure = { step, signature, message };
        if (lostDevice) await this.recoverIfLost();
        if (prev?.step === step && prev.signature === signature)
          throw new TrainerFault(
            `step ${step} failed twice the same way (${message}); the run is paused instead of trying it again. Reset, re-seed or change the settings to go on.`,
            false,
          );
        if (attempt >= MAX_STEP_ATTEMPTS)
          throw new TrainerFault(
            `step ${step} failed ${attempt} times (last: ${message}); the run is paused`,
            false,
          );
        this.post({ type: "log", message: `step ${step} failed (${message}); trying it again` });
        continue;
      }
      this.lastFailure = null;
      const stuck = r.repeatedSkips(2);
      if (stuck.length > 0)
        throw new TrainerFault(
          `${stuck.map((x) => `${x.policy} (${x.steps} steps)`).join(", ")}: the optimizer skipped the update at every one of the last steps (a NaN/Inf gradient each time), the same failure twice; the run is paused at step ${r.step} instead of going on. Lower the learning rate, change the variant's settings or Reset.`,
          false,
        );
      if (performance.now() - this.postedAt >= PERSIST_INTERVAL_MS) this.persist();
      await this.evalStartIfPending();
      return;
    }
  }

  /** The cold start's step-0 eval, when init left it for after the first RL step (init `startEval`). */
  private startEvalPending = false;

  private async evalStartIfPending(): Promise<void> {
    if (!this.startEvalPending) return;
    this.startEvalPending = false;
    const r = this.requireRun();
    this.status(this.currentPhase, "evaluating the cold-start checkpoint (step 0)");
    await this.unit(() => r.evalStart());
    this.status(this.currentPhase);
  }

  private async handle(cmd: TrainerCommand): Promise<void> {
    switch (cmd.type) {
      case "init":
        return this.init(cmd);
      case "start":
        this.requireRun();
        if (this.loop && this.running) return; // already training
        // A loop that a Pause is ending finishes its step first; then training resumes.
        if (this.loop) await this.loop;
        return this.startLoop();
      case "pause":
        return this.stopLoop();
      case "step":
        return this.singleStep();
      case "reset": {
        await this.stopLoop();
        const r = this.requireRun();
        r.clearForks();
        r.reset();
        this.lastFailure = null;
        this.lastSnapshot = await r.snapshot();
        return this.status("idle", "reset to the cold-start weights");
      }
      case "reseed": {
        await this.stopLoop();
        const r = this.requireRun();
        r.clearForks();
        r.reseed(cmd.seed);
        this.lastFailure = null;
        this.lastSnapshot = await r.snapshot();
        return this.status(
          "idle",
          `re-seeded with ${cmd.seed}: new prompts and sampling, same cold-start weights`,
        );
      }
      case "runSft":
        await this.stopLoop();
        this.requireRun().clearForks();
        await this.sftFromScratch(true);
        return this.status(
          "idle",
          this.needsSft ? "SFT stopped before the end" : "SFT from scratch done",
        );
      case "stability":
        return this.stability(cmd);
      case "fork":
        return this.fork(cmd);
      case "setWeights":
        try {
          this.requireRun().setWeights(cmd.variant, cmd.weights, cmd.judge);
        } catch (e) {
          // A rejected value is reported; training goes on.
          this.post({ type: "error", message: (e as Error).message, fatal: false });
        }
        return;
      default: {
        const unknown: never = cmd;
        throw new Error(
          `Unknown controller command type: ${JSON.stringify((unknown as { type?: unknown }).type)}`,
        );
      }
    }
  }

  /** Builds the run for an experiment: device, data, cold start, variants; then the start eval. */
  private async init(cmd: Extract<TrainerCommand, { type: "init" }>): Promise<void> {
    await this.stopLoop();
    // A failed init must not leave the previous experiment to be trained by a queued Start.
    this.labRun = null;
    this.lastSnapshot = null;
    this.lastFailure = null;
    this.needsSft = false;
    this.coldStart = null;
    this.sftEvalEvery = cmd.sftEvalEvery;
    this.lastEval.clear();
    this.status("loading", "starting WebGPU");
    let resume: RunSnapshot | null = null;
    if (cmd.resume !== undefined) {
      try {
        resume = decodeSnapshot(cmd.resume);
      } catch (e) {
        throw new Error(`resume: ${messageOf(e)}`);
      }
    }
    const experiment = resume ? resume.experiment : parseExperiment(cmd.experiment);
    if (this.ctx && this.lost.has(this.ctx)) this.ctx = null;
    this.ctx ??= await this.acquireContext();
    const ctx = this.ctx;
    this.scorer ??= this.host.createScorer();
    let mnist: ReturnType<typeof parseMnistSubset> | undefined;
    if (experiment.task.family === "digits") {
      const bytes = await this.host.readAsset(MNIST_ASSET);
      if (!bytes) throw new Error(`the MNIST subset (${MNIST_ASSET}) is missing from the site`);
      mnist = parseMnistSubset(bytes);
    }
    this.mnist = mnist;
    if (resume) return this.resume(ctx, resume, cmd.evalColdStart ?? false);
    const cold = await resolveColdStart({
      experiment,
      adapter: ctx.adapter,
      keepModelSize: cmd.keepModelSize,
      mnist,
      readCheckpoint: async (exp) => {
        if (cmd.fromScratch) return null;
        const source = cmd.checkpoint ?? checkpointPath(exp);
        const bytes = await this.host.readAsset(source);
        return bytes ? { checkpoint: loadCheckpoint(bytes), source } : null;
      },
    });
    const ckpt = cold.checkpoint;
    if (ckpt?.checkpoint.warning)
      this.post({ type: "log", message: `cold start: ${ckpt.checkpoint.warning}` });
    for (const note of cold.notes) this.post({ type: "log", message: note });
    const run = new LabRun(
      ctx,
      cold.experiment,
      this.sink,
      this.scorer,
      mnist,
      ckpt ? { config: ckpt.checkpoint.config, params: ckpt.checkpoint.params } : null,
    );
    this.labRun = run;
    this.coldStart = ckpt?.checkpoint ?? null;
    this.post({
      type: "ready",
      adapter: ctx.adapter.description,
      isFallback: ctx.adapter.isFallback,
      modelSize: cold.experiment.modelSize,
      params: run.paramCount,
      note:
        [
          cold.sizeNote,
          ckpt
            ? undefined
            : "No shipped cold-start checkpoint for this task and size: Train runs SFT from scratch first.",
        ]
          .filter(Boolean)
          .join(" ") || undefined,
    });
    if (ckpt) {
      // Say which cold start this is: the task's answer form and the model size pick the file.
      const meta = ckpt.checkpoint.meta;
      this.sink.log(
        `cold start: ${ckpt.source} (SFT step ${String(meta?.step ?? "?")}, seed ${String(meta?.seed ?? "?")})`,
      );
      this.startEvalPending = cmd.startEval === "after-first-step";
      if (!this.startEvalPending) {
        this.status("idle", "evaluating the cold-start checkpoint");
        await this.unit(() => run.evalStart());
      }
      // So that the first point after Train is one step away, not one step plus pipeline builds.
      this.status("idle", "preparing the RL step");
      await this.unit(() => run.warmUp());
    } else this.needsSft = true;
    this.lastSnapshot = await run.snapshot();
    this.status("idle");
  }

  /**
   * The end of an init with `resume`: the run rebuilt from the snapshot,
   * paused at its step (after the cold start's eval when `evalColdStart`).
   */
  private async resume(ctx: GpuContext, snap: RunSnapshot, evalColdStart: boolean): Promise<void> {
    const run = LabRun.fromSnapshot(ctx, snap, this.sink, this.scorer!, this.mnist);
    this.labRun = run;
    this.lastSnapshot = snap;
    this.posted = snap;
    this.postedAt = performance.now();
    this.post({
      type: "ready",
      adapter: ctx.adapter.description,
      isFallback: ctx.adapter.isFallback,
      modelSize: snap.experiment.modelSize,
      params: run.paramCount,
      note: `Resumed at step ${snap.step} from a saved snapshot.`,
    });
    for (const variant of [...run.variantNames, ...run.forkKeys])
      this.sink.marker({
        variant,
        step: snap.step,
        label: `resumed from the snapshot of step ${snap.step}`,
      });
    this.sink.log(`resumed from a snapshot at step ${snap.step}`);
    if (evalColdStart) await this.unit(() => run.evalStart());
    const done = snap.step >= snap.experiment.algorithm.steps;
    this.status(done ? "done" : "paused", `resumed at step ${snap.step}`);
  }

  /**
   * SFT (phase "sft"), then the start eval. Pause, Reset and the like stop it
   * without committing: the previous cold start stays and SFT runs again later.
   */
  private async sftFromScratch(fromScratch = false): Promise<void> {
    const r = this.requireRun();
    this.sftRunning = true;
    this.status("sft", `cold-start SFT, ${r.experiment.sftSteps} steps`);
    try {
      this.holding = true;
      const done = await r.sft(
        r.experiment.sftSteps,
        this.sftEvalEvery ?? Math.max(10, Math.round(r.experiment.sftSteps / 10)),
        () => !this.sftRunning,
        {
          fromScratch,
          afterStep: async () => {
            this.release();
            await this.host.afterWork?.();
            this.holding = true;
          },
        },
      );
      this.release();
      if (!done) return;
      this.needsSft = false;
      this.lastFailure = null;
      await this.unit(() => r.evalStart());
      this.lastSnapshot = await r.snapshot();
    } finally {
      this.sftRunning = false;
      this.release();
    }
  }

  /** One step of every variant and fork, then paused (or done). */
  private async singleStep(): Promise<void> {
    await this.stopLoop();
    this.requireRun();
    if (this.needsSft) {
      await this.sftFromScratch();
      if (this.needsSft) return this.status("paused", "SFT stopped before the end");
    }
    this.status("rl");
    await this.trainStep();
    this.persist();
    const now = this.requireRun();
    return this.status(now.step >= now.experiment.algorithm.steps ? "done" : "paused");
  }

  /** Trains until paused or the step budget is spent; yields between steps so commands get through. */
  private async trainLoop(): Promise<void> {
    const r = this.requireRun();
    if (this.needsSft) await this.sftFromScratch();
    if (this.needsSft) {
      // SFT was stopped before it finished.
      this.running = false;
      return this.status("paused", "SFT stopped before the end; Train runs it again");
    }
    if (this.running) this.status("rl");
    // The run is rebuilt after a lost device: read it again every step.
    while (this.running && this.requireRun().step < r.experiment.algorithm.steps) {
      await this.trainStep();
      await new Promise((res) => setTimeout(res, 0));
    }
    const now = this.requireRun();
    const done = now.step >= now.experiment.algorithm.steps;
    this.running = false;
    this.persist();
    this.status(done ? "done" : "paused");
  }

  private startLoop(): void {
    this.running = true;
    this.loop = this.trainLoop()
      .catch((e) => this.report(e))
      .finally(() => {
        this.loop = null;
      });
  }

  /** Stops training (and SFT) at the next step boundary and waits for it. */
  private async stopLoop(): Promise<void> {
    this.running = false;
    this.sftRunning = false;
    if (this.loop) await this.loop;
  }

  /**
   * Judge stability on the current run, for the page's panel. Training pauses
   * at the step boundary while it runs and resumes after. Always answers with
   * a `stability` event.
   */
  private async stability(cmd: Extract<TrainerCommand, { type: "stability" }>): Promise<void> {
    const answer = (error: string) => this.post({ type: "stability", result: null, error });
    if (!this.labRun) return answer("No run is loaded yet: wait until the controller is ready.");
    if (this.needsSft)
      return answer("This run has no cold start yet: press Train (SFT runs first), then measure.");
    const r = this.labRun;
    const wasRunning = this.running;
    await this.stopLoop();
    const phase = this.currentPhase;
    this.status(phase, "measuring judge stability");
    try {
      const result = await stabilityReport(r, {
        prompts: cmd.prompts ?? 16,
        groupSize: cmd.groupSize ?? 8,
        repeats: cmd.repeats ?? 4,
        seed: cmd.seed ?? r.experiment.seed,
        policy: cmd.policy,
      });
      this.post({ type: "stability", result });
    } catch (e) {
      answer(e instanceof Error ? e.message : String(e));
    } finally {
      if (wasRunning && this.labRun === r) this.startLoop();
      else this.status(phase);
    }
  }

  /**
   * Forks a variant (LabRun.fork) at a step boundary: a running loop finishes
   * its step, the fork is made (its marker and first eval row go out in one
   * batch), and training resumes. A rejected fork is reported; the run goes on.
   */
  private async fork(cmd: Extract<TrainerCommand, { type: "fork" }>): Promise<void> {
    const wasRunning = this.running && this.loop !== null;
    await this.stopLoop();
    try {
      const r = this.requireRun();
      if (this.needsSft)
        throw new Error(
          "fork: there is no cold start yet; press Train (it runs SFT first), then fork",
        );
      const multiSeed = r.experiment.seeds !== undefined;
      const key = await this.unit(() =>
        r.fork(cmd.variant, cmd.weights, cmd.judge, {
          parentEval: (seed) =>
            this.lastEval.get(evalKey(cmd.variant, multiSeed ? seed : undefined)),
        }),
      );
      this.sink.log(
        `step ${r.step}: forked ${cmd.variant} as ${key}; it trains from step ${r.step + 1}`,
      );
      this.lastSnapshot = await r.snapshot();
      this.persist();
    } catch (e) {
      this.post({ type: "error", message: (e as Error).message, fatal: false });
    }
    if (wasRunning) this.startLoop();
  }
}
