/**
 * Versioned binary checkpoints: config + named parameter tensors + metadata.
 *
 * Format version 1 (all integers u32 little-endian, floats f32 little-endian):
 *   magic        8 bytes  "RLABCKPT"
 *   version      u32      1
 *   configLen    u32, then configLen bytes of UTF-8 JSON (the ModelConfig)
 *   tensorCount  u32
 *   tensorCount × {
 *     nameLen u32, name (UTF-8), zero padding to a multiple of 4 bytes
 *     rank    u32, dims  rank × u32
 *     data    prod(dims) × f32   (row-major, as in the flat buffer)
 *   }
 *   metaLen      u32, then metaLen bytes of UTF-8 JSON (0 = no metadata)
 * Tensors are written in `paramLayout` order without the alignment padding of
 * the flat buffer; loading puts them back at their layout offsets (padding 0).
 * Data is copied byte for byte, so params round-trip bit for bit (NaN payloads
 * included) as long as the flat buffer's padding is 0, which init and AdamW keep.
 */
import { paramLayout, validateConfig, type ModelConfig } from "./config";

/** The 8 magic bytes at the start of every checkpoint. */
export const CHECKPOINT_MAGIC = "RLABCKPT";
/** The format version this code writes and reads. */
export const CHECKPOINT_VERSION = 1;

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
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function pad4(n: number): number {
  return (4 - (n % 4)) % 4;
}

/**
 * Serializes a config, its flat parameters and optional metadata.
 * @returns the checkpoint bytes (format above).
 * @throws Error when the config is invalid or params.length is not the layout's totalFloats.
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
  const configBytes = encoder.encode(JSON.stringify(config));
  const metaBytes = meta == null ? new Uint8Array(0) : encoder.encode(JSON.stringify(meta));
  const names = layout.tensors.map((t) => encoder.encode(t.name));
  let size = 8 + 4 + 4 + configBytes.length + 4;
  layout.tensors.forEach((t, i) => {
    size += 4 + names[i].length + pad4(names[i].length) + 4 + 4 * t.shape.length + 4 * t.size;
  });
  size += 4 + metaBytes.length;

  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  let pos = 0;
  const u32 = (v: number) => {
    dv.setUint32(pos, v, true);
    pos += 4;
  };
  const bytes = (b: Uint8Array) => {
    out.set(b, pos);
    pos += b.length;
  };
  bytes(encoder.encode(CHECKPOINT_MAGIC));
  u32(CHECKPOINT_VERSION);
  u32(configBytes.length);
  bytes(configBytes);
  u32(layout.tensors.length);
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
  });
  u32(metaBytes.length);
  bytes(metaBytes);
  return out;
}

/**
 * Parses checkpoint bytes and checks them against the config they carry.
 * @returns config, flat params (layout of paramLayout(config), padding 0) and meta.
 * @throws Error saying which check failed: wrong magic, unsupported version,
 *   truncated file (what was being read, at which offset), bad config JSON or
 *   config, an empty or duplicate tensor name, a tensor the config does not
 *   have, a tensor the config needs but the file lacks, a tensor whose shape
 *   differs from the config's (naming the tensor and both shapes), or
 *   trailing bytes.
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
  if (version !== CHECKPOINT_VERSION) {
    throw new Error(
      `unsupported checkpoint format version ${version} (this build reads version ${CHECKPOINT_VERSION})`,
    );
  }
  const configLen = u32("the config length");
  let config: ModelConfig;
  try {
    config = JSON.parse(text(configLen, "the config JSON")) as ModelConfig;
  } catch (e) {
    if ((e as Error).message.startsWith("truncated")) throw e;
    throw new Error(`checkpoint config is not valid JSON: ${(e as Error).message}`);
  }
  validateConfig(config);
  const layout = paramLayout(config);
  const params = new Float32Array(layout.totalFloats);
  const paramBytes = new Uint8Array(params.buffer);
  const seen = new Set<string>();

  const count = u32("the tensor count");
  for (let i = 0; i < count; i++) {
    const nameLen = u32(`the name length of tensor #${i}`);
    const name = text(nameLen, `the name of tensor #${i}`);
    need(pad4(nameLen), `the name padding of tensor '${name}'`);
    pos += pad4(nameLen);
    if (name.length === 0) throw new Error(`checkpoint tensor #${i} has an empty name`);
    if (seen.has(name)) throw new Error(`checkpoint holds tensor '${name}' twice`);
    seen.add(name);
    const rank = u32(`the rank of tensor '${name}'`);
    if (rank > 8)
      throw new Error(
        `checkpoint tensor '${name}' has rank ${rank} (at most 8 expected): corrupt file`,
      );
    const shape: number[] = [];
    for (let r = 0; r < rank; r++) shape.push(u32(`dimension ${r} of tensor '${name}'`));
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
    need(slot.size * 4, `the data of tensor '${name}'`);
    if (LITTLE_ENDIAN_HOST) {
      paramBytes.set(bytes.subarray(pos, pos + slot.size * 4), slot.offset * 4);
    } else {
      const dst = new DataView(params.buffer);
      for (let k = 0; k < slot.size; k++)
        dst.setUint32((slot.offset + k) * 4, dv.getUint32(pos + k * 4, true), false);
    }
    pos += slot.size * 4;
  }
  const missing = layout.tensors
    .filter((t) => !seen.has(t.name))
    .map((t) => `'${t.name}' [${t.shape.join(", ")}]`);
  if (missing.length)
    throw new Error(
      `checkpoint lacks tensor${missing.length > 1 ? "s" : ""} ${missing.join(", ")} required by its config`,
    );

  const metaLen = u32("the metadata length");
  let meta: CheckpointMeta | null = null;
  if (metaLen > 0) {
    const raw = text(metaLen, "the metadata JSON");
    try {
      meta = JSON.parse(raw) as CheckpointMeta;
    } catch (e) {
      throw new Error(`checkpoint metadata is not valid JSON: ${(e as Error).message}`);
    }
  }
  if (pos !== bytes.length)
    throw new Error(
      `checkpoint has ${bytes.length - pos} unexpected trailing bytes after offset ${pos}`,
    );
  return { config, params, meta };
}
