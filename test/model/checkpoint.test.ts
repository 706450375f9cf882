/**
 * Checkpoint format (src/model/checkpoint.ts): bit-exact round trip, and one
 * clear error for each way a file can be wrong. Malformed files are built
 * with a small independent writer of the documented format (`writeRaw`).
 */
import { describe, expect, it } from "vitest";
import {
  CHECKPOINT_MAGIC,
  CHECKPOINT_VERSION,
  loadCheckpoint,
  saveCheckpoint,
} from "../../src/model/checkpoint";
import { paramLayout, type ModelConfig } from "../../src/model/config";
import { initParams } from "../../src/model/init";

const TINY: ModelConfig = {
  imageHeight: 8,
  imageWidth: 8,
  imageChannels: 1,
  patchSize: 4,
  dModel: 16,
  nLayers: 2,
  nHeads: 2,
  mlpRatio: 4,
  vocabSize: 19,
  maxSeqLen: 12,
};

interface RawTensor {
  name: string;
  shape: number[];
  data?: Float32Array;
}

/** Writes the documented format directly, so tests can produce files saveCheckpoint never would. */
function writeRaw(o: {
  magic?: string;
  version?: number;
  config: unknown;
  tensors: RawTensor[];
  meta?: unknown;
}): Uint8Array {
  const parts: number[] = [];
  const u32 = (v: number) =>
    parts.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255);
  const bytes = (b: Uint8Array) =>
    b.forEach((x) => {
      parts.push(x);
    });
  const enc = new TextEncoder();
  bytes(enc.encode(o.magic ?? CHECKPOINT_MAGIC));
  u32(o.version ?? CHECKPOINT_VERSION);
  const c = enc.encode(JSON.stringify(o.config));
  u32(c.length);
  bytes(c);
  u32(o.tensors.length);
  for (const t of o.tensors) {
    const n = enc.encode(t.name);
    u32(n.length);
    bytes(n);
    for (let k = 0; k < (4 - (n.length % 4)) % 4; k++) parts.push(0);
    u32(t.shape.length);
    t.shape.forEach(u32);
    const data = t.data ?? new Float32Array(t.shape.reduce((a, b) => a * b, 1));
    bytes(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  const m = o.meta === undefined ? new Uint8Array(0) : enc.encode(JSON.stringify(o.meta));
  u32(m.length);
  bytes(m);
  return Uint8Array.from(parts);
}

/** The tensors of a config as writeRaw expects them, with data from `params`. */
function tensorsOf(config: ModelConfig, params: Float32Array): RawTensor[] {
  return paramLayout(config).tensors.map((t) => ({
    name: t.name,
    shape: [...t.shape],
    data: params.slice(t.offset, t.offset + t.size),
  }));
}

describe("checkpoint format", () => {
  it("round-trips config, params and metadata bit for bit", () => {
    const params = initParams(TINY, 42);
    // Awkward values must survive too: -0, subnormals, infinities, a NaN with a payload.
    const u = new Uint32Array(params.buffer);
    const l = paramLayout(TINY);
    const w = l.byName.get("h.1.mlp.wfc")!.offset;
    params[w] = -0;
    params[w + 1] = 1e-45;
    params[w + 2] = Infinity;
    u[w + 3] = 0x7fc01234;
    const meta = { step: 1234, vocabHash: "a1b2c3", note: "ünïcode ✓" };
    const bytes = saveCheckpoint({ config: TINY, params, meta });
    const back = loadCheckpoint(bytes);
    expect(back.config).toEqual(TINY);
    expect(back.meta).toEqual(meta);
    expect(back.params.length).toBe(l.totalFloats);
    expect(Buffer.from(back.params.buffer).equals(Buffer.from(params.buffer))).toBe(true);
    expect(new Uint32Array(back.params.buffer)[w + 3]).toBe(0x7fc01234);
    // Saving what was loaded gives the same bytes, and a copy at an odd byte offset loads too.
    expect(
      Buffer.from(
        saveCheckpoint({ config: back.config, params: back.params, meta: back.meta }),
      ).equals(Buffer.from(bytes)),
    ).toBe(true);
    const shifted = new Uint8Array(bytes.length + 3);
    shifted.set(bytes, 3);
    expect(loadCheckpoint(shifted.subarray(3)).params).toEqual(back.params);
  });

  it("writes the documented layout (independent writer gives identical bytes)", () => {
    const params = initParams(TINY, 7);
    const meta = { step: 3 };
    const ours = saveCheckpoint({ config: TINY, params, meta });
    const theirs = writeRaw({ config: TINY, tensors: tensorsOf(TINY, params), meta });
    expect(Buffer.from(ours).equals(Buffer.from(theirs))).toBe(true);
    expect(new TextDecoder().decode(ours.subarray(0, 8))).toBe("RLABCKPT");
  });

  it("keeps metadata optional", () => {
    const params = initParams(TINY, 1);
    expect(loadCheckpoint(saveCheckpoint({ config: TINY, params })).meta).toBeNull();
  });

  it("rejects wrong magic bytes", () => {
    const bytes = saveCheckpoint({ config: TINY, params: initParams(TINY, 1) });
    bytes[0] = "X".charCodeAt(0);
    expect(() => loadCheckpoint(bytes)).toThrow(/wrong magic bytes "XLABCKPT"/);
    expect(() => loadCheckpoint(new TextEncoder().encode("PK\u0003\u0004 a zip file"))).toThrow(
      /magic/,
    );
  });

  it("rejects an unsupported format version", () => {
    const bytes = writeRaw({ version: 2, config: TINY, tensors: [] });
    expect(() => loadCheckpoint(bytes)).toThrow(
      /unsupported checkpoint format version 2 \(this build reads version 1\)/,
    );
  });

  it("rejects a truncated file, saying where", () => {
    const bytes = saveCheckpoint({ config: TINY, params: initParams(TINY, 1), meta: { step: 1 } });
    expect(() => loadCheckpoint(bytes.subarray(0, 5))).toThrow(/truncated checkpoint.*magic/);
    expect(() => loadCheckpoint(bytes.subarray(0, 20))).toThrow(
      /truncated checkpoint.*config JSON/,
    );
    expect(() => loadCheckpoint(bytes.subarray(0, bytes.length - 300))).toThrow(
      /truncated checkpoint.*tensor 'head\.w'/,
    );
    expect(() => loadCheckpoint(bytes.subarray(0, bytes.length - 2))).toThrow(
      /truncated checkpoint.*metadata/,
    );
    // Every prefix fails cleanly with a "truncated" error, never a RangeError.
    for (let n = 0; n < bytes.length; n += 97)
      expect(() => loadCheckpoint(bytes.subarray(0, n))).toThrow(/truncated/);
  });

  it("rejects a tensor whose shape does not fit the config, naming it and both shapes", () => {
    const tensors = tensorsOf(TINY, initParams(TINY, 1));
    const i = tensors.findIndex((t) => t.name === "h.0.attn.wqkv");
    tensors[i] = { name: "h.0.attn.wqkv", shape: [48, 16] };
    expect(() => loadCheckpoint(writeRaw({ config: TINY, tensors }))).toThrow(
      "checkpoint tensor 'h.0.attn.wqkv' has shape [48, 16] but the config needs [16, 48]",
    );
    tensors[i] = { name: "h.0.attn.wqkv", shape: [16, 48, 1] };
    expect(() => loadCheckpoint(writeRaw({ config: TINY, tensors }))).toThrow(
      /'h\.0\.attn\.wqkv' has shape \[16, 48, 1\] but the config needs \[16, 48\]/,
    );
  });

  it("rejects a missing tensor, an empty name, an unknown name and a duplicate", () => {
    const all = tensorsOf(TINY, initParams(TINY, 1));
    const without = all.filter((t) => t.name !== "h.1.ln2.g");
    expect(() => loadCheckpoint(writeRaw({ config: TINY, tensors: without }))).toThrow(
      /lacks tensor 'h\.1\.ln2\.g' \[16\] required by its config/,
    );
    const empty = all.map((t, k) => (k === 3 ? { ...t, name: "" } : t));
    expect(() => loadCheckpoint(writeRaw({ config: TINY, tensors: empty }))).toThrow(
      /tensor #3 has an empty name/,
    );
    const unknown = [...all, { name: "h.2.ln1.g", shape: [16] }];
    expect(() => loadCheckpoint(writeRaw({ config: TINY, tensors: unknown }))).toThrow(
      /'h\.2\.ln1\.g' \(shape \[16\]\) is not a parameter of its config/,
    );
    const twice = [...all, all[0]];
    expect(() => loadCheckpoint(writeRaw({ config: TINY, tensors: twice }))).toThrow(
      /holds tensor 'patch\.w' twice/,
    );
  });

  it("rejects a bad config, bad metadata and trailing bytes", () => {
    const params = initParams(TINY, 1);
    expect(() =>
      loadCheckpoint(writeRaw({ config: { ...TINY, dModel: 15 }, tensors: [] })),
    ).toThrow(/config\.dModel/);
    const good = saveCheckpoint({ config: TINY, params });
    const longer = new Uint8Array(good.length + 4);
    longer.set(good);
    expect(() => loadCheckpoint(longer)).toThrow(/4 unexpected trailing bytes/);
    expect(() => saveCheckpoint({ config: TINY, params: params.subarray(1) })).toThrow(
      /params has \d+ floats, the config's layout needs \d+/,
    );
    const raw = writeRaw({ config: TINY, tensors: tensorsOf(TINY, params), meta: { step: 1 } });
    raw[raw.length - 1] = "{".charCodeAt(0); // "{"step":1{"
    expect(() => loadCheckpoint(raw)).toThrow(/metadata is not valid JSON/);
  });
});
