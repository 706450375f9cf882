/**
 * Run snapshots (src/run/snapshot.ts) on a tiny model config, no GPU: the
 * bytes round-trip bit for bit (-0 and subnormals included, forks kept);
 * a flipped bit anywhere is a checksum mismatch (property over random
 * positions); a header or tensor that is wrong under a valid checksum is an
 * error naming what is wrong.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { paramLayout, type ModelConfig } from "../../src/model/config";
import { DEFAULT_EXPERIMENT, parseExperiment } from "../../src/settings/experiment";
import { decodeSnapshot, encodeSnapshot, type RunSnapshot } from "../../src/run/snapshot";

const CONFIG: ModelConfig = {
  imageHeight: 7,
  imageWidth: 14,
  imageChannels: 1,
  patchSize: 7,
  dModel: 8,
  nLayers: 1,
  nHeads: 2,
  mlpRatio: 2,
  vocabSize: 16,
  maxSeqLen: 8,
};
const N = paramLayout(CONFIG).totalFloats;

function filled(seed: number, nonNegative = false): Float32Array {
  const a = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    const x = Math.sin(seed * 1000 + i) * 0.1;
    a[i] = nonNegative ? x * x : x;
  }
  return a;
}

function snapshot(): RunSnapshot {
  const experiment = parseExperiment({
    ...structuredClone(DEFAULT_EXPERIMENT),
    variants: [{ name: "rlvr" }, { name: "grr" }],
  });
  const params = filled(2);
  params[0] = -0;
  params[1] = 1e-45; // the smallest subnormal
  return {
    experiment,
    config: CONFIG,
    step: 7,
    elapsed: 12.5,
    reference: filled(1),
    policies: [
      { key: "rlvr", seed: 3, params, m: filled(3), v: filled(4, true), t: 7, skipStreak: 0 },
      {
        key: "grr",
        seed: 3,
        params: filled(5),
        m: filled(6),
        v: filled(7, true),
        t: 6,
        skipStreak: 1,
      },
      {
        key: "grr@fork4",
        seed: 3,
        params: filled(8),
        m: filled(9),
        v: filled(10, true),
        t: 7,
        skipStreak: 0,
        fork: { parent: "grr", config: experiment.variants[1], trainedTo: 7 },
      },
    ],
  };
}

/** Replaces the header JSON (keeping the data) and seals the bytes with a fresh checksum. */
function withHeader(bytes: Uint8Array, edit: (h: Record<string, unknown>) => void): Uint8Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = dv.getUint32(12, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + len)));
  edit(header);
  const data = bytes.subarray(16 + len + ((4 - (len % 4)) % 4), bytes.length - 32);
  const text = new TextEncoder().encode(JSON.stringify(header));
  const pad = (4 - (text.length % 4)) % 4;
  const out = new Uint8Array(16 + text.length + pad + data.length + 32);
  out.set(bytes.subarray(0, 16));
  new DataView(out.buffer).setUint32(12, text.length, true);
  out.set(text, 16);
  out.set(data, 16 + text.length + pad);
  return seal(out);
}

/** Recomputes the trailing checksum. */
function seal(bytes: Uint8Array): Uint8Array {
  bytes.set(sha256(bytes.subarray(0, bytes.length - 32)), bytes.length - 32);
  return bytes;
}

describe("run snapshots", () => {
  it("round-trip bit for bit, forks and counters included", () => {
    const s = snapshot();
    const back = decodeSnapshot(encodeSnapshot(s));
    expect(back.experiment).toEqual(s.experiment);
    expect(back.config).toEqual(s.config);
    expect([back.step, back.elapsed]).toEqual([7, 12.5]);
    const bits = (a: Float32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));
    expect(bits(back.reference)).toEqual(bits(s.reference));
    expect(back.policies.map((p) => [p.key, p.seed, p.t, p.skipStreak, p.fork?.parent])).toEqual([
      ["rlvr", 3, 7, 0, undefined],
      ["grr", 3, 6, 1, undefined],
      ["grr@fork4", 3, 7, 0, "grr"],
    ]);
    back.policies.forEach((p, i) => {
      for (const k of ["params", "m", "v"] as const)
        expect(bits(p[k])).toEqual(bits(s.policies[i][k]));
    });
    expect(Object.is(back.policies[0].params[0], -0)).toBe(true);
  });

  it("detects a flipped bit anywhere (header, data, checksum)", () => {
    const bytes = encodeSnapshot(snapshot());
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bytes.length * 8 - 1 }), (bit) => {
        const bad = bytes.slice();
        bad[bit >> 3] ^= 1 << (bit & 7);
        expect(() => decodeSnapshot(bad)).toThrow(/^snapshot: /);
      }),
      { numRuns: 60 },
    );
  });

  it("names what is wrong under a valid checksum", () => {
    const bytes = encodeSnapshot(snapshot());
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array(10), /too short/],
      [seal(Uint8Array.from(bytes, (b, i) => (i === 0 ? 0x58 : b))), /wrong magic bytes/],
      [
        withHeader(bytes, (h) => {
          (h.policies as { t: number }[])[0].t = -1;
        }),
        /header: policies\.0\.t/,
      ],
      [
        withHeader(bytes, (h) => {
          h.totalFloats = N + 4;
        }),
        /header says \d+ floats per tensor/,
      ],
      [
        withHeader(bytes, (h) => {
          (h.config as { dModel: number }).dModel = 6;
        }),
        /config\.dModel \(6\) must be a multiple of 4/,
      ],
      [
        withHeader(bytes, (h) => {
          (h.policies as unknown[]).pop();
        }),
        /data bytes, 2 policies need/,
      ],
      [seal(Uint8Array.from(bytes, (b, i) => (i === 16 ? 0x7c : b))), /^snapshot: header: /],
    ];
    for (const [bad, message] of cases) expect(() => decodeSnapshot(bad)).toThrow(message);

    const protoKey = withHeader(bytes, () => {});
    const text = new TextDecoder().decode(protoKey);
    const at = text.indexOf('"experiment"');
    protoKey.set(new TextEncoder().encode('"__proto__" '), at);
    expect(() => decodeSnapshot(seal(protoKey))).toThrow(/__proto__/);

    const nan = snapshot();
    nan.policies[1].m[5] = Number.NaN;
    expect(() => decodeSnapshot(encodeSnapshot(nan))).toThrow(
      "snapshot: grr (seed 3) m holds NaN at flat index 5 (finite values only)",
    );
    const negative = snapshot();
    negative.policies[0].v[2] = -1;
    expect(() => decodeSnapshot(encodeSnapshot(negative))).toThrow(
      "snapshot: rlvr (seed 3) v holds -1 at flat index 2 (finite values ≥ 0 only)",
    );
    const short = snapshot();
    short.reference = new Float32Array(3);
    expect(() => encodeSnapshot(short)).toThrow(
      `snapshot: reference has 3 floats, the config needs ${N}`,
    );
  });
});
