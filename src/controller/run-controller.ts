/**
 * RunController: the controller of a lab run. It owns the device, the reward
 * scorer, the LabRun of the current experiment and the state machine around
 * them (init, cold-start SFT, the RL loop, pause, single steps, reset,
 * re-seed, live weights, forks, the judge-stability study), behind typed
 * commands (ControllerCommand) answered by typed events (ControllerEvent).
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
 * Faults:
 * - After every RL step (and after init, SFT, reset, re-seed and a fork) the
 *   controller keeps a snapshot of the run in memory (src/run/snapshot.ts: every
 *   variant's and fork's parameters and AdamW m, v, t). It posts it as a
 *   `snapshot` event (encoded) when training stops and at most every
 *   PERSIST_INTERVAL_MS while it runs; the page stores it in IndexedDB, so a
 *   saved run resumes (`init` with `resume`).
 * - A lost GPU device (any loss the controller did not cause by `dispose`):
 *   the run goes on from the snapshot on a new device from the host, live
 *   weight changes kept (src/controller/run-training.ts: at most the RL step in
 *   flight is lost, whose rows never go out; during SFT, the SFT steps since
 *   its last SFT snapshot); every variant gets a "device-lost" marker.
 * - A failed step is tried again; one that fails the same way twice pauses
 *   the run with the reason, and so does a policy whose optimizer update is
 *   skipped (a NaN/Inf gradient) at two steps in a row (src/controller/step-failures.ts).
 */
import type { GpuContext } from "../gpu/context";
import type { Checkpoint } from "../model/checkpoint";
import { parseExperiment } from "../settings/experiment";
import { openResumed, openRun, readMnist } from "./controller-open";
import { HeldEvents } from "./held-events";
import { RunTraining } from "./run-training";
import { TrainerFault } from "./step-failures";
import type { MetricRow, RunSink } from "../run/run-types";
import type { LabRun } from "../run/lab-run";
import { decodeSnapshot, encodeSnapshot, type RunSnapshot } from "../run/snapshot";
import { stabilityReport } from "../experiments/stability-study";
import { answerTokenWeights } from "./token-weights";
import type {
  RunControllerHost,
  ControllerCommand,
  ControllerEvent,
  TrainerPhase,
} from "./controller-types";

export type {
  RunControllerHost,
  ControllerCommand,
  ControllerEvent,
  TrainerPhase,
} from "./controller-types";

const evalKey = (variant: string, seed: number | undefined) => `${variant}|${seed ?? ""}`;

/** Least time between two `snapshot` events while training runs (lab choice). */
const PERSIST_INTERVAL_MS = 30_000;

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The lab's run controller (see the file comment). */
export class RunController {
  private readonly training: RunTraining;
  private currentPhase: TrainerPhase = "loading";
  /** True while the RL loop should go on; cleared by pause and by every command that reshapes the run. */
  private running = false;
  private loop: Promise<void> | null = null;
  /** True while SFT runs; cleared by pause and by every command that reshapes the run. */
  private sftRunning = false;
  /** The run has no cold start yet: the next Train or Step runs SFT from scratch first. */
  private needsSft = false;
  private queue: Promise<void> = Promise.resolve();
  private readonly events = new HeldEvents((ev) => this.post(ev));
  /** The snapshot last posted as an event, and when. */
  private posted: RunSnapshot | null = null;
  private postedAt = 0;
  /** The latest eval row per variant (and seed): a fork's first row copies its parent's. */
  private readonly lastEval = new Map<string, MetricRow>();
  /** SFT's intermediate eval interval of the current run (init `sftEvalEvery`). */
  private sftEvalEvery: number | undefined;
  /** The checkpoint the current run started from (null: none, or a resumed run). */
  private coldStart: Checkpoint | null = null;
  private readonly sink: RunSink = {
    metrics: (rows) => {
      for (const r of rows) if (r.kind === "eval") this.lastEval.set(evalKey(r.variant, r.seed), r);
      this.events.emit({ type: "metrics", rows });
    },
    samples: (groups) => this.events.emit({ type: "samples", groups }),
    marker: (marker) => this.events.emit({ type: "marker", marker }),
    log: (message) => this.events.emit({ type: "log", message }),
  };

