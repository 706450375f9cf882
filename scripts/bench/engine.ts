/**
 * Engine benchmark (nanoGPT's bench.py in spirit): prints ONE JSON line.
 *
 *   npm run bench:engine [-- --env node,chromium] [--repeats N] [--tfjs auto|full|small|off]
 *   (= node --import tsx --import ./scripts/register-raw.mjs scripts/bench/engine.ts)
 *
 * One line per environment (default both): "node" (npm `webgpu`, Dawn; with
 * the TF.js comparison) and "chromium" (headless Chromium, the same timings
 * in a dedicated worker of scripts/bench-engine.html; no TF.js there).
 *
 * Keys:
 *   environment         "node" (WebGPU through the npm `webgpu` package, Dawn)
 *   adapter             adapter description (SwiftShader = CPU)
 *   config              the model config (DEFAULT_CONFIG)
 *   params              real parameter count (paramLayout().count)
 *   train_step_ms       forward + backward + AdamW (with clipping), batch 16 × 64 text tokens
 *                       (T = 32 patches + 64 text = 96 positions; SFT cross-entropy over the
 *                       text tokens, TrainGraph.sftForwardBackward + AdamW.step + the stats read-back), median
 *   gen_tokens_per_s    64 sequences × 32 new tokens after a 32-token prompt (KV cache,
 *                       on-GPU sampling, one read-back), new tokens / wall time, median
 *   matmul_gflops       1024×1024×1024 f32 with the training matmul kernel
 *                       (shaders/matmul/matmul_forward.wgsl), 2·M·K·N / median time
 *   tfjs_train_step_ms  the same model and init in TensorFlow.js 4.22.0 (WebGPU backend,
 *                       Adam; scripts/bench/engine-tfjs.ts), median, at the batch in
 *                       `tfjs_batch`: the train batch above on a real GPU; on a CPU
 *                       (fallback) adapter B = 2 × 16 text tokens, because TF.js's
 *                       workgroup-tiled kernels take minutes per full-size step on
 *                       SwiftShader (--tfjs full forces the full batch)
 *   train_step_ms_at_tfjs_batch  our train step at `tfjs_batch` (the like-for-like ratio)
 *   tfjs_matmul_gflops  tf.matMul 1024³ on the same backend, for scale
 *   runs                repeats behind each median; details: min/max/spread per part, notes
 * Every median is over ≥ 5 timed runs after one warm-up run; each run ends
 * with a GPU sync (or the read-back the part needs anyway), so times are
 * wall-clock device work, not just recording.
 *
 * --repeats (default BENCH_REPEATS or 5, 5–50), --tfjs (default BENCH_TFJS or auto):
 * the flags win over the environment variables, which are checked the same way.
 */
import { existsSync } from "node:fs";
import { GpuContext } from "../../src/gpu/context";
import { requestNodeDevice, SWIFTSHADER_ICD } from "../../src/gpu/node-gpu";
import { DEFAULT_CONFIG, numPatches, paramLayout, type ModelConfig } from "../../src/model/config";
import { initParams } from "../../src/model/init";
import {
  type BenchEnv,
  benchTrain,
  GEN,
  headline,
  makeBatch,
  MM,
  PAD,
  runEngineCore,
  TFJS_SMALL,
  TRAIN,
  time,
} from "./engine-core";
import { runEnginePage } from "./engine-chromium";
import { parseBenchFlags, round, runBench, type Timing } from "./harness";

type TfjsMode = "auto" | "full" | "small" | "off";

async function benchTfjs(
  env: BenchEnv,
  c: ModelConfig,
  params: Float32Array,
  size: { B: number; textLen: number },
): Promise<{ train: Timing; matmul: Timing; loss0: number }> {
  if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD))
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  const webgpu = await import("webgpu");
  const gpu = webgpu.create([]) as unknown as GPU;
  (globalThis as { __benchTfjsGpu?: GPU }).__benchTfjsGpu = gpu; // keep Dawn's GPU object alive
  const { setupTfjsWebGpu, buildTfjsTrainer } = await import("./engine-tfjs");
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
  const train = await time(env, "tfjs train step", async () => loss.push(await trainer.step()));
  env.log(`tfjs loss over the runs: ${loss.map((l) => l.toFixed(3)).join(" ")}`);
  const loss0 = loss[0];
  trainer.dispose();
  const a = tf.randomUniform([MM, MM]);
  const b = tf.randomUniform([MM, MM]);
  const matmul = await time(env, "tfjs matmul 1024³", async () => {
    const y = tf.matMul(a, b);
    await y.data();
    y.dispose();
  });
  a.dispose();
  b.dispose();
  return { train, matmul, loss0 };
}

