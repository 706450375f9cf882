/**
 * Checks a saved run read back from IndexedDB before the page uses it: the
 * record is untrusted (another version of the lab, a browser extension or a
 * hand edit may have written it), so it goes through a schema, keys that
 * reach a prototype are refused (src/lib/untrusted.ts), and the experiment is
 * validated by the experiment schema. What comes out is built by the schema,
 * never the stored objects themselves. A shipped recording (./recording.ts)
 * goes through the same checks (checkRecording). Keys renamed since a record
 * was written are read as they are named now (../run/stored-keys.ts).
 */
import { z } from "zod";
import { assertNoForbiddenKeys } from "../lib/untrusted";
import { parseExperiment, type Experiment } from "../settings/experiment";
import { ROLLOUT_CLASSES } from "../settings/credit-table";
import { currentClassKey, currentMetricKeys, migrateStoredRow } from "../run/stored-keys";
import type { MetricsData } from "./run-data";
import type { MetricRow } from "../run/run-types";
import {
  RECORDING_FORMAT,
  RECORDING_VERSION,
  unpackGroup,
  type RecordedGroup,
  type Recording,
} from "./recording";

/** A saved run as IndexedDB holds it (./run-db.ts). */
export interface SavedRun {
  key: string;
  name: string;
  savedAt: number;
  experiment: Experiment;
  lastStep: number;
  lastEval: Record<string, Record<string, number>>;
  metrics: MetricsData;
  /** The run snapshot (encodeSnapshot bytes) to resume from; absent: view only. */
  snapshot?: Uint8Array;
  /** The RL step of `snapshot`. */
  snapshotStep?: number;
}

export type SavedRunSummary = Omit<SavedRun, "metrics" | "snapshot">;

/** Any number, NaN and ±Infinity included (a diverged run's metrics are still worth showing). */
const anyNumber = z.custom<number>((v) => typeof v === "number", "expected a number");
/** Names (variants, metric keys, labels) are short (lab choice: 200 characters). */
const name = z.string().max(200);

/**
 * A metric value: a number, or null read as NaN (JSON writes NaN as null: a
 * rollout class empty at a step has a NaN mean, ../settings/metric-table.ts).
 */
const metricValue = z.union([anyNumber, z.null().transform(() => Number.NaN)]);

const MetricRowSchema = z.object({
  variant: name,
  step: anyNumber,
  time: anyNumber,
  kind: z.enum(["train", "eval"]),
  values: z.record(name, metricValue),
  seed: anyNumber.optional(),
});

const MarkerSchema = z.object({
  variant: name,
  step: anyNumber,
  label: z.string().max(2000),
  fault: z.enum(["device-lost", "update-skipped", "variant-stopped"]).optional(),
  fork: z
    .object({ parent: name, changes: z.record(name, z.union([anyNumber, z.string().max(200)])) })
    .optional(),
});

const MetricsSchema = z.object({
  byVariant: z.record(
    name,
    z.object({ train: z.array(MetricRowSchema), eval: z.array(MetricRowSchema) }),
  ),
  keys: z.object({ train: z.array(name), eval: z.array(name) }),
  markers: z.array(MarkerSchema),
  version: anyNumber,
});

const SummarySchema = z.object({
  key: z.string().max(200),
  name: z.string().max(2000),
  savedAt: anyNumber,
  experiment: z.unknown(),
  lastStep: anyNumber,
  lastEval: z.record(name, z.record(name, anyNumber)),
  snapshotStep: z.number().int().min(0).optional(),
});

function problem(where: string, error: z.ZodError): Error {
  const msg = error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
  return new Error(`${where} could not be read: ${msg}`);
}

function summaryOf(raw: unknown, where: string): SavedRunSummary {
  assertNoForbiddenKeys(raw, where);
  const r = SummarySchema.safeParse(raw);
  if (!r.success) throw problem(where, r.error);
  let experiment: SavedRun["experiment"];
  try {
    experiment = parseExperiment(r.data.experiment);
  } catch (e) {
    throw new Error(`${where} could not be read: ${(e as Error).message}`);
  }
  return { ...r.data, experiment };
}

/**
 * A saved run's summary (everything but the metric rows), checked.
 * @throws Error naming the record and the first problems (path: message).
 */
export function checkSavedRunSummary(raw: unknown): SavedRunSummary {
  return summaryOf(raw, savedRunLabel(raw));
}

/**
 * A whole saved run, checked (summary, then every metric row and marker).
 * @throws Error naming the record and the first problems (path: message).
 */
export function checkSavedRun(raw: unknown): SavedRun {
  const where = savedRunLabel(raw);
  const summary = summaryOf(raw, where);
  const m = MetricsSchema.safeParse((raw as { metrics?: unknown }).metrics);
  if (!m.success) throw problem(`${where} (metrics)`, m.error);
  // The snapshot's own checks (checksum, sizes, finite values) run when it is resumed (decodeSnapshot).
  const snapshot = (raw as { snapshot?: unknown }).snapshot;
  if (snapshot !== undefined && !(snapshot instanceof Uint8Array))
    throw new Error(`${where} could not be read: snapshot: expected bytes`);
  if ((snapshot === undefined) !== (summary.snapshotStep === undefined))
    throw new Error(`${where} could not be read: snapshot and snapshotStep go together`);
  const metrics = currentMetrics(m.data, `${where} (metrics)`);
  return snapshot === undefined ? { ...summary, metrics } : { ...summary, metrics, snapshot };
}

/**
 * Checked metrics with renamed keys read under their current names (rows
 * through migrateStoredRow, the key lists mapped and kept once each).
 * @throws Error naming the row that holds a key under both names.
 */
