/**
 * Engine benchmark (nanoGPT's bench.py in spirit): prints ONE JSON line.
 *
 *   npm run bench:engine
 *   (= node --import tsx --import ./scripts/register-raw.mjs scripts/bench-engine.ts)
 *
 * Keys:
 *   environment         "node" (WebGPU through the npm `webgpu` package, Dawn)
 *   adapter             adapter description (SwiftShader = CPU)
 *   config              the model config (DEFAULT_CONFIG)
 *   params              real parameter count (paramLayout().count)
 *   train_step_ms       forward + backward + AdamW (with clipping), batch 16 × 64 text tokens
 *                       (T = 32 patches + 64 text = 96 positions; SFT cross-entropy over the
 *                       text tokens, TrainGraph.sftStep + AdamW.step + the stats read-back), median
 *   gen_tokens_per_s    64 sequences × 32 new tokens after a 32-token prompt (KV cache,
 *                       on-GPU sampling, one read-back), new tokens / wall time, median
 *   matmul_gflops       1024×1024×1024 f32 with the training matmul kernel
 *                       (shaders/matmul/matmul_forward.wgsl), 2·M·K·N / median time
 *   tfjs_train_step_ms  the same model and init in TensorFlow.js 4.22.0 (WebGPU backend,
 *                       Adam; scripts/bench-engine-tfjs.ts), median, at the batch in
 *                       `tfjs_batch`: the train batch above on a real GPU; on a CPU
 *                       (fallback) adapter B = 2 × 16 text tokens, because TF.js's
 *                       workgroup-tiled kernels take minutes per full-size step on
 *                       SwiftShader (BENCH_TFJS=full forces the full batch)
 *   train_step_ms_at_tfjs_batch  our train step at `tfjs_batch` (the like-for-like ratio)
 *   tfjs_matmul_gflops  tf.matMul 1024³ on the same backend, for scale
 *   runs                repeats behind each median; details: min/max per part, notes
 * Every median is over ≥ 5 timed runs after one warm-up run; each run ends
 * with a GPU sync (or the read-back the part needs anyway), so times are
 * wall-clock device work, not just recording.
 *
 * Env: BENCH_REPEATS (default 5, min 5); BENCH_TFJS = auto (default) | full | small | off.
 */
import { existsSync } from "node:fs";
import { GpuContext } from "../src/gpu/context";
import { requestNodeDevice, SWIFTSHADER_ICD } from "../src/gpu/node-gpu";
import { DEFAULT_CONFIG, numPatches, paramLayout, type ModelConfig } from "../src/model/config";
import { initParams, seededUniform } from "../src/model/init";
import { matmulForward } from "../src/kernels/matmul/launch";
import { Generator } from "../src/model/generate";
import { TrainGraph } from "../src/model/graph";
import { AdamW } from "../src/kernels/adamw/launch";

const REPEATS = Math.max(5, Number(process.env.BENCH_REPEATS ?? 5) || 5);
const TRAIN = { B: 16, textLen: 64 };
const TFJS_SMALL = { B: 2, textLen: 16 };
const GEN = { N: 64, promptLen: 32, maxNew: 32 };
const MM = 1024;
const PAD = 0;

interface Timing {
  median: number;
  min: number;
  max: number;
  runs: number;
}

function summarize(ms: number[]): Timing {
  const s = [...ms].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1], runs: s.length };
}

/** Progress on stderr (stdout carries only the JSON line). */
function log(msg: string): void {
  process.stderr.write(`[bench-engine] ${msg}\n`);
}

