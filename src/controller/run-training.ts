/**
 * Training that survives a lost device: the run loop (LabRun.runSteps) with
 * a snapshot at every step boundary, a new device when the old one is lost,
 * and the run rebuilt there (./device-recovery.ts). The run controller (the
 * page, `lab`) and the CLIs that build a run themselves (`claims`,
 * `train:sft`) train through it, so they lose the same at most:
 * - RL: the step in flight (its output is held and dropped; the step is
 *   trained again from the snapshot of the step before);
 * - SFT: the SFT steps since its last SFT snapshot (every
 *   SFT_SNAPSHOT_EVERY steps; the steps trained again give the same
 *   parameters, their output is not emitted twice).
 * Ordinary failures of an RL step follow ./step-failures.ts.
 */
import type { GpuContext } from "../gpu/context";
import type { MnistSubset } from "../tasks/mnist-data";
import { rebuildOnNewDevice, SFT_SNAPSHOT_EVERY } from "./device-recovery";
import { DeviceWatch } from "./device-watch";
import type { LabRun } from "../run/lab-run";
import type { RewardScorer } from "../rl/reward-contract";
import type { SftSnapshot } from "../run/run-sft";
import type { RunSink } from "../run/run-types";
import type { RunSnapshot } from "../run/snapshot";
import { StepFailures, TrainerFault } from "./step-failures";

/** How a unit of work's output is held back (the controller's events, a CLI's rows). */
export interface StepOutput {
  /** Holds everything emitted from now on. */
  hold(): void;
  /** Emits what is held. */
  release(): void;
  /** Drops the held rows, groups and fault markers (a step that is trained again). */
  dropStepOutput(): void;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** One run's training with device recovery (see the file comment). */
export class RunTraining {
  readonly devices: DeviceWatch;
  /** The GPU context the run is on (null before `acquire`). */
  ctx: GpuContext | null = null;
  /** The run (null before `setRun`); replaced after a lost device. */
  run: LabRun | null = null;
  /** The run at its last step boundary (see the file comment). */
  snapshot: RunSnapshot | null = null;
  /** SFT in progress at its last SFT snapshot (null when none is). */
  private sftSnapshot: SftSnapshot | null = null;
  /** The highest SFT step whose output went out (a replay after a lost device emits none up to it). */
  private sftReleasedTo = 0;
  readonly failures = new StepFailures();
  private recovering: Promise<void> | null = null;

  /**
   * @param opts.createContext a new GPU context (at `acquire`, and after a lost device).
   * @param opts.sink the sink a rebuilt run writes to (the run's own).
   * @param opts.notices where the recovery's markers and log line go at once, outside held output.
   * @param opts.output how a step's output is held, released and dropped.
   * @param opts.afterWork awaited after each unit of work's output went out (the worker lets the page draw).
   * @param opts.notify a line for the user now (a retried step), outside any held output.
   * @param opts.onLost called when the current context's device is lost outside a step.
   */
  constructor(
    private readonly opts: {
      createContext: () => Promise<GpuContext>;
      sink: RunSink;
      notices: Pick<RunSink, "marker" | "log">;
      output: StepOutput;
      afterWork?: () => Promise<void>;
      notify?: (message: string) => void;
      onLost?: (message: string) => void;
    },
  ) {
    this.devices = new DeviceWatch(opts.createContext, (ctx, message) => {
      if (ctx === this.ctx) opts.onLost?.(message);
    });
  }

  /** The reward scorer and MNIST subset of the run (kept to rebuild it on a new device). */
  scorer: RewardScorer | null = null;
  mnist: MnistSubset | undefined;

  /** The current context, or a new one when there is none or its device is lost. */
  async acquire(): Promise<GpuContext> {
    if (this.devices.lossOf(this.ctx) !== undefined) this.ctx = null;
    this.ctx ??= await this.devices.acquire();
    return this.ctx;
  }

  /** The run to train from now on, with its snapshot at this step boundary (null: none yet); no failure is remembered. */
  setRun(run: LabRun | null, snapshot: RunSnapshot | null): void {
    this.run = run;
    this.snapshot = snapshot;
    this.sftSnapshot = null;
    this.failures.clear();
  }

  private requireRun(): LabRun {
    if (!this.run) throw new Error("no run to train (set one first)");
    return this.run;
  }

