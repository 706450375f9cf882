/**
 * Run snapshots: everything needed to continue a lab run exactly where it
 * was, i.e. the experiment (live weight changes included), the model config,
 * the RL step, the cold-start parameters (π_ref and the Reset target) and, for
 * every policy (each variant under each seed, and each fork), its parameters
 * and AdamW state (m, v, t). The rest of a step is a function of the step
 * number and the seeds (prompts, rollouts, judge noise: src/run/lab-run.ts), so
 * a run restored from the snapshot of step s trains step s + 1 as the
 * original would have.
 *
 * The trainer keeps the latest one in memory (device loss), posts it to the
 * page (IndexedDB: src/store/run-db.ts) and the CLI writes it to `--out`.
 *
 * Binary format version 1 (integers u32 little-endian, floats f32 little-endian):
 *   magic      8 bytes "RLABSNAP"
 *   version    u32     1
 *   headerLen  u32, then headerLen bytes of UTF-8 JSON (SnapshotHeader),
 *              zero padding to a multiple of 4 bytes
 *   data       (1 + 3·policies) × totalFloats f32: the reference parameters,
 *              then params, m, v of each policy in header order
 *   checksum   32 bytes: SHA-256 (FIPS 180-4, @noble/hashes) of every byte before it
 * Loading checks the checksum before reading anything, then the header
 * through a schema (keys that reach a prototype refused), the experiment and
 * the config through their own checks, the sizes against the config's
 * layout, and that every value is finite (v also ≥ 0).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { z } from "zod";
import { parseUntrustedJson } from "../lib/untrusted";
import { paramLayout, validateConfig, type ModelConfig } from "../model/config";
import {
  parseExperiment,
  VariantSchema,
  type Experiment,
  type VariantConfig,
} from "../settings/experiment";

/** The 8 magic bytes at the start of every snapshot. */
const SNAPSHOT_MAGIC = "RLABSNAP";
/** The format version this code reads and writes. */
const SNAPSHOT_VERSION = 1;
/** Bytes of the trailing checksum (SHA-256). */
const CHECKSUM_BYTES = 32;

/** The trainable state of one policy at a step boundary. */
export interface PolicySnapshot {
  /** The variant's name, or the fork's key (`<parent>@fork<step>`). */
  key: string;
  /** The training seed of this copy (Experiment.seeds[i], or the experiment's seed). */
  seed: number;
  /** Flat parameters [totalFloats] (paramLayout). */
  params: Float32Array;
  /** AdamW first moment [totalFloats]. */
  m: Float32Array;
  /** AdamW second moment [totalFloats], ≥ 0. */
  v: Float32Array;
  /** AdamW step counter (bias correction), an integer ≥ 0. */
  t: number;
  /** Consecutive RL steps whose update AdamW skipped (non-finite gradient), up to this step. */
  skipStreak: number;
  /** Set for a fork: what it branched from, its reward settings and the last step it trained. */
  fork?: { parent: string; config: VariantConfig; trainedTo: number };
}

/** A lab run at a step boundary (see the file comment). */
export interface RunSnapshot {
  experiment: Experiment;
  config: ModelConfig;
  /** RL steps done. */
  step: number;
  /** Seconds of run time at the snapshot (the charts' wall-time axis continues from it). */
  elapsed: number;
  /** Cold-start parameters [totalFloats]: the reference policy and the Reset target. */
  reference: Float32Array;
  /** Variants (seed-major, as LabRun trains them), then forks. */
  policies: PolicySnapshot[];
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

const HeaderSchema = z.object({
  experiment: z.unknown(),
  config: z.object({
    imageHeight: z.number(),
    imageWidth: z.number(),
    imageChannels: z.number(),
    patchSize: z.number(),
    dModel: z.number(),
    nLayers: z.number(),
    nHeads: z.number(),
    mlpRatio: z.number(),
    vocabSize: z.number(),
    maxSeqLen: z.number(),
  }),
  step: z.number().int().min(0),
  elapsed: z.number().min(0),
  totalFloats: z.number().int().positive(),
  policies: z
    .array(
      z.object({
        key: z.string().min(1).max(200),
        seed: z.number().int(),
        t: z.number().int().min(0),
        skipStreak: z.number().int().min(0),
        fork: z
          .object({
            parent: z.string().min(1).max(200),
            config: z.unknown(),
            trainedTo: z.number().int().min(0),
          })
          .optional(),
      }),
    )
    .min(1),
});

/**
 * Serializes a snapshot (format above).
 * @returns the snapshot bytes.
 * @throws Error when a tensor's length is not the config's totalFloats.
 */
export function encodeSnapshot(s: RunSnapshot): Uint8Array {
  const totalFloats = paramLayout(s.config).totalFloats;
  const tensors: [string, Float32Array][] = [["reference", s.reference]];
  for (const p of s.policies) {
    tensors.push([`${p.key} (seed ${p.seed}) params`, p.params]);
    tensors.push([`${p.key} (seed ${p.seed}) m`, p.m]);
    tensors.push([`${p.key} (seed ${p.seed}) v`, p.v]);
  }
  for (const [name, data] of tensors)
    if (data.length !== totalFloats)
      throw new Error(
        `snapshot: ${name} has ${data.length} floats, the config needs ${totalFloats}`,
      );
  const header = encoder.encode(
    JSON.stringify({
      experiment: s.experiment,
      config: s.config,
      step: s.step,
      elapsed: s.elapsed,
      totalFloats,
      policies: s.policies.map((p) => ({
        key: p.key,
        seed: p.seed,
        t: p.t,
        skipStreak: p.skipStreak,
        ...(p.fork ? { fork: p.fork } : {}),
      })),
    }),
  );
  const headerPadded = header.length + ((4 - (header.length % 4)) % 4);
  const dataStart = 16 + headerPadded;
  const dataBytes = tensors.length * totalFloats * 4;
  const out = new Uint8Array(dataStart + dataBytes + CHECKSUM_BYTES);
  const dv = new DataView(out.buffer);
  out.set(encoder.encode(SNAPSHOT_MAGIC), 0);
  dv.setUint32(8, SNAPSHOT_VERSION, true);
  dv.setUint32(12, header.length, true);
  out.set(header, 16);
  let at = dataStart;
  for (const [, data] of tensors) {
    if (LITTLE_ENDIAN_HOST) {
      out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), at);
      at += data.byteLength;
    } else for (let i = 0; i < data.length; i++, at += 4) dv.setFloat32(at, data[i], true);
  }
  out.set(sha256(out.subarray(0, at)), at);
  return out;
}

