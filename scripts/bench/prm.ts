/**
 * The learned PRM's cost per RL step: ms to score the steps of 64 rollouts
 * (8 groups × 8, digit prompts with their images; true and corrupted traces,
 * 3 steps each) with the shipped ONNX PRM in onnxruntime-web (wasm EP) in
 * Node, at the thread count given (onnxruntime-web fixes it once per
 * process, so scripts/bench/rewards.ts runs this once per count).
 *
 *   npm run bench:prm -- [--threads T]   (1–64, default 1)
 *
 * Prints one JSON line: threads, rollouts, steps, msMedian, msMin (and
 * msMax, spreadMs, runs): 7 timed batches after one warm-up, a fresh batch
 * each time (no prefix is shared across repeats).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { corruptTrace, prefixText, referenceTrace } from "../../src/prm/data";
import { openPrm, PRM_FILE } from "../../src/prm/file";
import { createTaskGenerator } from "../../src/tasks/generator";
import { loadMnistSubsetNode } from "../../src/tasks/mnist-data-node";
import { Rng } from "../../src/tasks/rng";
import { parseBenchFlags, runBench, timeRuns } from "./harness";

const GROUPS = 8;
const G = 8;
const REPEATS = 7;

runBench("bench-prm", async (log) => {
  const { threads } = parseBenchFlags(process.argv.slice(2), {
    threads: { kind: "int", min: 1, max: 64, default: 1, help: "onnxruntime-web threads" },
  });
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const file = path.join(root, "public", PRM_FILE);
  const scorer = await openPrm(new Uint8Array(readFileSync(file)), { numThreads: threads });
  const tasks = createTaskGenerator(
    { family: "digits", numDigits: 2, multipleChoice: false, hintRate: 0, traceSlipRate: 0 },
    { mnist: loadMnistSubsetNode() },
  );
  // One batch per run, built before the timing: batch 0 is the warm-up's (seed 1), batch
  // r + 1 the timed run r's (seeds 2..8); only the scoring is timed.
  const batches = Array.from({ length: REPEATS + 1 }, (_, i) => {
    const rng = new Rng(i + 1);
    const prompts = tasks.sampleBatch(GROUPS, rng);
    const texts = prompts.map((p) =>
      Array.from({ length: G }, () => {
        const tr = rng.chance(0.5)
          ? (corruptTrace(p, rng) ?? referenceTrace(p))
          : referenceTrace(p);
        return `${prefixText(tr.steps, tr.steps.length - 1)} </think> \\boxed{${p.answer.content}}`;
      }),
    );
    return { prompts, images: prompts.map((p) => p.image), texts };
  });
  let steps = 0;
  const label = `${threads} thread(s)`;
  const t = await timeRuns(label, { warmup: 1, repeats: REPEATS, log }, async (run) => {
    const out = await scorer.scoreSteps(batches[run + 1]);
    if (run >= 0) steps = out.flat().reduce((a, s) => a + s.length, 0);
  });
  return {
    threads,
    rollouts: GROUPS * G,
    steps,
    msMedian: t.median,
    msMin: t.min,
    msMax: t.max,
    spreadMs: t.spread,
    runs: t.runs,
  };
});