  /**
   * @param host device, scorer, files and the after-work hook.
   * @param listener gets every event, in order.
   */
  constructor(
    private readonly host: RunControllerHost,
    private readonly listener: (ev: ControllerEvent) => void,
  ) {
    this.training = new RunTraining({
      createContext: () => host.createContext(),
      sink: this.sink,
      notices: {
        marker: (marker) => this.post({ type: "marker", marker }),
        log: (message) => this.post({ type: "log", message }),
      },
      output: this.events,
      afterWork: host.afterWork ? () => host.afterWork!() : undefined,
      notify: (message) => this.post({ type: "log", message }),
      onLost: (message) => {
        this.post({ type: "log", message });
        // A step in flight fails and recovers itself; when idle, recover now, behind the queued commands.
        this.queue = this.queue
          .then(() => this.training.recoverIfLost())
          .catch((e) => this.report(e));
      },
    });
  }

  /** The current phase. */
  get phase(): TrainerPhase {
    return this.currentPhase;
  }

  /** RL steps done by the current run (0 before init). */
  get step(): number {
    return this.training.run?.step ?? 0;
  }

  /** The current run (null before init, or after a failed one). */
  get run(): LabRun | null {
    return this.training.run;
  }

  /** The cold-start checkpoint the current run was built from (null: SFT from scratch, or a resumed run). */
  get coldStartCheckpoint(): Checkpoint | null {
    return this.coldStart;
  }

  /** The GPU context (null before the first init). */
  get context(): GpuContext | null {
    return this.training.ctx;
  }

  /**
   * Queues a command behind the ones before it; `pause` also stops a running
   * loop or SFT at once. Never rejects: a failure is an error event.
   * @returns a promise that settles when the command is done (for `start`:
   *   when the loop is running).
   */
  send(cmd: ControllerCommand): Promise<void> {
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
    return this.training.snapshot;
  }

  /** Stops training and frees the device (the controller must not be used afterwards). */
  async dispose(): Promise<void> {
    await this.send({ type: "pause" });
    this.training.devices.disposing = true;
    this.training.ctx?.destroy();
    this.training.ctx = null;
    this.training.scorer?.dispose?.();
    this.training.scorer = null;
  }

  private post(ev: ControllerEvent): void {
    this.listener(ev);
  }

  /** Runs one unit of GPU work with its output held back, then calls the host's after-work hook. */
  private async unit<T>(work: () => Promise<T>): Promise<T> {
    this.events.hold();
    try {
      return await work();
    } finally {
      this.events.release();
      await this.host.afterWork?.();
    }
  }

  private status(next: TrainerPhase, message?: string): void {
    this.currentPhase = next;
    this.post({ type: "status", phase: next, step: this.step, message });
  }

  private requireRun(): LabRun {
    if (!this.training.run)
      throw new Error("the controller has no experiment yet (send init first)");
    return this.training.run;
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
    this.status(this.training.run && !fatal ? "paused" : "error", message);
  }

  /** Posts the run at its last step boundary as a `stepState` event (the page keeps it against a dying worker). */
  private postState(): void {
    const snap = this.training.snapshot;
    // A run without a cold start yet has nothing a new worker could go on from (SFT starts over).
    if (snap && !this.needsSft) this.post({ type: "stepState", snapshot: snap });
  }

