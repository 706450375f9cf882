/**
 * Versioned binary checkpoints: config + named parameter tensors + metadata,
 * each region followed by a SHA-256 checksum.
 *
 * Format version 2 (all integers u32 little-endian, floats f32 little-endian):
 *   header region
 *     magic        8 bytes  "RLABCKPT"
 *     version      u32      2
 *     configLen    u32, then configLen bytes of UTF-8 JSON (the ModelConfig)
 *     tensorCount  u32
 *     checksum     32 bytes
 *   tensorCount × tensor region
 *     nameLen u32, name (UTF-8), zero padding to a multiple of 4 bytes
 *     rank    u32, dims  rank × u32
 *     data    prod(dims) × f32   (row-major, as in the flat buffer)
 *     checksum 32 bytes
 *   metadata region
 *     metaLen      u32, then metaLen bytes of UTF-8 JSON (0 = no metadata)
 *     checksum     32 bytes
 * Each checksum is the SHA-256 (FIPS 180-4, via @noble/hashes) of every byte
 * of the file before it, so the last one covers the whole file and the first
 * that does not match names the damaged region. Loading checks each region's
 * checksum before reading anything in it, then that every tensor has the
 * config's shape and holds finite values only.
 *
 * Version 1 is the same layout without the checksums; it still loads, with a
 * `warning` that names the re-save command (RESAVE_COMMAND).
 *
 * Tensors are written in `paramLayout` order without the alignment padding of
 * the flat buffer; loading puts them back at their layout offsets (padding 0).
 * Data is copied byte for byte, so params round-trip bit for bit (-0 and
 * subnormals included) as long as the flat buffer's padding is 0, which init
 * and AdamW keep. NaN and ±Infinity are refused on save and on load: no
 * training step can start from them.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { parseUntrustedJson } from "../lib/untrusted";
import { paramLayout, validateConfig, type ModelConfig } from "./config";

/** The 8 magic bytes at the start of every checkpoint. */
export const CHECKPOINT_MAGIC = "RLABCKPT";
/** The format version this code writes (it reads this one and LEGACY_CHECKPOINT_VERSION). */
export const CHECKPOINT_VERSION = 2;
/** The format before checksums: still read, with a warning. */
export const LEGACY_CHECKPOINT_VERSION = 1;
/** Bytes of each region checksum (SHA-256). */
export const CHECKSUM_BYTES = 32;
/** How to re-write a checkpoint in the current version (scripts/resave-checkpoints.ts). */
export const RESAVE_COMMAND = "npm run resave:checkpoints --";

/** Free-form metadata saved with the parameters. */
export interface CheckpointMeta {
  /** Training step the parameters come from. */
  step?: number;
  /** Hash of the tokenizer vocabulary the model was trained with. */
  vocabHash?: string;
  [key: string]: unknown;
}

