/**
 * Cold-start resolution: the model a run trains and the parameters it starts
 * from, decided once for the page's trainer (src/controller/run-controller.ts) and the CLI
 * (src/cli/lab.ts), so the two cannot disagree:
 *   1 model size: a CPU adapter (WebGPU on the CPU, e.g. SwiftShader) gets
 *     the small model (d = 64, 2 layers) unless the caller keeps the size
 *     (the CLI's --full-size); lab choice, a default-size step there takes
 *     seconds;
 *   2 checkpoint: whatever the caller's reader returns for the resolved
 *     experiment (the shipped file for its task and size, a given file, or
 *     none: SFT from scratch);
 *   3 fit: the task the checkpoint was trained on (family, digits, multiple
 *     choice or open-ended, when its metadata says) must be the experiment's,
 *     and its model config must equal the one the experiment's task needs
 *     (LabRun builds the same one). Answer hints that differ are only a note:
 *     a teacher may want to see what a cold start does with (or without) the
 *     shortcut.
 */
import type { Checkpoint } from "../model/checkpoint";
import type { ModelConfig } from "../model/config";
import type { MnistSubset } from "../tasks/mnist-data";
import { parseExperiment, type Experiment } from "../settings/experiment";
import { configMismatch, runModel } from "../engine/lab-model";
import { taskGeneratorFor } from "./run-tasks";

/** What cold-start resolution needs to know about the adapter (src/gpu/device.ts). */
interface AdapterInfo {
  description: string;
  /** True for a fallback (CPU) adapter. */
  isFallback: boolean;
}

/** A checkpoint and where it came from (a path or URL, for messages). */
export interface SourcedCheckpoint {
  checkpoint: Checkpoint;
  source: string;
}

/** Inputs of `resolveColdStart`. */
export interface ColdStartRequest {
  experiment: Experiment;
  adapter: AdapterInfo;
  /** Keep a default-size model on a CPU adapter (CLI --full-size). Default false. */
  keepModelSize?: boolean;
  /** The MNIST subset (digits tasks only): the model config depends on the task's images. */
  mnist?: MnistSubset;
  /**
   * Reads the cold start for the resolved experiment (model size already
   * picked), or null for none (the run then starts with SFT from scratch).
   */
  readCheckpoint(
    experiment: Experiment,
  ): Promise<SourcedCheckpoint | null> | SourcedCheckpoint | null;
}

/** The resolved start of a run. */
export interface ColdStart {
  /** The experiment as it runs (model size picked for the adapter). */
  experiment: Experiment;
  /** Model config of the run (what LabRun builds for `experiment`). */
  config: ModelConfig;
  /** The checkpoint, checked to fit; null: SFT from scratch. */
  checkpoint: SourcedCheckpoint | null;
  /** Set when the model size was changed for a CPU adapter: says so in words. */
  sizeNote?: string;
  /** Notes on a fit that is allowed but worth a word (answer hints differ). */
  notes: string[];
}

/** The task fields of a checkpoint's metadata that must equal the experiment's (when present). */
const TASK_FORM_FIELDS = ["family", "numDigits", "multipleChoice"] as const;

function describeForm(field: (typeof TASK_FORM_FIELDS)[number], value: unknown): string {
  if (field === "multipleChoice") return value ? "multiple-choice" : "open-ended";
  if (field === "numDigits") return `${String(value)}-digit`;
  return `'${String(value)}'`;
}

/**
 * Resolves a run's cold start (the three rules above).
 * @returns the experiment as it runs, its model config, the checkpoint (or
 *   null) and the notes to show.
 * @throws Error when the checkpoint was trained on another task form
 *   ("… was trained on the multiple-choice task; this experiment runs the
 *   open-ended one") or its model config differs from the run's (both
 *   configs named), or whatever `readCheckpoint` throws (a damaged file).
 */
export async function resolveColdStart(req: ColdStartRequest): Promise<ColdStart> {
  let experiment = parseExperiment(req.experiment);
  let sizeNote: string | undefined;
  if (req.adapter.isFallback && experiment.modelSize === "default" && !req.keepModelSize) {
    experiment = parseExperiment({ ...experiment, modelSize: "small" });
    sizeNote = `This adapter (${req.adapter.description}) runs WebGPU on the CPU, so the lab picked the small model (d = 64, 2 layers).`;
  }
  const found = await req.readCheckpoint(experiment);
  const { config } = runModel(
    experiment.modelSize,
    taskGeneratorFor(experiment, req.mnist),
    experiment.evalSize,
  );
  const notes: string[] = [];
  if (found) {
    const trained = (found.checkpoint.meta?.task ?? {}) as Record<string, unknown>;
    const task = experiment.task as Record<string, unknown>;
    for (const field of TASK_FORM_FIELDS) {
      if (trained[field] === undefined || trained[field] === task[field]) continue;
      throw new Error(
        `the checkpoint ${found.source} was trained on the ${describeForm(field, trained[field])} task; this experiment runs the ${describeForm(field, task[field])} one`,
      );
    }
    const mismatch = configMismatch(found.checkpoint.config, config);
    if (mismatch) throw new Error(`${found.source}: ${mismatch}`);
    const hintRate = Number(trained.hintRate ?? 0);
    if (hintRate > 0 !== experiment.task.hintRate > 0)
      notes.push(
        `note: the cold start was trained ${hintRate > 0 ? "with" : "without"} answer hints; this run's questions ${experiment.task.hintRate > 0 ? "carry" : "carry no"} hints (hint rate ${experiment.task.hintRate})`,
      );
  }
  return { experiment, config, checkpoint: found, sizeNote, notes };
}
