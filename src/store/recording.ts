/**
 * Recorded runs: what `npm run record` writes (public/recordings/<preset>.json)
 * and the page plays where it cannot train (no WebGPU) or overlays on a live
 * run. A recording is a saved run (the record ./saved-run-check.ts checks,
 * without a snapshot) plus a sample of the run's inspector groups, each image
 * packed as one byte per value (base64). Pure: the CLI encodes, the page
 * decodes, tests do both.
 */
import type { MetricRow } from "../run/run-types";
import type { GroupView } from "../rl/step-types";
import type { Experiment } from "../settings/experiment";
import type { MetricsData } from "./run-data";

/** The `format` field of every recording file. */
export const RECORDING_FORMAT = "reward-lab-recording";
/** The recording file version this lab writes and reads. */
export const RECORDING_VERSION = 1;
/** Folder of the shipped recordings, relative to the site root (public/). */
const RECORDINGS_DIR = "recordings";

/** A recording's run: a saved run's record (./saved-run-check.ts) without a snapshot. */
interface RecordedRunRecord {
  key: string;
  name: string;
  savedAt: number;
  experiment: Experiment;
  lastStep: number;
  lastEval: Record<string, Record<string, number>>;
  metrics: MetricsData;
}

/** A group as a recording holds it: the image as bytes (value × 255, base64). */
export interface RecordedGroup extends Omit<GroupView, "image"> {
  image: { height: number; width: number; channels: number; bytes: string };
}

/** A recording file (JSON). */
export interface RecordingFile {
  format: typeof RECORDING_FORMAT;
  version: typeof RECORDING_VERSION;
  /** The preset it recorded (src/settings/presets.ts). */
  preset: string;
  /** The command line that made it (`npm run record -- …`). */
  command: string;
  /** The run: a saved run without snapshot (metrics rows, markers, experiment). */
  run: RecordedRunRecord;
  /** A sample of the run's inspector groups, in step order. */
  samples: RecordedGroup[];
}

/** A recording as the page uses it: groups with Float32 images again. */
export interface Recording {
  preset: string;
  command: string;
  run: RecordedRunRecord;
  samples: GroupView[];
  /** The step the page opens it at (set by the page's loader from the rows; absent: its first eval after 0). */
  openStep?: number;
}

/** The path of preset `name`'s shipped recording, relative to the site root. */
export function recordingPath(preset: string): string {
  return `${RECORDINGS_DIR}/${preset}.json`;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_INDEX: Record<string, number> = Object.fromEntries([...B64].map((c, i) => [c, i]));

/** Base64 of bytes (no dependency on Buffer or btoa: runs in Node and the page alike). */
export function bytesToBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63] : "=";
    out += i + 2 < bytes.length ? B64[n & 63] : "=";
  }
  return out;
}

/**
 * Bytes of a base64 string (standard alphabet, `=` padding).
 * @throws Error naming the first character that is not base64, or a bad length.
 */
export function base64ToBytes(text: string): Uint8Array {
  if (text.length % 4 !== 0)
    throw new Error(`base64 of ${text.length} characters (not a multiple of 4)`);
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const c = text[i + j];
      const v = c === "=" && i + j >= text.length - pad ? 0 : B64_INDEX[c];
      if (v === undefined) throw new Error(`'${c}' at ${i + j} is not a base64 character`);
      n = (n << 6) | v;
    }
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

/** A group with its image packed as bytes (values clamped to [0, 1], NaN as 0). */
export function packGroup(g: GroupView): RecordedGroup {
  const { data, height, width, channels } = g.image;
  const bytes = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++)
    bytes[i] = Number.isFinite(data[i]) ? Math.round(Math.min(Math.max(data[i], 0), 1) * 255) : 0;
  return { ...g, image: { height, width, channels, bytes: bytesToBase64(bytes) } };
}

/**
 * A recorded group with its image as floats again.
 * @throws Error when the bytes do not fill height × width × channels.
 */
export function unpackGroup(g: RecordedGroup): GroupView {
  const { height, width, channels, bytes } = g.image;
  const raw = base64ToBytes(bytes);
  if (raw.length !== height * width * channels)
    throw new Error(
      `image of ${raw.length} bytes for ${height}×${width}×${channels} (${height * width * channels})`,
    );
  const data = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) data[i] = raw[i] / 255;
  return { ...g, image: { height, width, channels, data } };
}

/** A number kept to `digits` significant digits (recordings stay small; integers are kept). */
function round(v: number, digits: number): number {
  return Number.isInteger(v) || !Number.isFinite(v) ? v : Number(v.toPrecision(digits));
}

/** A metric row with its values and time rounded to `digits` significant digits. */
export function roundRow(r: MetricRow, digits = 5): MetricRow {
  const values: Record<string, number> = {};
  for (const [k, v] of Object.entries(r.values)) values[k] = round(v, digits);
  return { ...r, time: round(r.time, digits), values };
}

/**
 * The inspector groups a recording keeps (lab choice): the groups of the
 * first seed only (a multi-seed run's other seeds repeat the same kind of
 * rollouts), of every `every`-th step so that at most `maxGroups` remain, and
 * always those of the last step.
 * @param groups the run's groups in arrival order.
 */
export function sampleGroups(groups: readonly GroupView[], maxGroups: number): GroupView[] {
  const firstSeed = groups[0]?.seed;
  const own = groups.filter((g) => g.seed === firstSeed);
  const steps = [...new Set(own.map((g) => g.step))].sort((a, b) => a - b);
  const perStep = Math.max(1, own.length / Math.max(steps.length, 1));
  const every = Math.max(1, Math.ceil((steps.length * perStep) / Math.max(maxGroups, 1)));
  const keep = new Set(steps.filter((_, i) => i % every === 0 || i === steps.length - 1));
  return own.filter((g) => keep.has(g.step));
}

/** The saved-run part of a recording from a finished run's rows and markers. */
export function recordedRun(args: {
  preset: string;
  experiment: Experiment;
  metrics: MetricsData;
  savedAt: number;
}): RecordingFile["run"] {
  const { preset, experiment, metrics, savedAt } = args;
  const lastEval: Record<string, Record<string, number>> = {};
  let lastStep = 0;
  for (const [v, rows] of Object.entries(metrics.byVariant)) {
    const last = rows.eval[rows.eval.length - 1];
    if (last) lastEval[v] = { ...last.values };
    for (const r of [...rows.train, ...rows.eval]) lastStep = Math.max(lastStep, r.step);
  }
  return {
    key: `recording-${preset}`,
    name: `recording of ${preset}`,
    savedAt,
    experiment,
    lastStep,
    lastEval,
    metrics,
  };
}