/** What a checkpoint holds. */
export interface Checkpoint {
  config: ModelConfig;
  /** Flat parameters [paramLayout(config).totalFloats], padding 0. */
  params: Float32Array;
  /** Metadata, or null when the checkpoint has none. */
  meta: CheckpointMeta | null;
  /**
   * Set when the file loaded but could not be fully checked (a version-1
   * file has no checksums); says how to re-save it. Null otherwise.
   */
  warning: string | null;
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

function pad4(n: number): number {
  return (4 - (n % 4)) % 4;
}

/** The first non-finite value of `data[offset, offset + size)`, or null. */
function firstNonFinite(
  data: Float32Array,
  offset: number,
  size: number,
): { index: number; value: number; count: number } | null {
  let first = -1;
  let count = 0;
  for (let k = 0; k < size; k++) {
    if (!Number.isFinite(data[offset + k])) {
      if (first < 0) first = k;
      count++;
    }
  }
  return first < 0 ? null : { index: first, value: data[offset + first], count };
}

function nonFiniteMessage(
  name: string,
  shape: readonly number[],
  bad: { index: number; value: number; count: number },
): string {
  return `tensor '${name}' [${shape.join(", ")}] holds ${bad.count} non-finite value${bad.count > 1 ? "s" : ""} (first: ${bad.value} at flat index ${bad.index})`;
}

/**
 * Metadata JSON as an object without prototype; keys that reach a prototype
 * (`__proto__`, `constructor`, `prototype`) are refused.
 * @throws Error for invalid JSON, a refused key, or JSON that is not an object.
 */
function parseMeta(raw: string): CheckpointMeta {
  let meta: unknown;
  try {
    meta = parseUntrustedJson(raw, "checkpoint metadata");
  } catch (e) {
    if (e instanceof SyntaxError)
      throw new Error(`checkpoint metadata is not valid JSON: ${e.message}`);
    throw e;
  }
  if (meta === null || typeof meta !== "object" || Array.isArray(meta))
    throw new Error("checkpoint metadata must be a JSON object");
  return meta as CheckpointMeta;
}

/**
 * Serializes a config, its flat parameters and optional metadata in format
 * version 2 (layout above, with a SHA-256 checksum after each region).
 * @returns the checkpoint bytes.
 * @throws Error when the config is invalid, params.length is not the layout's
 *   totalFloats, or a tensor holds NaN or ±Infinity (naming the tensor, the
 *   count and the first flat index).
 */
export function saveCheckpoint({
  config,
  params,
  meta,
}: {
  config: ModelConfig;
  params: Float32Array;
  meta?: CheckpointMeta | null;
}): Uint8Array {
  validateConfig(config);
  const layout = paramLayout(config);
  if (params.length !== layout.totalFloats) {
    throw new Error(
      `saveCheckpoint: params has ${params.length} floats, the config's layout needs ${layout.totalFloats}`,
    );
  }
  for (const t of layout.tensors) {
    const bad = firstNonFinite(params, t.offset, t.size);
    if (bad) throw new Error(`saveCheckpoint: ${nonFiniteMessage(t.name, t.shape, bad)}`);
  }
  const configBytes = encoder.encode(JSON.stringify(config));
  const metaBytes = meta == null ? new Uint8Array(0) : encoder.encode(JSON.stringify(meta));
  const names = layout.tensors.map((t) => encoder.encode(t.name));
  let size = 8 + 4 + 4 + configBytes.length + 4 + CHECKSUM_BYTES;
  layout.tensors.forEach((t, i) => {
    size +=
      4 +
      names[i].length +
      pad4(names[i].length) +
      4 +
      4 * t.shape.length +
      4 * t.size +
      CHECKSUM_BYTES;
  });
  size += 4 + metaBytes.length + CHECKSUM_BYTES;

  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  const hash = sha256.create();
  let pos = 0;
  let hashed = 0;
  const u32 = (v: number) => {
    dv.setUint32(pos, v, true);
    pos += 4;
  };
  const bytes = (b: Uint8Array) => {
    out.set(b, pos);
    pos += b.length;
  };
  // The checksum of every byte so far, written where the region ends.
  const checksum = () => {
    hash.update(out.subarray(hashed, pos));
    bytes(hash.clone().digest());
    hash.update(out.subarray(pos - CHECKSUM_BYTES, pos));
    hashed = pos;
  };
  bytes(encoder.encode(CHECKPOINT_MAGIC));
  u32(CHECKPOINT_VERSION);
  u32(configBytes.length);
  bytes(configBytes);
  u32(layout.tensors.length);
  checksum();
  layout.tensors.forEach((t, i) => {
    u32(names[i].length);
    bytes(names[i]);
    pos += pad4(names[i].length);
    u32(t.shape.length);
    for (const d of t.shape) u32(d);
    if (LITTLE_ENDIAN_HOST) {
      bytes(new Uint8Array(params.buffer, params.byteOffset + t.offset * 4, t.size * 4));
    } else {
      const src = new DataView(params.buffer, params.byteOffset);
      for (let k = 0; k < t.size; k++) {
        dv.setUint32(pos, src.getUint32((t.offset + k) * 4, false), true);
        pos += 4;
      }
    }
    checksum();
  });
  u32(metaBytes.length);
  bytes(metaBytes);
  checksum();
  return out;
}

/**
 * Parses checkpoint bytes (format version 2, or version 1 with a warning)
 * and checks them against the config they carry.
 * @returns config, flat params (layout of paramLayout(config), padding 0),
 *   meta, and `warning` (version 1: no checksums, re-save command; else null).
 * @throws Error saying which check failed: wrong magic, unsupported version,
 *   truncated file (what was being read, at which offset), a checksum that
 *   does not match (naming the region: header and config, tensor '<name>',
 *   or metadata), bad config JSON or config, an empty or duplicate tensor
 *   name, a tensor the config does not have, a tensor the config needs but
 *   the file lacks, a tensor whose shape differs from the config's (naming
 *   the tensor and both shapes), a tensor holding NaN or ±Infinity (naming
 *   it), or trailing bytes.
 */
export function loadCheckpoint(bytes: Uint8Array): Checkpoint {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (n: number, what: string) => {
    if (pos + n > bytes.length) {
      throw new Error(
        `truncated checkpoint: needs ${n} bytes for ${what} at offset ${pos}, but the file has ${bytes.length} bytes`,
      );
    }
  };
  const u32 = (what: string) => {
    need(4, what);
    const v = dv.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const text = (n: number, what: string) => {
    need(n, what);
    const s = decoder.decode(bytes.subarray(pos, pos + n));
    pos += n;
    return s;
  };

  need(8, "the magic bytes");
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (magic !== CHECKPOINT_MAGIC) {
    throw new Error(
      `not a Reward Lab checkpoint: wrong magic bytes ${JSON.stringify(magic)} (expected ${JSON.stringify(CHECKPOINT_MAGIC)})`,
    );
  }
  pos = 8;
  const version = u32("the format version");
  if (version !== CHECKPOINT_VERSION && version !== LEGACY_CHECKPOINT_VERSION) {
    throw new Error(
      `unsupported checkpoint format version ${version} (this build reads versions ${LEGACY_CHECKPOINT_VERSION} and ${CHECKPOINT_VERSION}; a damaged file, or one from a newer lab)`,
    );
  }
  const checked = version === CHECKPOINT_VERSION;
  // Version 2: the running SHA-256 of every byte before `pos`, compared with
  // the stored checksum at each region's end, before the region is read.
  const hash = sha256.create();
  let hashed = 0;
  const verify = (region: string) => {
    if (!checked) return;
    need(CHECKSUM_BYTES, `the checksum of ${region}`);
    hash.update(bytes.subarray(hashed, pos));
    const want = hash.clone().digest();
    const got = bytes.subarray(pos, pos + CHECKSUM_BYTES);
    hash.update(got);
    pos += CHECKSUM_BYTES;
    hashed = pos;
    for (let k = 0; k < CHECKSUM_BYTES; k++) {
      if (want[k] !== got[k])
        throw new Error(
          `checkpoint checksum mismatch in ${region}: the file is damaged (its bytes or the stored checksum changed); use an intact copy`,
        );
    }
  };

  // Header region: its extent first, then its checksum, then its contents.
  const configLen = u32("the config length");
  const configAt = pos;
  need(configLen, "the config JSON");
  pos += configLen;
  const count = u32("the tensor count");
  verify("the header and config");
  const configEnd = pos;
  pos = configAt;
  let config: ModelConfig;
  try {
    config = parseUntrustedJson(
      text(configLen, "the config JSON"),
      "checkpoint config",
    ) as ModelConfig;
  } catch (e) {
    if (!(e instanceof SyntaxError || e instanceof TypeError)) throw e;
    throw new Error(`checkpoint config is not valid JSON: ${e.message}`);
  }
  pos = configEnd;
  validateConfig(config);
  const layout = paramLayout(config);
  const params = new Float32Array(layout.totalFloats);
  const paramBytes = new Uint8Array(params.buffer);
  const seen = new Set<string>();

  for (let i = 0; i < count; i++) {
    // Tensor region: extent from its own length fields, checksum, then contents.
    // Named as the layout names tensor #i (files are written in layout order),
    // so a damaged name still gives the right tensor.
    const label = layout.tensors[i] ? `'${layout.tensors[i].name}'` : `#${i}`;
    const start = pos;
    const nameLen = u32(`the name length of tensor ${label}`);
    need(nameLen, `the name of tensor ${label}`);
    pos += nameLen;
    need(pad4(nameLen), `the name padding of tensor ${label}`);
    pos += pad4(nameLen);
    const rank = u32(`the rank of tensor ${label}`);
    if (rank > 8)
      throw new Error(
        `checkpoint tensor ${label} has rank ${rank} (at most 8 expected): corrupt file`,
      );
    const shape: number[] = [];
    for (let r = 0; r < rank; r++) shape.push(u32(`dimension ${r} of tensor ${label}`));
    const floats = shape.reduce((a, b) => a * b, 1);
    need(floats * 4, `the data of tensor ${label}`);
    const dataAt = pos;
    pos += floats * 4;
    const nameBytes = bytes.subarray(start + 4, start + 4 + nameLen);
    verify(`tensor ${layout.tensors[i] ? label : `#${i} '${lenient.decode(nameBytes)}'`}`);
    let name: string;
    try {
      name = decoder.decode(nameBytes);
    } catch {
      throw new Error(`checkpoint tensor #${i} has a name that is not valid UTF-8`);
    }
    if (name.length === 0) throw new Error(`checkpoint tensor #${i} has an empty name`);
    if (seen.has(name)) throw new Error(`checkpoint holds tensor '${name}' twice`);
    seen.add(name);
    const slot = layout.byName.get(name);
    if (!slot)
      throw new Error(
        `checkpoint tensor '${name}' (shape [${shape.join(", ")}]) is not a parameter of its config`,
      );
    if (shape.length !== slot.shape.length || shape.some((d, k) => d !== slot.shape[k])) {
      throw new Error(
        `checkpoint tensor '${name}' has shape [${shape.join(", ")}] but the config needs [${slot.shape.join(", ")}]`,
      );
    }
    if (LITTLE_ENDIAN_HOST) {
      paramBytes.set(bytes.subarray(dataAt, dataAt + slot.size * 4), slot.offset * 4);
    } else {
      const dst = new DataView(params.buffer);
      for (let k = 0; k < slot.size; k++)
        dst.setUint32((slot.offset + k) * 4, dv.getUint32(dataAt + k * 4, true), false);
    }
    const bad = firstNonFinite(params, slot.offset, slot.size);
    if (bad) throw new Error(`checkpoint ${nonFiniteMessage(name, slot.shape, bad)}`);
  }
  const missing = layout.tensors
    .filter((t) => !seen.has(t.name))
    .map((t) => `'${t.name}' [${t.shape.join(", ")}]`);
  if (missing.length)
    throw new Error(
      `checkpoint lacks tensor${missing.length > 1 ? "s" : ""} ${missing.join(", ")} required by its config`,
    );

  const metaLen = u32("the metadata length");
  const metaAt = pos;
  need(metaLen, "the metadata JSON");
  pos += metaLen;
  verify("the metadata");
  const after = pos;
  pos = metaAt;
  const meta = metaLen > 0 ? parseMeta(text(metaLen, "the metadata JSON")) : null;
  pos = after;
  if (pos !== bytes.length)
    throw new Error(
      `checkpoint has ${bytes.length - pos} unexpected trailing bytes after offset ${pos}`,
    );
  const warning = checked
    ? null
    : `checkpoint format version ${LEGACY_CHECKPOINT_VERSION} carries no checksums, so damage to it cannot be detected; re-save it in version ${CHECKPOINT_VERSION} with: ${RESAVE_COMMAND} <file>`;
  return { config, params, meta, warning };
}
