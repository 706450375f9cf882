/**
 * Generation benchmark: tokens/s of Generator for N sequences × maxNew new
 * tokens on DEFAULT_CONFIG and SMALL_CONFIG (random-init parameters, sampling
 * at T = 1 with EOS disabled so every sequence runs all steps).
 *
 *   node --import tsx --import ./scripts/register-raw.mjs scripts/bench-generate.ts [N] [maxNew] [promptLen] [reps]
 *   (SLEEP=0 turns off GeneratorOptions.sleepBeforeRead; CONFIGS=small runs only SMALL_CONFIG;
 *    GROUP=8 shares each prompt among 8 sequences, GeneratorOptions.groupSize)
 *
 * Prints, per config: the prefill-only time (maxNew = 1), the full batch time,
 * and new tokens per second (N·maxNew / batch time), median over reps.
 */
import { GpuContext } from "../src/gpu/context";
import { requestNodeDevice } from "../src/gpu/node-gpu";
import { DEFAULT_CONFIG, SMALL_CONFIG, type ModelConfig } from "../src/model/config";
import { Generator } from "../src/model/generate";
import { initParams } from "../src/model/init";

const [N, maxNew, promptLen, reps] = [64, 32, 24, 3].map((d, i) =>
  Number(process.argv[2 + i] ?? d),
);

const G = Number(process.env.GROUP ?? 1);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function bench(ctx: GpuContext, name: string, config: ModelConfig): Promise<void> {
  const gen = new Generator(ctx, config, N, promptLen, maxNew, {
    sleepBeforeRead: process.env.SLEEP !== "0",
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
  const batch = median(full);
  const decodeMs = (batch - median(pre)) / (maxNew - 1);
  console.log(
    `${name}: d=${config.dModel} L=${config.nLayers} N=${N} G=${G} promptLen=${promptLen} maxNew=${maxNew}: ` +
      `prefill ${median(pre).toFixed(0)} ms, batch ${batch.toFixed(0)} ms, ` +
      `${((N * maxNew) / (batch / 1000)).toFixed(0)} new tokens/s (decode step ≈ ${decodeMs.toFixed(1)} ms, ` +
      `${gen.dispatchesPerBatch} dispatches/batch)`,
  );
}

const ctx = new GpuContext(await requestNodeDevice());
console.log(`adapter: ${ctx.adapter.description}`);
await bench(ctx, "SMALL_CONFIG", SMALL_CONFIG);
if (process.env.CONFIGS !== "small") await bench(ctx, "DEFAULT_CONFIG", DEFAULT_CONFIG);
ctx.destroy();
