/**
 * The learned PRM's cost per RL step: ms to score the steps of 64 rollouts
 * (8 groups × 8, digit prompts with their images; true and corrupted traces,
 * 3 steps each) with the shipped ONNX PRM in onnxruntime-web (wasm EP) in
 * Node, at the thread count given (onnxruntime-web fixes it once per
 * process, so scripts/bench-rewards.ts runs this once per count).
 * Run: npx tsx scripts/bench-prm.ts [THREADS]   prints one JSON line.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { corruptTrace, prefixText, referenceTrace } from "../src/prm/data";
import { openPrm, PRM_FILE } from "../src/prm/file";
import { createTaskGenerator } from "../src/tasks/generator";
import { loadMnistSubsetNode } from "../src/tasks/mnist-data-node";
import { Rng } from "../src/tasks/rng";

const threads = Number(process.argv[2] ?? 1);
if (!Number.isInteger(threads) || threads < 1 || threads > 64)
  throw new Error(`THREADS must be an integer in 1..64, got ${process.argv[2]}`);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const file = path.join(root, "public", PRM_FILE);
const scorer = await openPrm(new Uint8Array(readFileSync(file)), { numThreads: threads });
const tasks = createTaskGenerator(
  { family: "digits", numDigits: 2, multipleChoice: false, hintRate: 0, traceSlipRate: 0 },
  { mnist: loadMnistSubsetNode() },
);
const GROUPS = 8;
const G = 8;
const REPEATS = 7;
const times: number[] = [];
let steps = 0;
for (let r = 0; r <= REPEATS; r++) {
  // A fresh batch every repeat (no prefix is shared across repeats); repeat 0 warms up.
  const rng = new Rng(r + 1);
  const prompts = tasks.sampleBatch(GROUPS, rng);
  const texts = prompts.map((p) =>
    Array.from({ length: G }, () => {
      const t = rng.chance(0.5) ? (corruptTrace(p, rng) ?? referenceTrace(p)) : referenceTrace(p);
      return `${prefixText(t.steps, t.steps.length - 1)} </think> \\boxed{${p.answer.content}}`;
    }),
  );
  const t0 = performance.now();
  const out = await scorer.scoreSteps({ prompts, images: prompts.map((p) => p.image), texts });
  const ms = performance.now() - t0;
  if (r > 0) {
    times.push(ms);
    steps = out.flat().reduce((a, s) => a + s.length, 0);
  }
}
times.sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({ threads, rollouts: GROUPS * G, steps, msMedian: times[REPEATS >> 1], msMin: times[0] })}\n`,
);
