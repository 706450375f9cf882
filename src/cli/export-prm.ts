/**
 * Writes a trained PRM checkpoint as the ONNX model the reward side runs
 * (src/prm/onnx.ts):
 *   npm run export:prm -- [IN.ckpt] [OUT.onnx]
 * Defaults: public/prm/prm-digits2-small.ckpt → public/prm/prm-digits2-small.onnx.
 * Checks the file in onnxruntime-web against the CPU reference on the steps
 * of 4 held-out true traces (largest score difference printed; over 1e-4 is an error),
 * then writes OUT atomically and prints one JSON line. On failure the last
 * stdout line is {"error": message} (exit 1).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CHECKPOINT_MAGIC, loadCheckpoint } from "../model/checkpoint";
import { openPrm } from "../prm/file";
import { exportPrmOnnx } from "../prm/onnx";
import { createTaskGenerator } from "../tasks/generator";
import { loadMnistSubsetNode } from "../tasks/mnist-data-node";
import { checkInputFile, checkOutputFile, finishCli, writeFileAtomic } from "./out-files";
import { REPO_ROOT } from "./node-run";
import { EXPORT_PRM_TABLE } from "./export-flags";
import { readCliFlags } from "../lib/cli-flags";

/** Largest ONNX-vs-reference step-score difference accepted (lab choice). */
const MAX_DIFF = 1e-4;

async function main(): Promise<void> {
  const args = readCliFlags(EXPORT_PRM_TABLE).positionals;
  const input = args[0] ?? join(REPO_ROOT, "public/prm/prm-digits2-small.ckpt");
  const output = args[1] ?? input.replace(/(\.ckpt)?$/, ".onnx");
  checkInputFile("IN.ckpt", input);
  checkOutputFile("OUT.onnx", output);
  const bytes = new Uint8Array(readFileSync(input));
  let ckpt: ReturnType<typeof loadCheckpoint>;
  try {
    ckpt = loadCheckpoint(bytes);
  } catch (e) {
    throw new Error(`${input}: ${(e as Error).message}`);
  }
  if (ckpt.meta?.kind !== "prm")
    throw new Error(
      `${input}: not a PRM checkpoint (meta.kind ${JSON.stringify(ckpt.meta?.kind)})`,
    );
  const onnxBytes = exportPrmOnnx(ckpt.config, ckpt.params);
  // The check: the same steps through onnxruntime-web and through the CPU reference.
  const tasks = createTaskGenerator(
    { family: "digits", numDigits: 2, multipleChoice: false, hintRate: 0, traceSlipRate: 0 },
    { mnist: loadMnistSubsetNode() },
  );
  const prompts = tasks.evalSet({ size: 4 });
  const texts = prompts.map((p) => [p.sftTarget]);
  const req = { prompts, images: prompts.map((p) => p.image), texts };
  const viaOnnx = await (await openPrm(onnxBytes)).scoreSteps(req);
  const viaRef = await (await openPrm(bytes)).scoreSteps(req);
  let maxDiff = 0;
  let steps = 0;
  for (const [i, g] of viaOnnx.entries())
    for (const [j, r] of g.entries())
      for (const [k, s] of r.entries()) {
        steps++;
        maxDiff = Math.max(maxDiff, Math.abs(s - viaRef[i][j][k]));
      }
  if (!(maxDiff <= MAX_DIFF))
    throw new Error(`ONNX and CPU reference step scores differ by ${maxDiff} (> ${MAX_DIFF})`);
  if (new TextDecoder().decode(onnxBytes.subarray(0, CHECKPOINT_MAGIC.length)) === CHECKPOINT_MAGIC)
    throw new Error("the ONNX bytes start like a checkpoint");
  writeFileAtomic(output, onnxBytes);
  process.stdout.write(
    `${JSON.stringify({ prm: output, bytes: onnxBytes.length, checkedSteps: steps, maxScoreDiff: maxDiff })}\n`,
  );
}

finishCli("export:prm", main());