  /** Posts the last snapshot as a `snapshot` event, unless it was posted already. */
  private persist(): void {
    const snap = this.training.snapshot;
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
   * Up to `n` RL steps (RunTraining.trainSteps: recovery, the failure rule),
   * each step's status event in its output; a snapshot event at most every
   * PERSIST_INTERVAL_MS; queued commands get in between steps.
   * @throws TrainerFault when the run must pause (or end).
   */
  private trainSteps(n: number, shouldStop: () => boolean): Promise<void> {
    return this.training.trainSteps(n, shouldStop, {
      inStep: (r) => this.events.emit({ type: "status", phase: "rl", step: r.step }),
      afterStep: async () => {
        this.postState();
        if (performance.now() - this.postedAt >= PERSIST_INTERVAL_MS) this.persist();
        await this.evalStartIfPending();
        await new Promise((res) => setTimeout(res, 0));
      },
    });
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

  private async handle(cmd: ControllerCommand): Promise<void> {
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
        this.training.setRun(r, await r.snapshot());
        this.postState();
        return this.status("idle", "reset to the cold-start weights");
      }
      case "reseed": {
        await this.stopLoop();
        const r = this.requireRun();
        r.clearForks();
        r.reseed(cmd.seed);
        this.training.setRun(r, await r.snapshot());
        this.postState();
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
      case "tokenWeights": {
        // A GPU forward of its own, so at a step boundary (as the stability study).
        const wasRunning = this.running && this.loop !== null;
        await this.stopLoop();
        await answerTokenWeights(this.training.run, cmd, (e) => this.post(e));
        if (wasRunning) this.startLoop();
        return;
      }
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
  private async init(cmd: Extract<ControllerCommand, { type: "init" }>): Promise<void> {
    await this.stopLoop();
    // A failed init must not leave the previous experiment to be trained by a queued Start.
    this.training.setRun(null, null);
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
    const ctx = await this.training.acquire();
    this.training.scorer ??= this.host.createScorer();
    this.training.mnist = await readMnist(this.host, experiment);
    if (resume) return this.resume(ctx, resume, cmd.evalColdStart ?? false);
    const opened = await openRun({
      host: this.host,
      ctx,
      scorer: this.training.scorer,
      sink: this.sink,
      cmd,
      experiment,
      mnist: this.training.mnist,
    });
    for (const message of opened.notes) this.post({ type: "log", message });
    const run = opened.run;
    const ckpt = opened.coldStart;
    this.training.setRun(run, null);
    this.coldStart = ckpt?.checkpoint ?? null;
    this.post(opened.ready);
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
    this.training.snapshot = await run.snapshot();
    this.postState();
    this.status("idle");
  }

  /**
   * The end of an init with `resume`: the run rebuilt from the snapshot,
   * paused at its step (after the cold start's eval when `evalColdStart`).
   */
  private async resume(ctx: GpuContext, snap: RunSnapshot, evalColdStart: boolean): Promise<void> {
    const t = this.training;
    const { run, ready } = openResumed(ctx, snap, this.sink, t.scorer!, t.mnist);
    t.setRun(run, snap);
    this.postState();
    this.posted = snap;
    this.postedAt = performance.now();
    this.post(ready);
    for (const variant of [...run.variantNames, ...run.forks.keys])
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
      r.beginSft({
        fromScratch,
        evalEvery: this.sftEvalEvery ?? Math.max(10, Math.round(r.experiment.sftSteps / 10)),
      });
      await this.training.trainSft(() => !this.sftRunning);
      // A lost device rebuilds the run: take the one that trained.
      const now = this.requireRun();
      if (now.sft.active) {
        // Stopped before its end: nothing is committed.
        now.abandonSft();
        return;
      }
      this.needsSft = false;
      await this.unit(() => now.evalStart());
      this.training.setRun(now, await now.snapshot());
      this.postState();
    } finally {
      this.sftRunning = false;
      this.events.release();
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
    await this.trainSteps(1, () => false);
    this.persist();
    const now = this.requireRun();
    return this.status(now.step >= now.experiment.algorithm.steps ? "done" : "paused");
  }

  /** Trains until paused or the step budget is spent; yields between steps so commands get through. */
  private async trainLoop(): Promise<void> {
    this.requireRun();
    if (this.needsSft) await this.sftFromScratch();
    if (this.needsSft) {
      // SFT was stopped before it finished.
      this.running = false;
      return this.status("paused", "SFT stopped before the end; Train runs it again");
    }
    if (this.running) this.status("rl");
    await this.trainSteps(Number.POSITIVE_INFINITY, () => !this.running);
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
  private async stability(cmd: Extract<ControllerCommand, { type: "stability" }>): Promise<void> {
    const answer = (error: string) => this.post({ type: "stability", result: null, error });
    if (!this.training.run)
      return answer("No run is loaded yet: wait until the controller is ready.");
    if (this.needsSft)
      return answer("This run has no cold start yet: press Train (SFT runs first), then measure.");
    const r = this.training.run;
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
      if (wasRunning && this.training.run === r) this.startLoop();
      else this.status(phase);
    }
  }

  /**
   * Forks a variant (LabRun.fork) at a step boundary: a running loop finishes
   * its step, the fork is made (its marker and first eval row go out in one
   * batch), and training resumes. A rejected fork is reported; the run goes on.
   */
  private async fork(cmd: Extract<ControllerCommand, { type: "fork" }>): Promise<void> {
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
      this.training.snapshot = await r.snapshot();
      this.postState();
      this.persist();
    } catch (e) {
      this.post({ type: "error", message: (e as Error).message, fatal: false });
    }
    if (wasRunning) this.startLoop();
  }
}
