/**
 * The shipped PRM file and how a reward side opens it (docs/reward-spec.md
 * §2, "PRM"). Every failure of the PRM (a missing, corrupt or wrong-shaped
 * file, or a file whose model does not fit the task's images) is an error
 * whose message starts `PRM file <name>: `, so the trainer can tell it from
 * other failures even after it crossed a worker boundary as a message
 * (isPrmFileError), stop only the variant that reads the PRM, and show why.
 */
import { CHECKPOINT_MAGIC, loadCheckpoint } from "../model/checkpoint";
import { logSoftmaxForward, referenceForward } from "../model/reference";
import { PAD_ID, vocabSize } from "../tasks/tokenizer";
import { createStepScorer, type StepScorer } from "./scorer";
import { prmShape } from "./data";
import { openPrmOnnx } from "./onnx";
import type { OnnxSessionOptions } from "../onnx/session";
import type { PrmProvider } from "./scorer";

/** The shipped PRM, relative to the site root (public/): `npm run train:prm`'s output. */
export const PRM_FILE = "prm/prm-digits2-small.onnx";

/**
 * The PRMs a `prm` arm can read, by name: a file under public/ and how it is
 * read. `shipped` is PRM_FILE (`npm run train:prm`); `sft-cold-start` is the
 * open-ended small SFT cold start read as a PRM (its own token probabilities
 * on the trace, never trained as a verifier: the weaker PRM of
 * docs/results/horizon/PLAN.md, lab choice).
 */
export const PRM_SOURCES = {
  shipped: { file: PRM_FILE, readAs: "prm" },
  "sft-cold-start": { file: "checkpoints/sft-digits2-open-small.ckpt", readAs: "policy" },
} as const satisfies Record<string, { file: string; readAs: "prm" | "policy" }>;
export type PrmSource = keyof typeof PRM_SOURCES;

/** Start of every PRM file error's message. */
const PRM_ERROR_PREFIX = "PRM file ";

/** Whether `e` is a PRM file error (by its message, which survives a worker boundary). */
export function isPrmFileError(e: unknown): boolean {
  return e instanceof Error && e.message.startsWith(PRM_ERROR_PREFIX);
}

function prmError(name: string, message: string): Error {
  return new Error(`${PRM_ERROR_PREFIX}${name}: ${message}`);
}

/**
 * A PrmProvider that reads and opens the PRM once, on first use, and names
 * `name` in every error: the read's, the open's, and the scorer's (an image
 * of the wrong size, the runtime's). A failed load is kept: every later call
 * fails with the same message without reading again.
 * @param read the file's bytes, or null when there is no such file.
 * @param open builds the step scorer from the bytes (throws on a bad file).
 */
export function cachedPrm(
  name: string,
  read: () => Promise<Uint8Array | null>,
  open: (bytes: Uint8Array) => Promise<StepScorer>,
): PrmProvider {
  let loading: Promise<StepScorer> | null = null;
  const load = async (): Promise<StepScorer> => {
    let bytes: Uint8Array | null;
    try {
      bytes = await read();
    } catch (e) {
      throw prmError(name, `could not be read: ${(e as Error).message}`);
    }
    if (bytes === null) throw prmError(name, "is missing (npm run train:prm makes it)");
    let scorer: StepScorer;
    try {
      scorer = await open(bytes);
    } catch (e) {
      throw prmError(name, (e as Error).message);
    }
    return {
      async scoreSteps(req) {
        try {
          return await scorer.scoreSteps(req);
        } catch (e) {
          throw prmError(name, (e as Error).message);
        }
      },
      dispose: () => scorer.dispose?.(),
    };
  };
  return () => {
    loading ??= load();
    return loading;
  };
}

/**
 * Opens PRM file bytes as a step scorer: an ONNX model (the shipped form,
 * src/prm/onnx.ts) on onnxruntime-web with `opts`, or a lab checkpoint
 * (magic CHECKPOINT_MAGIC, `npm run train:prm`'s .ckpt) on the CPU reference forward.
 * @throws Error saying what is wrong with the bytes.
 */
export function openPrm(bytes: Uint8Array, opts: OnnxSessionOptions = {}): Promise<StepScorer> {
  if (bytes.length === 0) return Promise.reject(new Error("is empty"));
  const magic = new TextDecoder().decode(bytes.subarray(0, CHECKPOINT_MAGIC.length));
  if (magic === CHECKPOINT_MAGIC) return openPrmCheckpoint(bytes);
  return openPrmOnnx(bytes, opts);
}

/**
 * Opens a PRM saved as a lab checkpoint (`npm run train:prm`'s output, meta
 * `kind: "prm"`) as a step scorer on the CPU reference forward (f64; tests
 * and a reference for the ONNX file).
 * @throws Error when the bytes are not a valid checkpoint (loadCheckpoint's
 *   message), not a PRM, or of another vocabulary.
 */
async function openPrmCheckpoint(bytes: Uint8Array): Promise<StepScorer> {
  const ckpt = loadCheckpoint(bytes);
  if (ckpt.meta?.kind !== "prm")
    throw new Error(`is a checkpoint but not a PRM (meta.kind ${JSON.stringify(ckpt.meta?.kind)})`);
  const { config, params } = ckpt;
  if (config.vocabSize !== vocabSize)
    throw new Error(`has a vocabulary of ${config.vocabSize} tokens, the lab's has ${vocabSize}`);
  const shape = prmShape(config);
  const V = config.vocabSize;
  return createStepScorer({
    shape,
    imageSize: config.imageHeight * config.imageWidth * config.imageChannels,
    maxBatch: 8,
    forward: async ({ n, images, tokens, len }) => {
      const { logits } = referenceForward(config, params, {
        B: n,
        textLen: len,
        images,
        tokens,
        padId: PAD_ID,
      });
      const logp = new Float64Array(logits.length);
      logSoftmaxForward(logp, logits, n * len, V);
      // Column c's token is predicted by row c − 1.
      const out = new Float32Array(n * len);
      for (let i = 0; i < n; i++)
        for (let c = 1; c < len; c++)
          out[i * len + c] = logp[(i * len + c - 1) * V + tokens[i * len + c]];
      return out;
    },
  });
}
