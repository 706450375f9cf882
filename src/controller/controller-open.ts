/**
 * How the run controller opens a run at `init`: the site's MNIST subset
 * (digits tasks), the cold start (src/run/cold-start.ts: the shipped or
 * given checkpoint, or none: SFT from scratch), the LabRun, and the `ready`
 * event that says what was built; or, with a saved snapshot, the run
 * rebuilt from it.
 */
import type { GpuContext } from "../gpu/context";
import { loadCheckpoint, type Checkpoint } from "../model/checkpoint";
import { checkpointPath } from "../settings/checkpoints";
import type { Experiment } from "../settings/experiment";
import { parseMnistSubset, type MnistSubset } from "../tasks/mnist-data";
import { resolveColdStart } from "../run/cold-start";
import type { RunControllerHost, ControllerCommand, ControllerEvent } from "./controller-types";
import { LabRun } from "../run/lab-run";
import type { RewardScorer } from "../rl/reward-contract";
import type { RunSink } from "../run/run-types";
import type { RunSnapshot } from "../run/snapshot";

/** Path of the MNIST subset on the site (digits tasks). */
const MNIST_ASSET = "data/mnist-subset.bin";

/**
 * The MNIST subset an experiment needs (digits tasks), read from the site.
 * @throws Error when the file is missing or not an MNIST subset.
 */
export async function readMnist(
  host: RunControllerHost,
  exp: Experiment,
): Promise<MnistSubset | undefined> {
  if (exp.task.family !== "digits") return undefined;
  const bytes = await host.readAsset(MNIST_ASSET);
  if (!bytes) throw new Error(`the MNIST subset (${MNIST_ASSET}) is missing from the site`);
  return parseMnistSubset(bytes);
}

/** A run opened for an init without `resume`. */
interface OpenedRun {
  run: LabRun;
  /** The cold start and where it was read (null: none; the run starts with SFT from scratch). */
  coldStart: { checkpoint: Checkpoint; source: string } | null;
  ready: Extract<ControllerEvent, { type: "ready" }>;
  /** Log lines about the cold start (checkpoint warnings, size notes). */
  notes: string[];
}

/**
 * Opens the run of an init command on `ctx` (see the file comment).
 * @throws Error from the cold start (a checkpoint that does not fit) or the LabRun.
 */
export async function openRun(args: {
  host: RunControllerHost;
  ctx: GpuContext;
  scorer: RewardScorer;
  sink: RunSink;
  cmd: Extract<ControllerCommand, { type: "init" }>;
  experiment: Experiment;
  mnist: MnistSubset | undefined;
}): Promise<OpenedRun> {
  const { host, ctx, cmd, mnist } = args;
  const cold = await resolveColdStart({
    experiment: args.experiment,
    adapter: ctx.adapter,
    keepModelSize: cmd.keepModelSize,
    mnist,
    readCheckpoint: async (exp) => {
      if (cmd.fromScratch) return null;
      const source = cmd.checkpoint ?? checkpointPath(exp);
      const bytes = await host.readAsset(source);
      return bytes ? { checkpoint: loadCheckpoint(bytes), source } : null;
    },
  });
  const ckpt = cold.checkpoint;
  const notes = [
    ...(ckpt?.checkpoint.warning ? [`cold start: ${ckpt.checkpoint.warning}`] : []),
    ...cold.notes,
  ];
  const run = new LabRun(
    ctx,
    cold.experiment,
    args.sink,
    args.scorer,
    mnist,
    ckpt ? { config: ckpt.checkpoint.config, params: ckpt.checkpoint.params } : null,
  );
  const note =
    [
      cold.sizeNote,
      ckpt
        ? undefined
        : "No shipped cold-start checkpoint for this task and size: Train runs SFT from scratch first.",
    ]
      .filter(Boolean)
      .join(" ") || undefined;
  return {
    run,
    coldStart: ckpt,
    notes,
    ready: {
      type: "ready",
      adapter: ctx.adapter.description,
      isFallback: ctx.adapter.isFallback,
      modelSize: cold.experiment.modelSize,
      params: run.paramCount,
      note,
    },
  };
}

/**
 * The run of an init with `resume`, rebuilt from the snapshot on `ctx`, and
 * its `ready` event.
 * @throws Error as LabRun.fromSnapshot.
 */
export function openResumed(
  ctx: GpuContext,
  snap: RunSnapshot,
  sink: RunSink,
  scorer: RewardScorer,
  mnist: MnistSubset | undefined,
): { run: LabRun; ready: Extract<ControllerEvent, { type: "ready" }> } {
  const run = LabRun.fromSnapshot(ctx, snap, sink, scorer, mnist);
  return {
    run,
    ready: {
      type: "ready",
      adapter: ctx.adapter.description,
      isFallback: ctx.adapter.isFallback,
      modelSize: snap.experiment.modelSize,
      params: run.paramCount,
      note: `Resumed at step ${snap.step} from a saved snapshot.`,
    },
  };
}