/** The first non-finite (or, with `nonNegative`, negative) value's index, or -1. */
function firstBad(data: Float32Array, nonNegative: boolean): number {
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    if (!Number.isFinite(x) || (nonNegative && x < 0)) return i;
  }
  return -1;
}

/**
 * Reads and checks a snapshot.
 * @throws Error naming what is wrong: too short, the magic, the version, a
 *   checksum mismatch (damaged bytes), the header (path: message), the
 *   experiment or config, a size that does not fit the config's layout, or
 *   the tensor and index of the first non-finite value.
 */
export function decodeSnapshot(bytes: Uint8Array): RunSnapshot {
  if (!(bytes instanceof Uint8Array)) throw new Error("snapshot: expected bytes (a Uint8Array)");
  if (bytes.length < 16 + CHECKSUM_BYTES)
    throw new Error(`snapshot: ${bytes.length} bytes is too short to be a run snapshot`);
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (magic !== SNAPSHOT_MAGIC) throw new Error("snapshot: not a run snapshot (wrong magic bytes)");
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(8, true);
  if (version !== SNAPSHOT_VERSION)
    throw new Error(
      `snapshot: format version ${version}, this lab reads version ${SNAPSHOT_VERSION}`,
    );
  const body = bytes.length - CHECKSUM_BYTES;
  const want = sha256(bytes.subarray(0, body));
  const got = bytes.subarray(body);
  if (!want.every((b, i) => b === got[i]))
    throw new Error("snapshot: checksum mismatch, the snapshot is damaged");
  const headerLen = dv.getUint32(12, true);
  if (16 + headerLen > body) throw new Error("snapshot: the header runs past the end");
  let raw: unknown;
  try {
    raw = parseUntrustedJson(decoder.decode(bytes.subarray(16, 16 + headerLen)), "snapshot header");
  } catch (e) {
    throw new Error(`snapshot: header: ${(e as Error).message}`);
  }
  const h = HeaderSchema.safeParse(raw);
  if (!h.success)
    throw new Error(
      `snapshot: header: ${h.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
        .join("; ")}`,
    );
  const header = h.data;
  const experiment = parseExperiment(header.experiment);
  const config: ModelConfig = { ...header.config };
  validateConfig(config);
  const totalFloats = paramLayout(config).totalFloats;
  if (header.totalFloats !== totalFloats)
    throw new Error(
      `snapshot: header says ${header.totalFloats} floats per tensor, the config needs ${totalFloats}`,
    );
  const dataStart = 16 + headerLen + ((4 - (headerLen % 4)) % 4);
  const count = 1 + 3 * header.policies.length;
  if (body - dataStart !== count * totalFloats * 4)
    throw new Error(
      `snapshot: ${body - dataStart} data bytes, ${header.policies.length} policies need ${count * totalFloats * 4}`,
    );
  let at = dataStart;
  const read = (name: string, nonNegative = false): Float32Array => {
    let out: Float32Array;
    if (LITTLE_ENDIAN_HOST) {
      out = new Float32Array(bytes.slice(at, at + totalFloats * 4).buffer);
      at += totalFloats * 4;
    } else {
      out = new Float32Array(totalFloats);
      for (let i = 0; i < totalFloats; i++, at += 4) out[i] = dv.getFloat32(at, true);
    }
    const bad = firstBad(out, nonNegative);
    if (bad >= 0)
      throw new Error(
        `snapshot: ${name} holds ${out[bad]} at flat index ${bad} (${nonNegative ? "finite values ≥ 0" : "finite values"} only)`,
      );
    return out;
  };
  const reference = read("reference");
  const seen = new Set<string>();
  const policies = header.policies.map((p): PolicySnapshot => {
    const id = `${p.key} (seed ${p.seed})`;
    if (seen.has(id)) throw new Error(`snapshot: ${id} appears twice`);
    seen.add(id);
    let fork: PolicySnapshot["fork"];
    if (p.fork) {
      const c = VariantSchema.safeParse(p.fork.config);
      if (!c.success)
        throw new Error(
          `snapshot: fork ${p.key}: ${c.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
        );
      fork = { parent: p.fork.parent, config: c.data, trainedTo: p.fork.trainedTo };
    }
    return {
      key: p.key,
      seed: p.seed,
      t: p.t,
      skipStreak: p.skipStreak,
      params: read(`${id} params`),
      m: read(`${id} m`),
      v: read(`${id} v`, true),
      ...(fork ? { fork } : {}),
    };
  });
  return {
    experiment,
    config,
    step: header.step,
    elapsed: header.elapsed,
    reference,
    policies,
  };
}
