/**
 * The model a lab run trains: its config follows from the task (image size,
 * vocabulary, prompt and response lengths) and the size preset.
 */
import { DEFAULT_CONFIG, SMALL_CONFIG, numPatches, type ModelConfig } from "../model/config";
import { MAX_PROMPT_TOKENS, vocabSize } from "../tasks/tokenizer";
import type { TaskGenerator } from "../tasks/generator";
import type { TaskPrompt } from "../tasks/types";
import type { TextShape } from "./sequences";
import { encode } from "../tasks/tokenizer";

export type ModelSize = "default" | "small";

/**
 * Text shape of a run: the prompt length is the tokenizer's maximum
 * (MAX_PROMPT_TOKENS); maxNew covers the longest SFT target of the eval set
 * plus EOS and 6 tokens of slack (lab choice), capped at 64.
 */
function textShapeFor(evalPrompts: readonly TaskPrompt[]): TextShape {
  let longest = 0;
  for (const p of evalPrompts) longest = Math.max(longest, encode(p.sftTarget).length + 1);
  return { promptLen: MAX_PROMPT_TOKENS, maxNew: Math.min(64, longest + 6) };
}

/**
 * Model config for a task's images and a text shape.
 * size "default": d = 128, 4 layers, 4 heads (docs/design.md); "small": d = 64,
 * 2 layers (lab choice for CPU adapters and CI).
 */
function labModelConfig(
  size: ModelSize,
  image: Pick<TaskPrompt, "height" | "width" | "channels">,
  shape: TextShape,
): ModelConfig {
  const base = size === "small" ? SMALL_CONFIG : DEFAULT_CONFIG;
  const c: ModelConfig = {
    ...base,
    imageHeight: image.height,
    imageWidth: image.width,
    imageChannels: image.channels,
    vocabSize,
    maxSeqLen: 0,
  };
  c.maxSeqLen = numPatches(c) + shape.promptLen + shape.maxNew;
  return c;
}

/** The held-out prompts, text shape and model config of a run. */
export interface RunModel {
  /** The experiment's held-out eval set (`evalSize` prompts). */
  evalPrompts: TaskPrompt[];
  shape: TextShape;
  config: ModelConfig;
}

/**
 * The model a run of `size` trains on `tasks`: the text shape covers the
 * generator's whole default eval set, the image size is the task's. LabRun
 * builds its model with this, and cold-start resolution checks a checkpoint
 * against it (src/run/cold-start.ts).
 * @param evalSize held-out prompts to draw (Experiment.evalSize).
 */
export function runModel(size: ModelSize, tasks: TaskGenerator, evalSize: number): RunModel {
  const evalPrompts = tasks.evalSet({ size: evalSize });
  const shape = textShapeFor(tasks.evalSet());
  return { evalPrompts, shape, config: labModelConfig(size, evalPrompts[0], shape) };
}

/**
 * Why a checkpoint's model config cannot start a run of `config`, or null
 * when the two are equal (every field, as JSON).
 */
export function configMismatch(checkpointConfig: ModelConfig, config: ModelConfig): string | null {
  const want = JSON.stringify(config);
  const got = JSON.stringify(checkpointConfig);
  return got === want ? null : `checkpoint config ${got} does not match this task's model ${want}`;
}