/** One warm-up call, then `repeats` timed calls. */
async function time(label: string, fn: () => Promise<unknown>, repeats = REPEATS): Promise<Timing> {
  let t0 = performance.now();
  await fn();
  log(`${label}: warm-up ${(performance.now() - t0).toFixed(1)} ms`);
  const ms: number[] = [];
  for (let r = 0; r < repeats; r++) {
    t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  log(`${label}: ${ms.map((x) => x.toFixed(1)).join(", ")} ms`);
  return summarize(ms);
}

const round = (x: number, digits = 2) => Number(x.toFixed(digits));

/** A fixed batch: images in [0, 1), prompts left-padded with PAD (a few PADs per row), ids in [1, V). */
function makeBatch(
  c: ModelConfig,
  B: number,
  textLen: number,
  seed: number,
): { images: Float32Array; tokens: Int32Array } {
  const u = seededUniform(seed);
  const pix = c.imageHeight * c.imageWidth * c.imageChannels;
  const images = Float32Array.from({ length: B * pix }, () => u());
  const tokens = new Int32Array(B * textLen);
  for (let b = 0; b < B; b++) {
    const pads = Math.floor(u() * 6);
    for (let s = 0; s < textLen; s++)
      tokens[b * textLen + s] = s < pads ? PAD : 1 + Math.floor(u() * (c.vocabSize - 1));
  }
  return { images, tokens };
}

async function benchMatmul(ctx: GpuContext): Promise<Timing> {
  const u = seededUniform(3);
  const x = ctx.createBufferFrom(
    "bench.mm.x",
    Float32Array.from({ length: MM * MM }, () => u() - 0.5),
  );
  const w = ctx.createBufferFrom(
    "bench.mm.w",
    Float32Array.from({ length: MM * MM }, () => u() - 0.5),
  );
  const y = ctx.createBuffer("bench.mm.y", MM * MM * 4);
  const dummy = ctx.createBuffer("bench.mm.dummy", 16);
  const call = matmulForward(ctx, { x, w, bias: null, res: null, y, dummy }, MM, MM, MM);
  const t = await time("matmul 1024³", async () => {
    ctx.run(call);
    await ctx.sync();
  });
  for (const b of [x, w, y, dummy]) b.destroy();
  return t;
}

async function benchGenerate(
  ctx: GpuContext,
  c: ModelConfig,
  params: Float32Array,
): Promise<Timing> {
  const gen = new Generator(ctx, c, GEN.N, GEN.promptLen, GEN.maxNew);
  const paramsBuf = ctx.createBufferFrom("bench.gen.params", params);
  const { images, tokens } = makeBatch(c, GEN.N, GEN.promptLen, 5);
  return time("generate", () =>
    gen.generate({
      paramsBuf,
      images,
      promptTokens: tokens,
      seed: 1,
      eosId: c.vocabSize - 1,
      padId: PAD,
      temperature: 1,
    }),
  );
}

async function benchTrain(
  ctx: GpuContext,
  c: ModelConfig,
  params: Float32Array,
  size: { B: number; textLen: number },
): Promise<{ t: Timing; loss: number[] }> {
  const layout = paramLayout(c);
  const paramsBuf = ctx.createBufferFrom("bench.train.params", params);
  const grads = ctx.createBuffer("bench.train.grads", layout.totalFloats * 4);
  const graph = new TrainGraph(ctx, c, size.B, size.textLen, {
    padId: PAD,
    params: paramsBuf,
    grads,
  });
  const opt = new AdamW(ctx, layout, paramsBuf, grads, {
    lr: 1e-3,
    weightDecay: 0.1,
    maxGradNorm: 1,
  });
  const { images, tokens } = makeBatch(c, size.B, size.textLen, 4);
  // Loss on every text token (s = 0 has no prediction), as the TF.js mirror.
  graph.setBatch({ images, tokens, mask: new Float32Array(size.B * size.textLen).fill(1) });
  const loss: number[] = [];
  const t = await time(`train step B=${size.B} L=${size.textLen}`, async () => {
    graph.sftStep();
    opt.step();
    ctx.flush();
    loss.push((await graph.readStats()).loss);
  });
  return { t, loss };
}

async function benchTfjs(
  c: ModelConfig,
  params: Float32Array,
  size: { B: number; textLen: number },
): Promise<{ train: Timing; matmul: Timing; loss0: number }> {
  if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD))
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  const webgpu = await import("webgpu");
  const gpu = webgpu.create([]) as unknown as GPU;
  (globalThis as { __benchTfjsGpu?: GPU }).__benchTfjsGpu = gpu; // keep Dawn's GPU object alive
  const { setupTfjsWebGpu, buildTfjsTrainer } = await import("./bench-engine-tfjs");
  const tf = await setupTfjsWebGpu(gpu);
  const { images, tokens } = makeBatch(c, size.B, size.textLen, 4);
  const trainer = buildTfjsTrainer(tf, c, params, {
    images,
    tokens,
    B: size.B,
    textLen: size.textLen,
    padId: PAD,
    lr: 1e-3,
  });
  const loss: number[] = [];
  const train = await time("tfjs train step", async () => loss.push(await trainer.step()));
  log(`tfjs loss over the runs: ${loss.map((l) => l.toFixed(3)).join(" ")}`);
  const loss0 = loss[0];
  trainer.dispose();
  const a = tf.randomUniform([MM, MM]);
  const b = tf.randomUniform([MM, MM]);
  const matmul = await time("tfjs matmul 1024³", async () => {
    const y = tf.matMul(a, b);
    await y.data();
    y.dispose();
  });
  a.dispose();
  b.dispose();
  return { train, matmul, loss0 };
}

