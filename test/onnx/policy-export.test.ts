// The policy exported to ONNX (src/onnx/export.ts) and run in onnxruntime-web
// (wasm EP, Node) against our WGSL forward on the SwiftShader device and the
// f64 CPU reference: both model sizes, random init and a shipped checkpoint,
// several batches with PAD columns (left-padded prompts, PAD after short
// responses, a row that is nearly all PAD, the longest text the config takes).
//
// Measure, per batch: rel = max_i |a_i − b_i| / max_i |b_i| over all
// [batch, textLen, V] logits, b the WGSL forward (or the CPU reference).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { loadCheckpoint } from "../../src/model/checkpoint";
import {
  DEFAULT_CONFIG,
  numPatches,
  paramLayout,
  SMALL_CONFIG,
  type ModelConfig,
} from "../../src/model/config";
import { TrainGraph } from "../../src/model/graph";
import { initParams } from "../../src/model/init";
import { referenceForward } from "../../src/model/reference";
import { exportPolicyOnnx } from "../../src/onnx/export";
import { createOnnxSession } from "../../src/onnx/session";
import { PAD_ID } from "../../src/tasks/tokenizer";
import { tinyBatch } from "../model/tiny";

const TOL = 1e-4;
const ROOT = resolve(import.meta.dirname, "../..");

/** max|a − b| / max|b|. */
function relMax(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let d = 0;
  let m = 0;
  for (let i = 0; i < b.length; i++) {
    d = Math.max(d, Math.abs(a[i] - b[i]));
    m = Math.max(m, Math.abs(b[i]));
  }
  expect(m).toBeGreaterThan(0);
  return d / m;
}

/** Batches with PAD in the places the engine sees them (PAD_ID is 0, as tinyBatch's). */
function batchesFor(config: ModelConfig) {
  expect(PAD_ID).toBe(0);
  const maxText = config.maxSeqLen - numPatches(config);
  const a = tinyBatch(config, 4, 40, 20, 101);
  // rows 1 and 3: short responses, PAD after them
  for (let s = 31; s < 40; s++) a.tokens[1 * 40 + s] = PAD_ID;
  for (let s = 25; s < 40; s++) a.tokens[3 * 40 + s] = PAD_ID;
  const b = tinyBatch(config, 3, 24, 12, 102);
  // row 2: PAD everywhere but the last column
  for (let s = 0; s < 23; s++) b.tokens[2 * 24 + s] = PAD_ID;
  const c = tinyBatch(config, 1, maxText, 30, 103);
  return [
    { name: "B=4 L=40 (left pads, short responses)", ...a },
    { name: "B=3 L=24 (a row nearly all PAD)", ...b },
    { name: `B=1 L=${maxText} (longest text)`, ...c },
  ];
}

function shipped(file: string) {
  const ck = loadCheckpoint(
    new Uint8Array(readFileSync(resolve(ROOT, "public/checkpoints", file))),
  );
  return { config: ck.config, params: ck.params };
}

const MODELS = [
  {
    name: "small, random init",
    load: () => ({ config: SMALL_CONFIG, params: initParams(SMALL_CONFIG, 11) }),
  },
  {
    name: "default, random init",
    load: () => ({ config: DEFAULT_CONFIG, params: initParams(DEFAULT_CONFIG, 12) }),
  },
  { name: "small, sft-digits2-mc-small.ckpt", load: () => shipped("sft-digits2-mc-small.ckpt") },
  {
    name: "default, sft-digits2-open-default.ckpt",
    load: () => shipped("sft-digits2-open-default.ckpt"),
  },
];

describe("policy exported to ONNX, run in onnxruntime-web (wasm)", () => {
  const webgpu = useGpu();
  const worst = { gpu: 0, ref: 0 };
  afterAll(() => {
    console.log(
      `largest ONNX difference: vs WGSL ${worst.gpu.toExponential(3)}, vs CPU reference ${worst.ref.toExponential(3)} (max|a−b| / max|b| per batch)`,
    );
  });

  for (const model of MODELS) {
    it(`${model.name}: logits equal the WGSL forward and the CPU reference within ${TOL} relative`, async () => {
      const { config, params } = model.load();
      const bytes = exportPolicyOnnx(config, params);
      const ort = await createOnnxSession(bytes);
      const pbuf = webgpu.ctx.createBufferFrom("params", params);
      const gbuf = webgpu.ctx.createBuffer("grads", paramLayout(config).totalFloats * 4);
      const P = numPatches(config);
      const V = config.vocabSize;
      try {
        for (const batch of batchesFor(config)) {
          const { B, textLen: L } = batch;
          const onnx = await ort.run(batch.images, batch.tokens, B);
          expect(onnx.length).toBe(B * L * V);

          const graph = new TrainGraph(webgpu.ctx, config, B, L, {
            padId: PAD_ID,
            params: pbuf,
            grads: gbuf,
          });
          graph.setBatch(batch);
          graph.forwardLogprobs();
          const T = P + L;
          const all = await webgpu.ctx.readF32(graph.logits, 0, B * T * V);
          const gpu = new Float32Array(B * L * V);
          for (let b = 0; b < B; b++)
            gpu.set(all.subarray((b * T + P) * V, (b * T + T) * V), b * L * V);
          const ref = referenceForward(config, params, batch).logits;

          const rGpu = relMax(onnx, gpu);
          const rRef = relMax(onnx, ref);
          const rGpuRef = relMax(gpu, ref);
          worst.gpu = Math.max(worst.gpu, rGpu);
          worst.ref = Math.max(worst.ref, rRef);
          console.log(
            `${model.name}, ${batch.name}: ONNX vs WGSL ${rGpu.toExponential(3)}, ONNX vs CPU ref ${rRef.toExponential(3)}, WGSL vs CPU ref ${rGpuRef.toExponential(3)}`,
          );
          expect(rGpu).toBeLessThan(TOL);
          expect(rRef).toBeLessThan(TOL);
        }
      } finally {
        pbuf.destroy();
        gbuf.destroy();
        await ort.release();
      }
    });
  }
});
