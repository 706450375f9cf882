/**
 * The trainer worker's "Export ONNX": a variant's current policy (the run's
 * snapshot at the last step boundary, which holds every policy's parameters)
 * written as ONNX (src/onnx/export.ts), then loaded in onnxruntime-web in this
 * worker and run on a probe batch, so a file that the runtime cannot load or
 * run never reaches the page.
 */
import { numPatches } from "../model/config";
import { exportPolicyOnnx } from "../onnx/export";
import { createOnnxSession, type OnnxSessionOptions } from "../onnx/session";
import type { RunSnapshot } from "../run/snapshot";
import { PAD_ID } from "../tasks/tokenizer";

/** What the page gets: the file and where it comes from. */
export interface OnnxExport {
  variant: string;
  /** The training seed of the exported copy (the first of the variant's seeds). */
  seed: number;
  /** RL steps the policy has trained. */
  step: number;
  /** The .onnx file's bytes. */
  bytes: Uint8Array;
  /** The probe run in this worker: threads used and the largest |logit| (finite). */
  probe: { numThreads: number; maxAbsLogit: number };
}

/**
 * Exports the first policy of `variant` (its first seed) in `snap`, then
 * loads it in onnxruntime-web with `session` options and runs one probe row
 * (a PAD column, then ids 1…) over the longest text the config takes.
 * @throws Error when there is no snapshot yet, the variant is not in it, or
 *   the runtime cannot load or run the file, or its logits are not finite.
 */
export async function exportVariantOnnx(
  snap: RunSnapshot | null,
  variant: string,
  session: OnnxSessionOptions,
): Promise<OnnxExport> {
  if (!snap)
    throw new Error("Nothing to export yet: the run has not started (press Train or Step).");
  const policy = snap.policies.find((p) => p.key === variant);
  if (!policy)
    throw new Error(
      `No policy '${variant}' in the run (it has ${snap.policies.map((p) => p.key).join(", ")})`,
    );
  const { config } = snap;
  const bytes = exportPolicyOnnx(config, policy.params, {
    metadata: {
      "reward_lab.variant": variant,
      "reward_lab.seed": String(policy.seed),
      "reward_lab.step": String(snap.step),
    },
  });
  const L = config.maxSeqLen - numPatches(config);
  const pixels = config.imageHeight * config.imageWidth * config.imageChannels;
  const images = Float32Array.from({ length: pixels }, (_, i) => (i % 7) / 7);
  const tokens = Int32Array.from({ length: L }, (_, s) =>
    s === 0 ? PAD_ID : 1 + (s % (config.vocabSize - 1)),
  );
  const ort = await createOnnxSession(bytes, session);
  try {
    const logits = await ort.run(images, tokens, 1);
    let maxAbs = 0;
    for (let i = 0; i < logits.length; i++) {
      if (!Number.isFinite(logits[i]))
        throw new Error(`the exported model gave a non-finite logit at ${i} in onnxruntime-web`);
      maxAbs = Math.max(maxAbs, Math.abs(logits[i]));
    }
    if (logits.length !== L * config.vocabSize)
      throw new Error(
        `the exported model gave ${logits.length} logits, expected ${L * config.vocabSize}`,
      );
    return {
      variant,
      seed: policy.seed,
      step: snap.step,
      bytes,
      probe: { numThreads: ort.numThreads, maxAbsLogit: maxAbs },
    };
  } finally {
    await ort.release();
  }
}