  /**
   * Up to `n` RL steps of every variant and fork until `shouldStop` or the
   * step budget, with the recovery of the file comment.
   * @param hooks.inStep called at the end of each step, its output still held (the controller's status event).
   * @param hooks.afterStep awaited after each step's output went out.
   * @param hooks.keepSkipping go on when a policy's update was skipped at two
   *   steps in a row (a sweep records it in the metrics) instead of pausing.
   * @throws TrainerFault naming the step and the reason when training must pause (or end).
   */
  async trainSteps(
    n: number,
    shouldStop: () => boolean,
    hooks: {
      inStep?: (r: LabRun) => void;
      afterStep?: (r: LabRun) => Promise<void>;
      keepSkipping?: boolean;
    } = {},
  ): Promise<void> {
    const out = this.opts.output;
    let left = n;
    let attempt = 1;
    while (left > 0) {
      await this.recoverIfLost();
      const r = this.requireRun();
      if (r.phaseDone || shouldStop()) return;
      const ctx = this.ctx;
      let stepping = r.step + 1;
      try {
        await r.runSteps(left, {
          shouldStop,
          beforeStep: () => {
            stepping = r.step + 1;
            out.hold();
          },
          afterStep: async () => {
            this.snapshot = await r.snapshot();
            hooks.inStep?.(r);
            out.release();
            await this.opts.afterWork?.();
            left--;
            attempt = 1;
            this.failures.clear();
            if (!hooks.keepSkipping) this.failures.pauseIfStuck(r);
            await hooks.afterStep?.(r);
          },
        });
        return;
      } catch (e) {
        if (e instanceof TrainerFault) throw e;
        await this.stepFailed(e, ctx, stepping, attempt++);
      }
    }
  }

  /**
   * A failed RL step: its output dropped when the device was lost (the
   * recovery makes it again), the held rest released, then StepFailures' rule.
   * @throws TrainerFault when the step must not be tried again.
   */
  private async stepFailed(
    e: unknown,
    ctx: GpuContext | null,
    step: number,
    attempt: number,
  ): Promise<void> {
    // The recovery queued by the device's `lost` handler may have replaced this.ctx already.
    const lostDevice = await this.devices.isLost(ctx);
    if (lostDevice) this.opts.output.dropStepOutput();
    this.opts.output.release();
    await this.opts.afterWork?.();
    const message = lostDevice ? (this.devices.lossOf(ctx) ?? messageOf(e)) : messageOf(e);
    if (lostDevice) await this.recoverIfLost();
    this.failures.record(step, lostDevice ? "device-lost" : message, message, attempt);
    this.opts.notify?.(`step ${step} failed (${message}); trying it again`);
  }

  /**
   * Runs SFT in progress (LabRun.beginSft) to its end or until `shouldStop`
   * (then it stays in progress: the caller abandons or continues it), each
   * SFT step's output released after it, with an SFT snapshot every
   * SFT_SNAPSHOT_EVERY steps; a lost device continues from the last one.
   * @throws the step's error when it is not a lost device; TrainerFault when no new device can be had.
   */
  async trainSft(shouldStop: () => boolean): Promise<void> {
    const out = this.opts.output;
    const first = this.requireRun();
    if (first.sft.active) {
      this.sftSnapshot = await first.sft.snapshot();
      this.sftReleasedTo = this.sftSnapshot.step;
    }
    for (;;) {
      await this.recoverIfLost();
      const r = this.requireRun();
      if (!r.sft.active || shouldStop()) return;
      const ctx = this.ctx;
      out.hold();
      try {
        await r.runSteps(Number.POSITIVE_INFINITY, {
          shouldStop,
          afterStep: async ({ step }) => {
            if (r.sft.active && step % SFT_SNAPSHOT_EVERY === 0)
              this.sftSnapshot = await r.sft.snapshot();
            // A step trained again after a lost device: its output went out the first time.
            if (step <= this.sftReleasedTo && r.sft.active) out.dropStepOutput();
            else this.sftReleasedTo = step;
            out.release();
            await this.opts.afterWork?.();
            out.hold();
          },
        });
        out.release();
        if (!r.sft.active) this.sftSnapshot = null;
        return;
      } catch (e) {
        const lost = await this.devices.isLost(ctx);
        if (lost) out.dropStepOutput();
        out.release();
        if (!lost) throw e;
      }
    }
  }

  /**
   * Rebuilds the run on a new device from its snapshots when the current
   * device is lost (once, however many callers wait); a no-op otherwise.
   * @throws TrainerFault (fatal) when no new device can be had.
   */
  recoverIfLost(): Promise<void> {
    const message = this.devices.lossOf(this.ctx);
    if (message === undefined) return this.recovering ?? Promise.resolve();
    this.recovering ??= this.recoverDevice(message).finally(() => {
      this.recovering = null;
    });
    return this.recovering;
  }

  private async recoverDevice(message: string): Promise<void> {
    const old = this.run;
    const snap = this.snapshot;
    if (!old || !snap) {
      // No run to keep: the next run gets a new device.
      this.ctx = null;
      return;
    }
    let ctx: GpuContext;
    try {
      ctx = await this.devices.acquire();
    } catch (e) {
      this.ctx = null;
      throw new TrainerFault(
        `${message}, and no new GPU device could be had (${messageOf(e)}). The snapshot of step ${snap.step} is kept: save the run and resume it after a reload.`,
        true,
      );
    }
    this.ctx = ctx;
    if (!this.scorer) throw new Error("RunTraining: no scorer to rebuild the run with");
    // The live weight changes since the snapshot are kept (the old run's experiment is CPU state).
    const sft = old.sft.active ? this.sftSnapshot : null;
    this.run = rebuildOnNewDevice({
      ctx,
      snapshot: snap,
      experiment: old.experiment,
      sft,
      sink: this.opts.sink,
      notices: this.opts.notices,
      scorer: this.scorer,
      mnist: this.mnist,
      message,
    });
    this.snapshot = await this.run.snapshot();
  }
}