async function main(): Promise<void> {
  const c = DEFAULT_CONFIG;
  const layout = paramLayout(c);
  const params = initParams(c, 1);
  const lab = await requestNodeDevice();
  const ctx = new GpuContext(lab);
  const notes: string[] = [];
  const details: Record<string, Timing | null> = {};

  const mm = await benchMatmul(ctx);
  details.matmul_ms = mm;
  const gen = await benchGenerate(ctx, c, params);
  details.generate_ms = gen;

  const train = await benchTrain(ctx, c, params, TRAIN);
  details.train_step_ms = train.t;
  notes.push(`train loss over the runs: ${train.loss.map((l) => l.toFixed(3)).join(" ")}`);

  const mode = process.env.BENCH_TFJS ?? "auto";
  const tfjsSize =
    mode === "full" || (mode === "auto" && !lab.adapter.isFallback) ? TRAIN : TFJS_SMALL;
  let sameBatch: Timing = train.t;
  let sameBatchLoss = train.loss;
  if (mode !== "off" && tfjsSize !== TRAIN) {
    const small = await benchTrain(ctx, c, params, tfjsSize);
    sameBatch = small.t;
    sameBatchLoss = small.loss;
    details.train_step_ms_at_tfjs_batch = sameBatch;
    notes.push(
      `tfjs: CPU adapter, so TF.js and our engine are compared at B=${tfjsSize.B} × ${tfjsSize.textLen} text tokens (BENCH_TFJS=full for the full batch)`,
    );
  }
  let tfjs: { train: Timing; matmul: Timing; loss0: number } | null = null;
  if (mode === "off") notes.push("tfjs: skipped (BENCH_TFJS=off)");
  else {
    try {
      tfjs = await benchTfjs(c, params, tfjsSize);
      details.tfjs_train_step_ms = tfjs.train;
      details.tfjs_matmul_ms = tfjs.matmul;
      // Same init and batch: the first (pre-update) losses must agree if the TF.js mirror is the same model.
      notes.push(
        `first-step loss at the tfjs batch: ours ${sameBatchLoss[0].toFixed(5)}, tfjs ${tfjs.loss0.toFixed(5)}`,
      );
    } catch (e) {
      notes.push(`tfjs: failed: ${(e as Error).message}`);
    }
  }

  const out = {
    environment: "node",
    adapter: lab.adapter.description,
    config: c,
    params: layout.count,
    train_step_ms: round(train.t.median, 1),
    gen_tokens_per_s: round((GEN.N * GEN.maxNew) / (gen.median / 1000), 1),
    matmul_gflops: round((2 * MM ** 3) / (mm.median / 1000) / 1e9, 3),
    tfjs_train_step_ms: tfjs ? round(tfjs.train.median, 1) : null,
    tfjs_batch: { ...tfjsSize, T: numPatches(c) + tfjsSize.textLen },
    train_step_ms_at_tfjs_batch: mode === "off" ? null : round(sameBatch.median, 1),
    tfjs_matmul_gflops: tfjs ? round((2 * MM ** 3) / (tfjs.matmul.median / 1000) / 1e9, 3) : null,
    batch: {
      train: { ...TRAIN, T: numPatches(c) + TRAIN.textLen },
      generate: GEN,
      matmul: [MM, MM, MM],
    },
    runs: REPEATS,
    details,
    notes,
  };
  console.log(JSON.stringify(out));
  ctx.destroy();
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