/** The Node line: the core timings, then TF.js's at the comparison batch. */
async function nodeLine(env: BenchEnv, mode: TfjsMode): Promise<Record<string, unknown>> {
  const c = DEFAULT_CONFIG;
  const layout = paramLayout(c);
  const params = initParams(c, 1);
  const lab = await requestNodeDevice();
  const ctx = new GpuContext(lab);
  const notes: string[] = [];
  const details: Record<string, Timing | null> = {};
  const core = await runEngineCore(env, ctx, c, params);
  const { train } = core;
  details.matmul_ms = core.mm;
  details.generate_ms = core.gen;
  details.train_step_ms = train.t;
  notes.push(`train loss over the runs: ${train.loss.map((l) => l.toFixed(3)).join(" ")}`);

  const tfjsSize =
    mode === "full" || (mode === "auto" && !lab.adapter.isFallback) ? TRAIN : TFJS_SMALL;
  let sameBatch: Timing = train.t;
  let sameBatchLoss = train.loss;
  if (mode !== "off" && tfjsSize !== TRAIN) {
    const small = await benchTrain(env, ctx, c, params, tfjsSize);
    sameBatch = small.t;
    sameBatchLoss = small.loss;
    details.train_step_ms_at_tfjs_batch = sameBatch;
    notes.push(
      `tfjs: CPU adapter, so TF.js and our engine are compared at B=${tfjsSize.B} × ${tfjsSize.textLen} text tokens (--tfjs full for the full batch)`,
    );
  }
  let tfjs: { train: Timing; matmul: Timing; loss0: number } | null = null;
  if (mode === "off") notes.push("tfjs: skipped (--tfjs off)");
  else {
    try {
      tfjs = await benchTfjs(env, c, params, tfjsSize);
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
  ctx.destroy();
  return {
    environment: "node",
    adapter: lab.adapter.description,
    config: c,
    params: layout.count,
    ...headline(core),
    tfjs_train_step_ms: tfjs ? round(tfjs.train.median, 1) : null,
    tfjs_batch: { ...tfjsSize, T: numPatches(c) + tfjsSize.textLen },
    train_step_ms_at_tfjs_batch: mode === "off" ? null : round(sameBatch.median, 1),
    tfjs_matmul_gflops: tfjs ? round((2 * MM ** 3) / (tfjs.matmul.median / 1000) / 1e9, 3) : null,
    batch: {
      train: { ...TRAIN, T: numPatches(c) + TRAIN.textLen },
      generate: GEN,
      matmul: [MM, MM, MM],
    },
    runs: env.repeats,
    details,
    notes,
  };
}

runBench("bench-engine", async (log) => {
  const flags = parseBenchFlags(process.argv.slice(2), {
    env: {
      kind: "list",
      of: ["node", "chromium"],
      default: ["node", "chromium"],
      help: "where to run",
    },
    repeats: {
      kind: "string",
      default: process.env.BENCH_REPEATS ?? "5",
      help: "timed runs per part, 5–50",
    },
    tfjs: {
      kind: "enum",
      of: ["auto", "full", "small", "off"],
      default: process.env.BENCH_TFJS ?? "auto",
      help: "the TF.js comparison's batch",
    },
  });
  const repeats = Number(flags.repeats);
  if (!/^\d+$/.test(flags.repeats) || repeats < 5 || repeats > 50)
    throw new Error(
      `--repeats (or BENCH_REPEATS) must be an integer in [5, 50], got '${flags.repeats}'`,
    );
  const mode = flags.tfjs as TfjsMode;
  if (!["auto", "full", "small", "off"].includes(mode))
    throw new Error(`--tfjs (or BENCH_TFJS) takes auto, full, small or off, got '${mode}'`);
  const env: BenchEnv = { repeats, log };
  const lines: Record<string, unknown>[] = [];
  if (flags.env.includes("node")) lines.push(await nodeLine(env, mode));
  if (flags.env.includes("chromium")) lines.push(await runEnginePage(repeats));
  return lines;
});
