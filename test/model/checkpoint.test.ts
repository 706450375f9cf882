/**
 * Checkpoint format (src/model/checkpoint.ts): bit-exact round trip, and one
 * clear error for each way a file can be wrong. Malformed files are built
 * with a small independent writer of the documented format (`writeRaw`,
 * SHA-256 from node:crypto), version 2 with checksums or version 1 without.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CHECKPOINT_MAGIC,
  CHECKPOINT_VERSION,
  CHECKSUM_BYTES,
  LEGACY_CHECKPOINT_VERSION,
  RESAVE_COMMAND,
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

/**
 * Writes the documented format directly, so tests can produce files
 * saveCheckpoint never would. Version 2 (the default) gets a SHA-256 of all
 * bytes before it after each region; version 1 none.
 */
function writeRaw(o: {
  magic?: string;
  version?: number;
  config: unknown;
  tensors: RawTensor[];
  meta?: unknown;
  /** Metadata bytes as given (e.g. invalid JSON) instead of JSON.stringify(meta). */
  metaText?: string;
}): Uint8Array {
  const parts: number[] = [];
  const version = o.version ?? CHECKPOINT_VERSION;
  const u32 = (v: number) =>
    parts.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255);
  const bytes = (b: Uint8Array) => {
    for (const x of b) parts.push(x);
  };
  const checksum = () => {
    if (version !== 2) return;
    bytes(createHash("sha256").update(Uint8Array.from(parts)).digest());
  };
  const enc = new TextEncoder();
  bytes(enc.encode(o.magic ?? CHECKPOINT_MAGIC));
  u32(version);
  const c = enc.encode(JSON.stringify(o.config));
  u32(c.length);
  bytes(c);
  u32(o.tensors.length);
  checksum();
  for (const t of o.tensors) {
    const n = enc.encode(t.name);
    u32(n.length);
    bytes(n);
    for (let k = 0; k < (4 - (n.length % 4)) % 4; k++) parts.push(0);
    u32(t.shape.length);
    t.shape.forEach(u32);
    const data = t.data ?? new Float32Array(t.shape.reduce((a, b) => a * b, 1));
    bytes(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    checksum();
  }
  const m =
    o.metaText !== undefined
      ? enc.encode(o.metaText)
      : o.meta === undefined
        ? new Uint8Array(0)
        : enc.encode(JSON.stringify(o.meta));
  u32(m.length);
  bytes(m);
  checksum();
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
    // Awkward finite values must survive too: -0, the smallest subnormal, the largest float.
    const u = new Uint32Array(params.buffer);
    const l = paramLayout(TINY);
    const w = l.byName.get("h.1.mlp.wfc")!.offset;
    params[w] = -0;
    params[w + 1] = 1e-45;
    u[w + 2] = 0x7f7fffff;
    const meta = { step: 1234, vocabHash: "a1b2c3", note: "ünïcode ✓" };
    const bytes = saveCheckpoint({ config: TINY, params, meta });
    const back = loadCheckpoint(bytes);
    expect(back.config).toEqual(TINY);
    expect(back.meta).toEqual(meta);
    expect(back.warning).toBeNull();
    expect(back.params.length).toBe(l.totalFloats);
    expect(Buffer.from(back.params.buffer).equals(Buffer.from(params.buffer))).toBe(true);
    expect(Object.is(back.params[w], -0)).toBe(true);
    expect(new Uint32Array(back.params.buffer)[w + 2]).toBe(0x7f7fffff);
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
    const bytes = writeRaw({ version: 3, config: TINY, tensors: [] });
    expect(() => loadCheckpoint(bytes)).toThrow(
      /unsupported checkpoint format version 3 \(this build reads versions 1 and 2/,
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
    const raw = writeRaw({
      config: TINY,
      tensors: tensorsOf(TINY, params),
      metaText: '{"step":1{',
    });
    expect(() => loadCheckpoint(raw)).toThrow(/metadata is not valid JSON/);
    const list = writeRaw({ config: TINY, tensors: tensorsOf(TINY, params), meta: [1, 2] });
    expect(() => loadCheckpoint(list)).toThrow(/metadata must be a JSON object/);
  });

  it("refuses prototype keys in the metadata and the config, and leaves Object.prototype alone", () => {
    const tensors = tensorsOf(TINY, initParams(TINY, 1));
    for (const metaText of [
      '{"step": 1, "__proto__": {"polluted": true}}',
      '{"task": {"constructor": {"prototype": {"polluted": true}}}}',
    ]) {
      expect(() => loadCheckpoint(writeRaw({ config: TINY, tensors, metaText }))).toThrow(
        /checkpoint metadata uses the key '(__proto__|prototype)', which is refused/,
      );
    }
    const config = JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(TINY).slice(1)}`);
    expect(() => loadCheckpoint(writeRaw({ config, tensors }))).toThrow(
      /checkpoint config uses the key '__proto__'/,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const meta = loadCheckpoint(writeRaw({ config: TINY, tensors, meta: { task: { a: 1 } } }))
      .meta!;
    expect(Object.getPrototypeOf(meta)).toBeNull();
    expect(Object.getPrototypeOf(meta.task)).toBeNull();
  });

  it("refuses NaN and infinities on save and on load, naming the tensor", () => {
    const params = initParams(TINY, 3);
    const l = paramLayout(TINY);
    const at = l.byName.get("h.0.attn.wqkv")!.offset;
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const p = params.slice();
      p[at + 5] = bad;
      expect(() => saveCheckpoint({ config: TINY, params: p })).toThrow(
        `saveCheckpoint: tensor 'h.0.attn.wqkv' [16, 48] holds 1 non-finite value (first: ${bad} at flat index 5)`,
      );
      // Files written some other way (with a valid checksum, or version 1) are refused on load.
      for (const version of [CHECKPOINT_VERSION, LEGACY_CHECKPOINT_VERSION]) {
        const raw = writeRaw({ version, config: TINY, tensors: tensorsOf(TINY, p) });
        expect(() => loadCheckpoint(raw)).toThrow(
          `checkpoint tensor 'h.0.attn.wqkv' [16, 48] holds 1 non-finite value (first: ${bad} at flat index 5)`,
        );
      }
    }
    const u = new Uint32Array(params.buffer);
    u[at] = 0x7fc01234; // a NaN with a payload
    params[at + 1] = Number.NaN;
    expect(() => saveCheckpoint({ config: TINY, params })).toThrow(
      /'h\.0\.attn\.wqkv' \[16, 48\] holds 2 non-finite values \(first: NaN at flat index 0\)/,
    );
  });

  it("loads a version-1 file (no checksums) with a warning naming the re-save command", () => {
    const params = initParams(TINY, 5);
    const raw = writeRaw({
      version: LEGACY_CHECKPOINT_VERSION,
      config: TINY,
      tensors: tensorsOf(TINY, params),
      meta: { step: 9 },
    });
    const ck = loadCheckpoint(raw);
    expect(ck.params).toEqual(params);
    expect(ck.meta).toEqual({ step: 9 });
    expect(ck.warning).toMatch(/version 1 carries no checksums/);
    expect(ck.warning).toContain(RESAVE_COMMAND);
    // Re-saving gives the current version, byte-identical to a direct save.
    const again = saveCheckpoint({ config: ck.config, params: ck.params, meta: ck.meta });
    expect(loadCheckpoint(again).warning).toBeNull();
    expect(
      Buffer.from(again).equals(
        Buffer.from(saveCheckpoint({ config: TINY, params, meta: { step: 9 } })),
      ),
    ).toBe(true);
  });
});

/** Byte ranges of every region of a version-2 file of `config` (header, each tensor, metadata). */
function regionsOf(config: ModelConfig, metaBytes: number) {
  const enc = new TextEncoder();
  const regions: { name: string; start: number; end: number; payload: [number, number] }[] = [];
  const configLen = enc.encode(JSON.stringify(config)).length;
  let pos = 0;
  const headerEnd = 8 + 4 + 4 + configLen + 4;
  // Payload: the bytes whose change can only show as a checksum mismatch (no length field).
  regions.push({
    name: "the header and config",
    start: 0,
    end: headerEnd + CHECKSUM_BYTES,
    payload: [16, 16 + configLen],
  });
  pos = headerEnd + CHECKSUM_BYTES;
  for (const t of paramLayout(config).tensors) {
    const n = enc.encode(t.name).length;
    const dataAt = pos + 4 + n + ((4 - (n % 4)) % 4) + 4 + 4 * t.shape.length;
    const end = dataAt + 4 * t.size + CHECKSUM_BYTES;
    regions.push({ name: `tensor '${t.name}'`, start: pos, end, payload: [dataAt, end] });
    pos = end;
  }
  regions.push({
    name: "the metadata",
    start: pos,
    end: pos + 4 + metaBytes + CHECKSUM_BYTES,
    payload: [pos + 4, pos + 4 + metaBytes + CHECKSUM_BYTES],
  });
  return regions;
}

describe("checkpoint checksums", () => {
  const params = initParams(TINY, 11);
  const meta = { step: 1000, vocabHash: "196:784", task: { hintRate: 1 } };
  const good = saveCheckpoint({ config: TINY, params, meta });
  const regions = regionsOf(TINY, new TextEncoder().encode(JSON.stringify(meta)).length);

  it("knows where every region is (the regions tile the file)", () => {
    expect(regions[0].start).toBe(0);
    for (let i = 1; i < regions.length; i++) expect(regions[i].start).toBe(regions[i - 1].end);
    expect(regions.at(-1)!.end).toBe(good.length);
  });

  it("detects a flipped bit at any position of every region (property, 4,000 flips)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: regions.length - 1 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: 7 }),
        (r, where, bit) => {
          const { start, end } = regions[r];
          const at = start + Math.floor(where * (end - start));
          const bad = good.slice();
          bad[at] ^= 1 << bit;
          expect(() => loadCheckpoint(bad)).toThrow();
        },
      ),
      { numRuns: 4000, seed: 20261214 },
    );
  });

  it("names the damaged region when a data, config, metadata or checksum byte changes (property, 2,000 flips)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: regions.length - 1 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: 7 }),
        (r, where, bit) => {
          const { name, payload } = regions[r];
          const at = payload[0] + Math.floor(where * (payload[1] - payload[0]));
          const bad = good.slice();
          bad[at] ^= 1 << bit;
          expect(() => loadCheckpoint(bad)).toThrow(`checkpoint checksum mismatch in ${name}:`);
        },
      ),
      { numRuns: 2000, seed: 20261215 },
    );
  });

  it("detects every single-bit flip of the header and the metadata (exhaustive)", () => {
    for (const r of [regions[0], regions.at(-1)!]) {
      for (let at = r.start; at < r.end; at++) {
        for (let bit = 0; bit < 8; bit++) {
          const bad = good.slice();
          bad[at] ^= 1 << bit;
          expect(() => loadCheckpoint(bad), `byte ${at} bit ${bit}`).toThrow();
        }
      }
    }
  });

  it("refuses a tensor swapped in from another file, and a file with a region cut out", () => {
    const other = saveCheckpoint({ config: TINY, params: initParams(TINY, 12), meta });
    const t = regions[2];
    const mixed = good.slice();
    mixed.set(other.subarray(t.start, t.end), t.start);
    expect(() => loadCheckpoint(mixed)).toThrow(/checkpoint checksum mismatch in tensor/);
    const cut = new Uint8Array([...good.subarray(0, t.start), ...good.subarray(t.end)]);
    expect(() => loadCheckpoint(cut)).toThrow();
  });
});

describe("shipped checkpoints", () => {
  const dir = join(__dirname, "../../public/checkpoints");
  const files = readdirSync(dir).filter((f) => f.endsWith(".ckpt"));
  it.each(files)("%s is in the current version and passes every check", (file) => {
    const ck = loadCheckpoint(new Uint8Array(readFileSync(join(dir, file))));
    expect(ck.warning).toBeNull();
    expect(new DataView(readFileSync(join(dir, file)).buffer).getUint32(8, true)).toBe(
      CHECKPOINT_VERSION,
    );
  });
});
