/**
 * The task generator of a lab run's experiment.
 */
import type { Experiment } from "../settings/experiment";
import { createTaskGenerator, type TaskGenerator } from "../tasks/generator";
import type { MnistSubset } from "../tasks/mnist-data";

/**
 * The task generator of an experiment (MNIST subset needed for digits). Every
 * field of the experiment's task is passed on, so a new task knob cannot be
 * left out (resolveTaskConfig rejects a field it does not know).
 */
export function taskGeneratorFor(exp: Experiment, mnist?: MnistSubset): TaskGenerator {
  const { numDigits, ...rest } = exp.task;
  return createTaskGenerator({ ...rest, numDigits: numDigits as 2 | 3 }, { mnist });
}
