/**
 * The run's pipeline builds before its first RL step (LabRun.warmUp): the
 * rollout generator's and the RL update's, on a batch of the step's size, so
 * the first step does not wait for them.
 */
import type { LabEngine } from "../engine/lab-engine";
import { imageTensor, joinPromptResponse, promptTensor } from "../engine/sequences";
import type { Experiment } from "../settings/experiment";
import type { EstimatorName } from "../settings/estimator-table";
import type { TaskPrompt } from "../tasks/types";

/**
 * Builds the rollout generator and the RL update's pipelines
 * (LabEngine.warmGenerate, warmUpdate) on a batch of `algorithm.batchPrompts`
 * held-out prompts × `algorithm.groupSize` rollouts with empty responses;
 * changes no policy, draws no random number. Does nothing when fewer than
 * `batchPrompts` prompts are given (nothing to mirror). The background
 * builds of the matmuls' larger tiles are held until the first step is done
 * (GpuContext.holdBackgroundBuilds; the step releases them).
 * @param prompts held-out prompts (the first `batchPrompts` are used).
 * @param estimators the estimators the variants train with: the advantage
 *   kernel's variant of each is built.
 */
export async function warmUpRun(
  engine: LabEngine,
  prompts: readonly TaskPrompt[],
  algorithm: Experiment["algorithm"],
  estimators: readonly EstimatorName[],
): Promise<void> {
  const { groupSize: G, batchPrompts } = algorithm;
  const batch = prompts.slice(0, batchPrompts);
  if (batch.length < batchPrompts) return;
  const { promptLen, maxNew } = engine.shape;
  const promptIds = promptTensor(batch, promptLen, G);
  const empty = new Int32Array(batch.length * G * maxNew);
  engine.ctx.holdBackgroundBuilds(); // the first step runs the 8×4 tiles (the same bits)
  engine.warmGenerate(batch.length * G, G);
  await engine.warmUpdate(
    imageTensor(batch, G),
    joinPromptResponse(promptIds, empty, engine.shape),
    G,
    [...new Set(estimators)],
  );
}
