/**
 * The run controller's rule for failed RL steps (src/controller/run-controller.ts):
 * a failed step is tried again at once; a step that fails the same way twice
 * (same message, or a lost device both times), or MAX_STEP_ATTEMPTS times in
 * all, pauses the run with the reason. Pressing Train again tries it once
 * more and pauses again if it fails the same way: it never loops. A policy
 * whose update AdamW skipped at two steps in a row pauses the run too.
 */
import type { LabRun } from "../run/lab-run";

/** Tries of one RL step before the run pauses (lab choice: the first and two retries). */
const MAX_STEP_ATTEMPTS = 3;

/** A failure that stops training with a reason: non-fatal pauses the run, fatal ends it. */
export class TrainerFault extends Error {
  constructor(
    message: string,
    readonly fatal: boolean,
  ) {
    super(message);
  }
}

/** The last failed step and the pause rule (see the file comment). */
export class StepFailures {
  private last: { step: number; signature: string } | null = null;

  /** Forgets the last failure (a step went through, or the run was reshaped). */
  clear(): void {
    this.last = null;
  }

  /**
   * Counts a failure of `step` (its `attempt`-th try in a row).
   * @param signature how it failed: "device-lost", or the message.
   * @throws TrainerFault when the step must not be tried again.
   */
  record(step: number, signature: string, message: string, attempt: number): void {
    const prev = this.last;
    this.last = { step, signature };
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
  }

  /** @throws TrainerFault when a policy's update was skipped at each of the last two steps. */
  pauseIfStuck(r: LabRun): void {
    const stuck = r.repeatedSkips(2);
    if (stuck.length > 0)
      throw new TrainerFault(
        `${stuck.map((x) => `${x.policy} (${x.steps} steps)`).join(", ")}: the optimizer skipped the update at every one of the last steps (a NaN/Inf gradient each time), the same failure twice; the run is paused at step ${r.step} instead of going on. Lower the learning rate, change the variant's settings or Reset.`,
        false,
      );
  }
}
