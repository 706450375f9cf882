/**
 * The answer to a `tokenWeights` command (./controller-types.ts): the token
 * weights of one kept sample group (src/run/run-tokens.ts), or an error
 * event naming why there are none.
 */
import type { LabRun } from "../run/lab-run";
import type { ControllerCommand, ControllerEvent } from "./controller-types";

/**
 * Computes and posts the token weights the command asks for; every failure
 * (no run, unknown variant, group no longer kept, bad fields) is posted as a
 * non-fatal `error` event naming the request. Run it at a step boundary: the
 * reference forward shares the engine's work buffer with the update.
 */
export async function answerTokenWeights(
  run: LabRun | null,
  cmd: Extract<ControllerCommand, { type: "tokenWeights" }>,
  post: (e: ControllerEvent) => void,
): Promise<void> {
  const what = `tokenWeights ${String(cmd.variant)} step ${String(cmd.step)} prompt ${String(cmd.promptId)}`;
  try {
    if (!run) throw new Error("no run is loaded yet");
    if (typeof cmd.variant !== "string" || typeof cmd.promptId !== "string")
      throw new Error("variant and promptId must be strings");
    if (!Number.isInteger(cmd.step) || cmd.step < 1) throw new Error("step must be an RL step ≥ 1");
    if (cmd.seed !== undefined && !Number.isInteger(cmd.seed))
      throw new Error("seed must be an integer");
    const req = { variant: cmd.variant, step: cmd.step, promptId: cmd.promptId, seed: cmd.seed };
    const res = await run.tokenWeights(req);
    post({ type: "tokenWeights", ...req, ...res });
  } catch (e) {
    post({ type: "error", message: `${what}: ${(e as Error).message}`, fatal: false });
  }
}