function currentMetrics(m: z.infer<typeof MetricsSchema>, where: string): MetricsData {
  const byVariant: MetricsData["byVariant"] = {};
  for (const [variant, rows] of Object.entries(m.byVariant))
    byVariant[variant] = {
      train: rows.train.map((r, i) =>
        migrateStoredRow(r, `${where} byVariant.${variant}.train[${i}]`),
      ),
      eval: rows.eval.map((r, i) =>
        migrateStoredRow(r, `${where} byVariant.${variant}.eval[${i}]`),
      ),
    };
  const keys = { train: currentMetricKeys(m.keys.train), eval: currentMetricKeys(m.keys.eval) };
  return { byVariant, keys, markers: m.markers, version: m.version };
}

/** "saved run 'name'" for messages, from whatever the record holds. */
function savedRunLabel(raw: unknown): string {
  const n =
    raw !== null && typeof raw === "object" && Object.hasOwn(raw, "name")
      ? (raw as { name?: unknown }).name
      : undefined;
  return typeof n === "string" ? `saved run '${n.slice(0, 60)}'` : "a saved run";
}

/** Rollout texts, questions and judge replies are bounded (lab choice: 20,000 characters). */
const text = z.string().max(20_000);

const RolloutSchema = z.object({
  text,
  total: anyNumber,
  components: z.record(name, anyNumber),
  verifierPassed: z.boolean(),
  judgment: z.enum(["consistent", "inconsistent", "na"]),
  luckyGuess: z.boolean().optional(),
  // A class recorded under its earlier key is read under its current one.
  rolloutClass: z
    .preprocess(
      (v) => (typeof v === "string" ? currentClassKey(v) : v),
      z.enum(ROLLOUT_CLASSES.map((c) => c.key)),
    )
    .optional(),
  rank: anyNumber.nullable().optional(),
  advantage: anyNumber,
  unscorable: z.boolean().optional(),
  scs: z
    .object({
      keptTokens: anyNumber,
      keptText: text,
      continuations: z
        .array(z.object({ answer: z.string().max(200).nullable(), sigma: anyNumber }))
        .max(64),
    })
    .optional(),
  reask: z
    .object({
      options: z.record(name, z.string().max(200)),
      answer: z.string().max(200).nullable(),
      firstAnswer: z.string().max(200).nullable().optional(),
    })
    .optional(),
  stepScores: z.array(anyNumber).max(64).optional(),
});

/** Largest recorded image side (lab choice: the task images are 28 × 56). */
const MAX_IMAGE_SIDE = 256;

const RecordedGroupSchema = z.object({
  variant: name,
  step: anyNumber,
  promptId: name,
  question: text,
  options: z.record(name, z.string().max(200)).nullable(),
  answer: z.string().max(200),
  image: z.object({
    height: z.number().int().min(1).max(MAX_IMAGE_SIDE),
    width: z.number().int().min(1).max(MAX_IMAGE_SIDE),
    channels: z.union([z.literal(1), z.literal(3), z.literal(4)]),
    bytes: z.string().max(4 * MAX_IMAGE_SIDE * MAX_IMAGE_SIDE * 2),
  }),
  rollouts: z.array(RolloutSchema).max(64),
  judgeReply: text.optional(),
  seed: anyNumber.optional(),
});

/** Most groups one recording holds (lab choice: recordings keep a sample). */
const MAX_RECORDED_GROUPS = 2000;

const RecordingSchema = z.object({
  format: z.literal(RECORDING_FORMAT),
  version: z.literal(RECORDING_VERSION),
  preset: name,
  command: z.string().max(2000),
  run: z.unknown(),
  samples: z.array(RecordedGroupSchema).max(MAX_RECORDED_GROUPS),
});

/**
 * A recording file (src/store/recording.ts), checked: its run goes through
 * checkSavedRun (the saved runs' checks), its groups through their own
 * schema, and every image is unpacked and its size checked.
 * @param what names the file in errors ("recording 'drift'").
 * @throws Error naming the file and the first problems (path: message).
 */
export function checkRecording(raw: unknown, what: string): Recording {
  assertNoForbiddenKeys(raw, what);
  const r = RecordingSchema.safeParse(raw);
  if (!r.success) throw problem(what, r.error);
  let run: SavedRun;
  try {
    run = checkSavedRun(r.data.run);
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`);
  }
  if (run.snapshot !== undefined)
    throw new Error(`${what} could not be read: run: a recording holds no snapshot`);
  const samples = r.data.samples.map((g, i) => {
    try {
      return unpackGroup(g as RecordedGroup);
    } catch (e) {
      throw new Error(`${what} could not be read: samples.${i}.image: ${(e as Error).message}`);
    }
  });
  return { preset: r.data.preset, command: r.data.command, run, samples };
}

/**
 * The metric rows of a metrics.jsonl file (one JSON row per line, as `lab
 * --out` and `claims` write them; blank lines skipped), each through the
 * saved run's row schema and the stored-key migration. Linear in the text.
 * @throws Error naming `what` and the line of the first line that is not JSON or not a metric row.
 */
export function checkMetricRowsJsonl(text: string, what: string): MetricRow[] {
  const rows: MetricRow[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new Error(`${what}, line ${i + 1}: not JSON`);
    }
    assertNoForbiddenKeys(raw, `${what}, line ${i + 1}`);
    const r = MetricRowSchema.safeParse(raw);
    if (!r.success)
      throw new Error(
        `${what}, line ${i + 1}: not a metric row (${r.error.issues[0]?.message ?? "invalid"})`,
      );
    rows.push(migrateStoredRow(r.data, `${what}, line ${i + 1}`));
  }
  return rows;
}
