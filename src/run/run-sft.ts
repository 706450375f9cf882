/**
 * Cold-start SFT in progress in a lab run (LabRun.beginSft): the SFT
 * policy, its step counter and schedule, its snapshots. One `step` is one
 * SFT step of src/engine/sft.ts (batch and learning rate are functions of the
 * step number and the seed, so a snapshot continues exactly). LabRun runs
 * the steps in its loop and makes the result the cold start.
 */
import type { LabEngine, Policy } from "../engine/lab-engine";
import type { AdamWOptions } from "../kernels/adamw/launch";
import { sftStep } from "../engine/sft";
import type { Experiment } from "../settings/experiment";
import type { TaskGenerator } from "../tasks/generator";
import type { MetricValues } from "../rl/step-types";
import type { RunSink } from "./run-types";

/**
 * Cold-start SFT at a step boundary: enough to continue it exactly, e.g. on
 * a new device after a lost one.
 */
export interface SftSnapshot {
  /** SFT steps done. */
  step: number;
  total: number;
  /** Intermediate eval interval in SFT steps (0: only the final eval). */
  evalEvery: number;
  /** The SFT policy's parameters and AdamW state [totalFloats] each, and t. */
  state: { params: Float32Array; m: Float32Array; v: Float32Array; t: number };
}

/** The SFT of one run (see the file comment). */
export class SftPhase {
  private policy: Policy | null = null;
  private run: { step: number; total: number; evalEvery: number } | null = null;

  constructor(
    private readonly engine: LabEngine,
    private readonly tasks: TaskGenerator,
  ) {}

  /** True while SFT is in progress. */
  get active(): boolean {
    return this.run !== null;
  }

  /** Steps done and total of SFT in progress (null when none is). */
  get progress(): { step: number; total: number; evalEvery: number } | null {
    return this.run ? { ...this.run } : null;
  }

  /**
   * Starts SFT at step 0 from `start` with AdamW at `adam` (the SFT policy
   * is made on first use and kept for later SFTs).
   */
  begin(start: Float32Array, adam: AdamWOptions, total: number, evalEvery: number): void {
    this.policy ??= this.engine.createPolicy("sft", adam, start);
    this.engine.resetPolicy(this.policy, start);
    this.run = { step: 0, total, evalEvery };
  }

  /** Ends SFT in progress (nothing is committed). */
  end(): void {
    this.run = null;
  }

  /** The SFT policy (null before the first begin). */
  get current(): Policy | null {
    return this.policy;
  }

  /** The SFT policy's parameters now [totalFloats] (intermediate checkpoints). @throws Error when no SFT is in progress. */
  async params(): Promise<Float32Array> {
    if (!this.run || !this.policy) throw new Error("SFT params: no SFT is in progress");
    return this.engine.readParams(this.policy.params);
  }

  /** The SFT state now (3 read-backs of [totalFloats] f32). @throws Error when no SFT is in progress. */
  async snapshot(): Promise<SftSnapshot> {
    if (!this.run || !this.policy) throw new Error("sftSnapshot: no SFT is in progress");
    const state = await this.engine.readPolicyState(this.policy);
    return { ...this.run, state };
  }

  /**
   * Continues SFT from `snap` (begin with the same start first).
   * @throws Error when no SFT is in progress or the state does not fit the model.
   */
  restore(snap: SftSnapshot): void {
    if (!this.run || !this.policy) throw new Error("restoreSft: no SFT is in progress");
    this.engine.writePolicyState(this.policy, snap.state);
    this.run = { step: snap.step, total: snap.total, evalEvery: snap.evalEvery };
  }

  /**
   * One SFT step of `exp`'s batch size, learning rate and seed.
   * @returns the step's number (1-based) and its train values (loss, grad_norm, step_time_ms).
   * @throws Error when no SFT is in progress or it is at its end.
   */
  async step(exp: Experiment): Promise<{ step: number; values: MetricValues }> {
    const s = this.run;
    if (!s || !this.policy || s.step >= s.total)
      throw new Error("SFT step: no SFT step is left to train");
    const t0 = performance.now();
    const st = await sftStep(this.engine, this.policy, this.tasks, {
      step: s.step,
      total: s.total,
      batch: exp.sftBatch,
      lr: exp.sftLr,
      seed: exp.seed,
    });
    s.step++;
    return {
      step: s.step,
      values: { loss: st.loss, grad_norm: st.gradNorm, step_time_ms: performance.now() - t0 },
    };
  }

  /**
   * One step of the run loop's SFT phase (LabRun.runSteps): `step` when one
   * is left, its train row (variant "sft") to `sink`, and an eval of the SFT
   * policy (`rows.evalPolicy`) every `evalEvery` steps before the last.
   * @returns the SFT step done, and `last` when SFT is at its end (the
   *   caller then commits `policy` as the cold start).
   * @throws Error when no SFT is in progress.
   */
  async stepWithRows(
    exp: Experiment,
    sink: RunSink,
    rows: { elapsed: () => number; evalPolicy: (policy: Policy, step: number) => Promise<unknown> },
  ): Promise<{ step: number; total: number; policy: Policy; last: boolean }> {
    if (!this.run || !this.policy) throw new Error("SFT step: no SFT is in progress");
    const { step, total, evalEvery } = this.run;
    const policy = this.policy;
    let done = step;
    if (step < total) {
      const st = await this.step(exp);
      done = st.step;
      sink.metrics([
        { variant: "sft", step: done, time: rows.elapsed(), kind: "train", values: st.values },
      ]);
      if (evalEvery > 0 && done % evalEvery === 0 && done < total)
        await rows.evalPolicy(policy, done);
    }
    return { step: done, total, policy, last: done >= total };
  }

  /** Frees the SFT policy's GPU buffers. */
  dispose(): void {
    if (this.policy) this.engine.destroyPolicy(this.policy);
    this.policy = null;
    this.run = null;
  }
}
