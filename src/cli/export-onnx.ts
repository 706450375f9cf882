/**
 * Writes a checkpoint's policy as an ONNX model (src/onnx/export.ts):
 *   npm run export:onnx -- CHECKPOINT OUT.onnx
 * The checkpoint is loaded with its checks (src/model/checkpoint.ts: magic,
 * version, checksums, shapes, finite values), the graph is built, loaded in
 * onnxruntime-web (wasm, one thread) and run on a fixed probe batch whose
 * logits are compared with the CPU reference forward (max|a − b| / max|b|,
 * must be below 1e-4), and only then written: under a temporary name, then
 * renamed, so a failure leaves an earlier OUT.onnx as it was. OUT.onnx's
 * folder is checked writable before any work. Prints one JSON line of
 * figures; on failure the last stdout line is {"error": message} (exit 1).
 */
import { readFileSync } from "node:fs";
import { loadCheckpoint } from "../model/checkpoint";
import { numPatches } from "../model/config";
import { seededUniform } from "../model/init";
import { referenceForward } from "../model/reference";
import { ONNX_IR_VERSION, ONNX_OPSET } from "../onnx/builder";
import { exportPolicyOnnx } from "../onnx/export";
import { createOnnxSession } from "../onnx/session";
import { PAD_ID } from "../tasks/tokenizer";
import { checkInputFile, checkOutputFile, finishCli, writeFileAtomic } from "./out-files";
import { EXPORT_ONNX_TABLE } from "./export-flags";
import { readCliFlags } from "../lib/cli-flags";

/** The probe check's bound on max|ONNX − reference| / max|reference| (the 1e-4 relative). */
const PROBE_TOL = 1e-4;

async function main(): Promise<void> {
  const [ckptFile, outFile] = readCliFlags(EXPORT_ONNX_TABLE).positionals;
  checkInputFile("CHECKPOINT", ckptFile);
  checkOutputFile("OUT.onnx", outFile);
  const ck = loadCheckpoint(new Uint8Array(readFileSync(ckptFile)));
  if (ck.warning) console.error(`export-onnx: ${ck.warning}`);
  const { config, params } = ck;
  const bytes = exportPolicyOnnx(config, params, {
    metadata: { "reward_lab.checkpoint_meta": JSON.stringify(ck.meta ?? {}) },
  });

  // Probe: 2 rows, the second with 5 leading PADs, over the longest text the config takes.
  const B = 2;
  const L = config.maxSeqLen - numPatches(config);
  const u = seededUniform(7);
  const pixels = config.imageHeight * config.imageWidth * config.imageChannels;
  const images = Float32Array.from({ length: B * pixels }, () => u());
  const tokens = Int32Array.from({ length: B * L }, (_, i) =>
    i >= L && i < L + 5 ? PAD_ID : 1 + Math.floor(u() * (config.vocabSize - 1)),
  );
  const session = await createOnnxSession(bytes);
  const got = await session.run(images, tokens, B);
  await session.release();
  const ref = referenceForward(config, params, {
    B,
    textLen: L,
    images,
    tokens,
    padId: PAD_ID,
  }).logits;
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < ref.length; i++) {
    diff = Math.max(diff, Math.abs(got[i] - ref[i]));
    scale = Math.max(scale, Math.abs(ref[i]));
  }
  const rel = diff / scale;
  if (!(rel < PROBE_TOL))
    throw new Error(
      `the exported model's probe logits differ from the reference forward by ${rel} relative (bound ${PROBE_TOL}); nothing written`,
    );
  writeFileAtomic(outFile, bytes);
  console.log(
    JSON.stringify({
      onnx: outFile,
      bytes: bytes.length,
      opset: ONNX_OPSET,
      irVersion: ONNX_IR_VERSION,
      config,
      probe: { batch: B, textLen: L, relMaxDiffVsReference: rel },
    }),
  );
}

finishCli("export-onnx", main());
