/**
 * A run rebuilt on a new device after its device was lost: the run
 * controller (the page, `lab`) and the CLIs' recovering run
 * (./recovering-run.ts) both call `rebuildOnNewDevice`, so a lost device
 * costs the same everywhere: at most the RL step in flight (the run goes on
 * from the snapshot of the step before), or, during cold-start SFT, the SFT
 * steps since its last SFT snapshot (SFT_SNAPSHOT_EVERY). Every variant (or
 * "sft") gets a ⚠ "device-lost" marker at the step trained again.
 */
import type { GpuContext } from "../gpu/context";
import type { Experiment } from "../settings/experiment";
import type { MnistSubset } from "../tasks/mnist-data";
import { LabRun } from "../run/lab-run";
import type { RewardScorer } from "../rl/reward-contract";
import type { SftSnapshot } from "../run/run-sft";
import type { RunSink } from "../run/run-types";
import type { RunSnapshot } from "../run/snapshot";

/**
 * SFT steps between two SFT snapshots (lab choice): a lost device during SFT
 * trains at most this many minus one SFT steps again; each snapshot reads
 * back 3 × totalFloats f32 (a few ms on the small model).
 */
export const SFT_SNAPSHOT_EVERY = 10;

/**
 * The run of `snapshot` on the new device `ctx`, with `experiment` (the
 * lost run's, so live weight changes since the snapshot are kept), and SFT
 * continued from `sft` when SFT was in progress; the markers and the log
 * line of the file comment go to `sink`.
 * @throws Error as LabRun.fromSnapshot and restoreSft.
 */
export function rebuildOnNewDevice(args: {
  ctx: GpuContext;
  snapshot: RunSnapshot;
  experiment: Experiment;
  sft: SftSnapshot | null;
  /** The rebuilt run's sink. */
  sink: RunSink;
  /** Where the markers and the log line go, at once (outside a step's held output, which a lost step drops). */
  notices: Pick<RunSink, "marker" | "log">;
  scorer: RewardScorer;
  mnist: MnistSubset | undefined;
  /** The loss message (DeviceWatch). */
  message: string;
}): LabRun {
  const { ctx, snapshot: snap, sink, message, sft } = args;
  const notices = args.notices;
  const run = LabRun.fromSnapshot(
    ctx,
    { ...snap, experiment: args.experiment },
    sink,
    args.scorer,
    args.mnist,
  );
  const device = ctx.adapter.description;
  if (sft) {
    run.restoreSft(sft);
    notices.marker({
      variant: "sft",
      step: sft.step + 1,
      label: `${message}: SFT went on from its snapshot of step ${sft.step} on a new device`,
      fault: "device-lost",
    });
    notices.log(
      `${message}; new device: ${device}. Restored the SFT snapshot of step ${sft.step}; SFT goes on from step ${sft.step + 1}.`,
    );
    return run;
  }
  const step = snap.step + 1;
  for (const variant of [...run.variantNames, ...run.forks.keys])
    notices.marker({
      variant,
      step,
      label: `${message}: went on from the snapshot of step ${snap.step} on a new device`,
      fault: "device-lost",
    });
  notices.log(
    `${message}; new device: ${device}. Restored the snapshot of step ${snap.step}; step ${step} is trained again.`,
  );
  return run;
}
