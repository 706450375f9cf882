/**
 * Node loader for the packed MNIST subset (uses `fs`; keep it out of browser
 * bundles). Used by tests and the headless CLI.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseMnistSubset, type MnistSubset } from "./mnist-data";

/** Default path: `public/data/mnist-subset.bin` in the repository. */
export const MNIST_SUBSET_PATH = fileURLToPath(
  new URL("../../public/data/mnist-subset.bin", import.meta.url),
);

/**
 * Reads and parses the packed subset from disk. Throws if the file is missing
 * (with a hint to run `npm run pack:mnist`) or its bytes are invalid.
 */
export function loadMnistSubsetNode(path: string = MNIST_SUBSET_PATH): MnistSubset {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    throw new Error(
      `mnist-subset.bin: cannot read ${path} (${(e as Error).message}); run \`npx tsx scripts/pack-mnist.ts\``,
    );
  }
  return parseMnistSubset(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
}
