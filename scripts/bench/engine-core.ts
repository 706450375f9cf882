/**
 * The parts of `npm run bench:engine` that run wherever WebGPU does: the
 * matmul, generation and train-step timings on a GpuContext, timed by the
 * benchmark harness (scripts/bench/harness.ts: one warm-up run, then the
 * repeats). Node runs them from scripts/bench/engine.ts, Chromium from a
 * dedicated worker (scripts/bench/engine-worker.ts) of the page
 * scripts/bench/engine.html. Figures, not tests.
 */
import type { GpuContext } from "../../src/gpu/context";
import { type ModelConfig, paramLayout } from "../../src/model/config";
import { seededUniform } from "../../src/model/init";
import { matmulForward } from "../../src/kernels/matmul/launch";
import { Generator } from "../../src/model/generate";
import { TrainGraph } from "../../src/model/graph";
import { AdamW } from "../../src/kernels/adamw/launch";
import { round, type Timing, timeRuns } from "./timing";

export const TRAIN = { B: 16, textLen: 64 };
export const TFJS_SMALL = { B: 2, textLen: 16 };
export const GEN = { N: 64, promptLen: 32, maxNew: 32 };
export const MM = 1024;
export const PAD = 0;

/** Where progress lines go (Node: stderr; the browser: the console), and how many timed runs. */
export interface BenchEnv {
  log(msg: string): void;
  repeats: number;
}

/** One warm-up call, then env.repeats timed calls (the harness's timeRuns). */
export function time(env: BenchEnv, label: string, fn: () => Promise<unknown>): Promise<Timing> {
  return timeRuns(label, { warmup: 1, repeats: env.repeats, log: env.log }, fn);
}

/** A fixed batch: images in [0, 1), prompts left-padded with PAD (a few PADs per row), ids in [1, V). */
export function makeBatch(
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

/** Times y [1024, 1024] = x [1024, 1024] · w [1024, 1024] with the training forward matmul ("auto" variant), ms. */
async function benchMatmul(env: BenchEnv, ctx: GpuContext): Promise<Timing> {
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
  const t = await time(env, "matmul 1024³", async () => {
    ctx.run(call);
    await ctx.sync();
  });
  for (const b of [x, w, y, dummy]) b.destroy();
  return t;
}

/** Times one Generator call: GEN.N sequences, GEN.promptLen prompt and GEN.maxNew new tokens, sampled at τ = 1, ms. */
async function benchGenerate(
  env: BenchEnv,
  ctx: GpuContext,
  c: ModelConfig,
  params: Float32Array,
): Promise<Timing> {
  const gen = new Generator(ctx, c, GEN.N, GEN.promptLen, GEN.maxNew);
  const paramsBuf = ctx.createBufferFrom("bench.gen.params", params);
  const { images, tokens } = makeBatch(c, GEN.N, GEN.promptLen, 5);
  return time(env, "generate", () =>
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

/**
 * Times one SFT step (TrainGraph.sftForwardBackward + AdamW + the stats read-back) at
 * `size` (B rows of textLen text tokens, the loss on every text token), ms;
 * also returns each run's loss (nats), which both environments must agree on.
 */
export async function benchTrain(
  env: BenchEnv,
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
  const t = await time(env, `train step B=${size.B} L=${size.textLen}`, async () => {
    graph.sftForwardBackward();
    opt.step();
    ctx.flush();
    loss.push((await graph.readStats()).loss);
  });
  return { t, loss };
}

/** What every environment reports: the three timings behind the JSON line's headline keys. */
export interface EngineCore {
  mm: Timing;
  gen: Timing;
  train: { t: Timing; loss: number[] };
}

/** Runs the matmul, generation and train-step timings in that order. */
export async function runEngineCore(
  env: BenchEnv,
  ctx: GpuContext,
  c: ModelConfig,
  params: Float32Array,
): Promise<EngineCore> {
  const mm = await benchMatmul(env, ctx);
  const gen = await benchGenerate(env, ctx, c, params);
  const train = await benchTrain(env, ctx, c, params, TRAIN);
  return { mm, gen, train };
}

/** The headline keys of a JSON line from the core timings. */
export function headline(core: EngineCore): {
  train_step_ms: number;
  gen_tokens_per_s: number;
  matmul_gflops: number;
} {
  return {
    train_step_ms: round(core.train.t.median, 1),
    gen_tokens_per_s: round((GEN.N * GEN.maxNew) / (core.gen.median / 1000), 1),
    matmul_gflops: round((2 * MM ** 3) / (core.mm.median / 1000) / 1e9, 3),
  };
}
