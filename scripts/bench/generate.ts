/**
 * Generation benchmark: tokens/s of Generator for N sequences × maxNew new
 * tokens on SMALL_CONFIG and DEFAULT_CONFIG (random-init parameters, sampling
 * at T = 1 with EOS disabled so every sequence runs all steps).
 *
 *   npm run bench:generate -- [--n N] [--max-new M] [--prompt-len P] [--reps R]
 *                             [--group G] [--configs small|both] [--no-sleep]
 *
 * --group shares each prompt among G sequences (GeneratorOptions.groupSize;
 * env GROUP), --configs small runs only SMALL_CONFIG (env CONFIGS), --no-sleep
 * turns off GeneratorOptions.sleepBeforeRead (env SLEEP=0). After two warm-up
 * calls (maxNew = 1, then the full batch), R rounds each time a prefill-only
 * call (maxNew = 1) and then a full batch, alternating. Prints one JSON line:
 * adapter, and per config its shape, prefill_ms and batch_ms (medians over the
 * rounds, with their spread), new_tokens_per_s (N·maxNew / batch time),
 * decode_step_ms ((batch − prefill) / (maxNew − 1)) and dispatches_per_batch;
 * the same as one line per config on stderr.
 */
import type { GpuContext } from "../../src/gpu/context";
import { nodeContext } from "../../src/cli/node-run";
import { DEFAULT_CONFIG, SMALL_CONFIG, type ModelConfig } from "../../src/model/config";
import { Generator } from "../../src/model/generate";
import { initParams } from "../../src/model/init";
import { type BenchLog, parseBenchFlags, round, runBench, summarize } from "./harness";

interface Shape {
  N: number;
  maxNew: number;
  promptLen: number;
  reps: number;
  G: number;
  sleep: boolean;
}

async function bench(
  ctx: GpuContext,
  name: string,
  config: ModelConfig,
  s: Shape,
  log: BenchLog,
): Promise<Record<string, unknown>> {
  const { N, maxNew, promptLen, reps, G } = s;
  const gen = new Generator(ctx, config, N, promptLen, maxNew, {
    sleepBeforeRead: s.sleep,
    groupSize: G,
  });
  const paramsBuf = ctx.createBufferFrom(`${name}.params`, initParams(config, 1));
  const pixels = config.imageHeight * config.imageWidth * config.imageChannels;
  // Sequence s shows prompt ⌊s/G⌋: random pixels, 4 PADs then words.
  const images = Float32Array.from({ length: N * pixels }, (_, i) => {
    const j = Math.floor(i / pixels / G) * pixels + (i % pixels);
    return ((j * 2654435761) >>> 0) / 4294967296;
  });
  const promptTokens = Int32Array.from({ length: N * promptLen }, (_, i) => {
    const j = Math.floor(i / promptLen / G) * promptLen + (i % promptLen);
    return j % promptLen < 4 ? 0 : 1 + (j % (config.vocabSize - 2));
  });
  // Every step runs whether or not a sequence has finished, so the EOS id does not change the timing.
  const opts = {
    paramsBuf,
    images,
    promptTokens,
    seed: 1,
    eosId: config.vocabSize - 1,
    padId: 0,
    temperature: 1,
  };
  await gen.generate({ ...opts, maxNew: 1 }); // compile + warm-up (and the sleep estimates)
  await gen.generate(opts);
  const pre: number[] = [];
  const full: number[] = [];
  for (let r = 0; r < reps; r++) {
    let t0 = performance.now();
    await gen.generate({ ...opts, maxNew: 1, seed: r });
    pre.push(performance.now() - t0);
    t0 = performance.now();
    await gen.generate({ ...opts, seed: r });
    full.push(performance.now() - t0);
  }
  const prefill = summarize(pre);
  const batch = summarize(full);
  const decodeMs = (batch.median - prefill.median) / (maxNew - 1);
  const tokensPerS = (N * maxNew) / (batch.median / 1000);
  log(
    `${name}: d=${config.dModel} L=${config.nLayers} N=${N} G=${G} promptLen=${promptLen} maxNew=${maxNew}: ` +
      `prefill ${prefill.median.toFixed(0)} ms, batch ${batch.median.toFixed(0)} ms, ` +
      `${tokensPerS.toFixed(0)} new tokens/s (decode step ≈ ${decodeMs.toFixed(1)} ms, ` +
      `${gen.dispatchesPerBatch} dispatches/batch)`,
  );
  return {
    config: name,
    dModel: config.dModel,
    nLayers: config.nLayers,
    N,
    G,
    promptLen,
    maxNew,
    prefill_ms: { ...prefill, median: round(prefill.median, 1) },
    batch_ms: { ...batch, median: round(batch.median, 1) },
    new_tokens_per_s: round(tokensPerS, 0),
    decode_step_ms: round(decodeMs, 1),
    dispatches_per_batch: gen.dispatchesPerBatch,
  };
}

runBench("bench-generate", async (log) => {
  const f = parseBenchFlags(process.argv.slice(2), {
    n: { kind: "int", min: 1, max: 1024, default: 64, help: "sequences" },
    "max-new": { kind: "int", min: 2, max: 512, default: 32, help: "new tokens per sequence" },
    "prompt-len": { kind: "int", min: 1, max: 512, default: 24, help: "prompt tokens" },
    reps: { kind: "int", min: 1, max: 100, default: 3, help: "timed rounds" },
    group: {
      kind: "int",
      min: 1,
      max: 1024,
      default: Number(process.env.GROUP ?? 1),
      help: "sequences per prompt",
    },
    configs: {
      kind: "enum",
      of: ["small", "both"],
      default: process.env.CONFIGS === "small" ? "small" : "both",
      help: "which model configs",
    },
    "no-sleep": { kind: "bool", help: "no sleep before each read-back" },
  });
  const shape: Shape = {
    N: f.n,
    maxNew: f["max-new"],
    promptLen: f["prompt-len"],
    reps: f.reps,
    G: f.group,
    sleep: !f["no-sleep"] && process.env.SLEEP !== "0",
  };
  if (!Number.isInteger(shape.G) || shape.N % shape.G !== 0)
    throw new Error(`--group (or GROUP) must divide --n ${shape.N}, got ${shape.G}`);
  const ctx = await nodeContext();
  log(`adapter: ${ctx.adapter.description}`);
  const configs = [await bench(ctx, "SMALL_CONFIG", SMALL_CONFIG, shape, log)];
  if (f.configs === "both")
    configs.push(await bench(ctx, "DEFAULT_CONFIG", DEFAULT_CONFIG, shape, log));
  ctx.destroy();
  return { environment: "node", adapter: ctx.adapter.description, configs };
});
