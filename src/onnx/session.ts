/**
 * An onnxruntime-web InferenceSession (wasm execution provider) over a model
 * exported by exportPolicyOnnx (src/onnx/export.ts), in Node (vitest, CLIs)
 * and in the browser (page or web worker).
 *
 * Where the wasm runtime comes from: in Node, onnxruntime-web's "node" build
 * loads `ort-wasm-simd-threaded.wasm` from its own dist folder, so nothing is
 * needed. In the browser, vite.config.ts points the import at the wasm-only
 * build ("onnxruntime-web/wasm") and the caller passes `wasmPaths:
 * ortWasmPaths()` (src/onnx/browser-wasm.ts: Vite `?url` imports, so dev and
 * build serve the files).
 *
 * Threads: onnxruntime-web starts its wasm runtime ONCE per JS realm (process,
 * page or worker), with `env.wasm.numThreads` as it is then; every later
 * session there shares it. So the first session fixes the thread count, and
 * asking for another count afterwards throws (use another worker or process).
 * More than one thread needs SharedArrayBuffer: in the browser, a
 * cross-origin isolated page (COOP same-origin + COEP require-corp, which
 * vite.config.ts sends in dev and preview).
 */
import * as ort from "onnxruntime-web";
import { POLICY_ONNX_IO } from "./export";

/** Options of createOnnxSession. */
export interface OnnxSessionOptions {
  /** wasm threads, an integer ≥ 1; default 1 (lab choice: deterministic and no isolation needed). */
  numThreads?: number;
  /** Where the browser finds the wasm runtime (ortWasmPaths()); unused in Node. */
  wasmPaths?: ort.Env.WasmPrefixOrFilePaths;
  /**
   * The output `run` returns: "logits" (default; [batch, textLen, outDim]) or
   * "token_logprobs" (a PRM file: [batch, textLen]; src/onnx/export.ts).
   */
  output?: "logits" | "token_logprobs";
  /** onnxruntime's graph optimizations; default "all" (onnxruntime's default). */
  graphOptimizationLevel?: "disabled" | "basic" | "extended" | "all";
}

/** A session over an exported tiny VLM and its `run` helper. */
export interface OnnxPolicySession {
  /** The onnxruntime-web session (inputs `images`, `tokens`; output `logits`). */
  readonly session: ort.InferenceSession;
  /** The wasm thread count this realm's runtime runs with. */
  readonly numThreads: number;
  /**
   * Runs the model on one batch.
   * @param images [batch, H·W·C] float32 pixels (TrainBatch.images layout).
   * @param tokens [batch, textLen] int32 ids (TrainBatch.tokens layout); textLen = tokens.length / batch.
   * @returns the chosen output, float32 row-major: logits [batch, textLen, outDim]
   *   (outDim = V, or the exported head's width; text row s predicts token
   *   s + 1), or token_logprobs [batch, textLen].
   * @throws Error when batch is not a positive integer dividing both lengths,
   *   or onnxruntime rejects the inputs (wrong image size, P + textLen > maxSeqLen,
   *   a token id outside [0, vocabSize)), naming the input.
   */
  run(images: Float32Array, tokens: Int32Array, batch: number): Promise<Float32Array>;
  /** Frees the session's memory in the wasm runtime. */
  release(): Promise<void>;
}

/** The thread count the wasm runtime of this realm was started with (null: not started). */
let startedThreads: number | null = null;

/**
 * Creates an onnxruntime-web session (wasm EP) from model bytes.
 * @param bytes a serialized ONNX model (exportPolicyOnnx's output or a file's bytes).
 * @throws Error for a bad numThreads, a numThreads other than the one this
 *   realm's runtime started with, or bytes onnxruntime cannot load (the
 *   message starts "ONNX model could not be loaded: ").
 */
export async function createOnnxSession(
  bytes: Uint8Array,
  opts: OnnxSessionOptions = {},
): Promise<OnnxPolicySession> {
  const numThreads = opts.numThreads ?? 1;
  if (!Number.isInteger(numThreads) || numThreads < 1 || numThreads > 64)
    throw new Error(`numThreads must be an integer in [1, 64], got ${numThreads}`);
  if (startedThreads !== null && startedThreads !== numThreads)
    throw new Error(
      `onnxruntime-web's wasm runtime already runs with ${startedThreads} thread(s) here; it cannot switch to ${numThreads} (use another worker or process)`,
    );
  if (numThreads > 1 && typeof SharedArrayBuffer === "undefined")
    throw new Error(
      `numThreads ${numThreads} needs SharedArrayBuffer, which this page lacks: it must be cross-origin isolated (COOP same-origin, COEP require-corp)`,
    );
  if (startedThreads === null) {
    ort.env.wasm.numThreads = numThreads;
    if (opts.wasmPaths !== undefined) ort.env.wasm.wasmPaths = opts.wasmPaths;
    ort.env.logLevel = "error";
    startedThreads = numThreads;
  }
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(bytes, {
      executionProviders: ["wasm"],
      graphOptimizationLevel: opts.graphOptimizationLevel ?? "all",
      logSeverityLevel: 3,
    });
  } catch (e) {
    throw new Error(
      `ONNX model could not be loaded: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const io = POLICY_ONNX_IO;
  for (const name of [io.images, io.tokens])
    if (!session.inputNames.includes(name)) {
      await session.release();
      throw new Error(
        `ONNX model has inputs [${session.inputNames.join(", ")}], expected '${io.images}' and '${io.tokens}'`,
      );
    }
  const output = opts.output ?? io.logits;
  if (!session.outputNames.includes(output)) {
    await session.release();
    throw new Error(
      `ONNX model has outputs [${session.outputNames.join(", ")}], expected '${output}'`,
    );
  }
  return {
    session,
    numThreads,
    async run(images, tokens, batch) {
      if (!Number.isInteger(batch) || batch < 1)
        throw new Error(`batch must be a positive integer, got ${batch}`);
      if (images.length === 0 || images.length % batch !== 0)
        throw new Error(
          `images has ${images.length} values, not a positive multiple of batch ${batch}`,
        );
      if (tokens.length === 0 || tokens.length % batch !== 0)
        throw new Error(
          `tokens has ${tokens.length} ids, not a positive multiple of batch ${batch}`,
        );
      for (let i = 0; i < tokens.length; i++)
        if (tokens[i] < 0) throw new Error(`token ${tokens[i]} at ${i} is negative`);
      const feeds = {
        [io.images]: new ort.Tensor("float32", images, [batch, images.length / batch]),
        [io.tokens]: new ort.Tensor("int32", tokens, [batch, tokens.length / batch]),
      };
      let out: ort.InferenceSession.ReturnType;
      try {
        out = await session.run(feeds, [output]);
      } catch (e) {
        throw new Error(`ONNX run failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      const result = out[output];
      const data = result.data;
      if (!(data instanceof Float32Array)) throw new Error(`ONNX output ${output} is not float32`);
      const copy = Float32Array.from(data);
      result.dispose();
      return copy;
    },
    release: () => session.release(),
  };
}
