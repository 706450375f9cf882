// The shipped PRM's ONNX model in onnxruntime-web (wasm, Node) against the
// engine's own WGSL forward of the same weights (the .ckpt train:prm wrote):
// every step score of true and corrupted traces agrees within 1e-4.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { loadCheckpoint } from "../../src/model/checkpoint";
import { LabEngine } from "../../src/engine/lab-engine";
import { corruptTrace, prefixText, referenceTrace } from "../../src/prm/data";
import { openPrm } from "../../src/prm/file";
import { createStepScorer } from "../../src/prm/scorer";
import { prmShape } from "../../src/prm/data";
import { engineTokenLogprobs } from "../../src/prm/train";
import { createTaskGenerator } from "../../src/tasks/generator";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";
import { Rng } from "../../src/tasks/rng";

const ROOT = resolve(import.meta.dirname, "../..");
/** Largest step-score difference accepted (scores are probabilities; lab choice). */
const TOL = 1e-4;

describe("PRM: onnxruntime-web vs the engine's forward", () => {
  const gpu = useGpu();

  it(`every step score agrees within ${TOL}`, async () => {
    const ckpt = loadCheckpoint(
      new Uint8Array(readFileSync(join(ROOT, "public/prm/prm-digits2-small.ckpt"))),
    );
    const onnx = await openPrm(
      new Uint8Array(readFileSync(join(ROOT, "public/prm/prm-digits2-small.onnx"))),
    );
    const shape = prmShape(ckpt.config);
    const engine = new LabEngine(gpu.ctx, ckpt.config, shape, ckpt.params);
    const policy = engine.createPolicy("prm", { lr: 0 });
    const viaEngine = createStepScorer({
      shape,
      imageSize: ckpt.config.imageHeight * ckpt.config.imageWidth,
      forward: engineTokenLogprobs(engine, policy, 16),
      maxBatch: 16,
    });
    const tasks = createTaskGenerator(
      { family: "digits", numDigits: 2, multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
      { mnist: loadMnistSubsetNode() },
    );
    const prompts = tasks.evalSet({ size: 6 });
    const rng = new Rng(2);
    const req = {
      prompts,
      images: prompts.map((p) => p.image),
      texts: prompts.map((p) =>
        [referenceTrace(p), corruptTrace(p, rng)!].map(
          (t) => `${prefixText(t.steps, t.steps.length - 1)} </think>`,
        ),
      ),
    };
    const a = await onnx.scoreSteps(req);
    const b = await viaEngine.scoreSteps(req);
    let worst = 0;
    let n = 0;
    for (const [i, g] of a.entries())
      for (const [j, r] of g.entries()) {
        expect(r).toHaveLength(b[i][j].length);
        for (const [k, s] of r.entries()) {
          n++;
          worst = Math.max(worst, Math.abs(s - b[i][j][k]));
        }
      }
    console.log(`PRM ONNX vs WGSL: ${n} step scores, largest difference ${worst.toExponential(2)}`);
    expect(n).toBeGreaterThanOrEqual(30);
    expect(worst).toBeLessThanOrEqual(TOL);
  }, 300_000);
});
