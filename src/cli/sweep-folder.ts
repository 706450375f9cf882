/**
 * A sweep's folder (`claims --out DIR`, `lab --seeds … --out DIR`): the
 * manifest `sweep.json` (which command, its settings, the code's version,
 * the cold starts and the canary, written before any unit) and one file per
 * finished unit, `units/<id>.json`, each written atomically the moment the
 * unit is done (src/run/sweep.ts). The folder is small (a few KB to a few
 * hundred KB per unit) and may live in the repository (docs/results/<sweep>/),
 * committed unit by unit, so a sweep moves between machines and sittings.
 *
 * `--resume DIR` reopens the folder: every setting and every cold start must
 * be the ones the sweep was started with, else a named error (never a table
 * mixed from two setups). The code may have changed when its numbers cannot
 * have: the canary (a tiny fixed-seed run of every unit kind, its figures
 * kept in the manifest bit for bit) runs again and must give the same
 * values, else the resume is refused, naming the first value that differs.
 * A unit file that cannot be read back (half-written, cut off by a commit
 * or a copy) is set aside as `units/<id>.json.damaged[.N]` and its unit
 * runs again. Every file read back is untrusted: its size is bounded, its
 * JSON parsed without prototype keys, and its shape checked. Metric keys
 * renamed since a unit or canary was written are read under their current
 * names (src/run/stored-keys.ts); the files are never rewritten.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { assertNoForbiddenKeys, parseUntrustedJson } from "../lib/untrusted";
import { currentMetricKey, migrateStoredRow } from "../run/stored-keys";
import type { MetricRow } from "../run/run-types";
import type { SweepStore } from "../run/sweep";
import { checkWritableFolder, writeFileAtomic } from "./out-files";

/** File of the manifest in a sweep folder. */
const MANIFEST_FILE = "sweep.json";
/** Largest manifest or unit file read back (lab choice: a 512-prompt, 20-step unit is ~100 KB). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A canary's figures: value path → number (NaN kept as null), every figure
 * of its units that the code decides (wall times and cost metrics left out).
 */
export type CanaryValues = Record<string, number | null>;

/** What a sweep folder was started with (see the file comment). */
export interface SweepManifest {
  format: "reward-lab-sweep";
  /** 1: no canary (a resume needs the same code version); 2: with a canary. */
  version: 1 | 2;
  /** The CLI that runs the sweep: "claims" or "lab". */
  command: string;
  /** Every setting that decides the results, JSON values by name. */
  settings: Record<string, unknown>;
  /** codeVersion() of the code that started it. */
  code: string;
  /** Each cold start by the run it starts: where it was read and its SHA-256. */
  coldStarts: Record<string, { source: string; sha256: string }>;
  /** Version 2: the canary's figures when the sweep started. */
  canary?: CanaryValues;
  /** Version 2: each resume under another code version whose canary matched (`added`: values only the new code gives). */
  resumes?: { code: string; at: string; values: number; added?: number }[];
}

/** Flattens a JSON value to `path → JSON text` of its leaves (arrays are leaves). */
function flatten(value: unknown, path: string, out: Map<string, string>): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, path ? `${path}.${k}` : k, out);
    return;
  }
  out.set(path, JSON.stringify(value));
}

function readJson(file: string, what: string): unknown {
  const size = statSync(file).size;
  if (size > MAX_FILE_BYTES)
    throw new Error(
      `${what}: ${size} bytes, over the ${MAX_FILE_BYTES}-byte limit of a sweep file`,
    );
  const value = parseUntrustedJson(readFileSync(file, "utf8"), what);
  assertNoForbiddenKeys(value, what);
  return value;
}

/**
 * The manifest of a sweep folder, checked for shape.
 * @throws Error naming the file and what is wrong.
 */
function readManifest(dir: string, flag: string): SweepManifest {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file))
    throw new Error(
      `${flag} ${dir}: no ${MANIFEST_FILE} there, so it is not a sweep folder (a sweep's --out writes one first)`,
    );
  const m = readJson(file, `${flag} ${dir}/${MANIFEST_FILE}`) as Partial<SweepManifest>;
  const ok =
    m !== null &&
    typeof m === "object" &&
    m.format === "reward-lab-sweep" &&
    (m.version === 1 || (m.version === 2 && isCanaryValues(m.canary))) &&
    typeof m.command === "string" &&
    typeof m.code === "string" &&
    m.settings !== null &&
    typeof m.settings === "object" &&
    m.coldStarts !== null &&
    typeof m.coldStarts === "object";
  if (!ok)
    throw new Error(
      `${flag} ${dir}/${MANIFEST_FILE}: not a reward-lab sweep manifest of version 1 or 2 (format, version, command, settings, code, coldStarts; version 2 also canary)`,
    );
  return m as SweepManifest;
}

/**
 * Compares the manifest a sweep was started with against this run's, but
 * for the code version (the canary's part, see openSweepFolder).
 * @param flagOf the flag that sets a setting (by its path), to name it in the error.
 * @throws Error naming the first setting that differs (then the cold
 *   start), with both values.
 */
function checkSame(
  dir: string,
  was: SweepManifest,
  now: SweepManifest,
  flagOf: (setting: string) => string | undefined,
): void {
  const head = `--resume ${dir}`;
  if (was.command !== now.command)
    throw new Error(
      `${head}: the folder holds a '${was.command}' sweep, not a '${now.command}' one`,
    );
  const a = new Map<string, string>();
  const b = new Map<string, string>();
  flatten(was.settings, "", a);
  flatten(now.settings, "", b);
  for (const key of [...new Set([...b.keys(), ...a.keys()])]) {
    const then = a.get(key) ?? "(not set)";
    const nowV = b.get(key) ?? "(not set)";
    if (then === nowV) continue;
    const flag = flagOf(key);
    throw new Error(
      `${head}: setting '${key}'${flag ? ` (${flag})` : ""} differs: the sweep was started with ${then}, this run has ${nowV}; give the same settings to resume it, or a new --out for a new sweep`,
    );
  }
  for (const key of [
    ...new Set([...Object.keys(now.coldStarts), ...Object.keys(was.coldStarts)]),
  ]) {
    const x = was.coldStarts[key];
    const y = now.coldStarts[key];
    if (x?.sha256 === y?.sha256 && x?.source === y?.source) continue;
    throw new Error(
      `${head}: the cold start of the ${key} run differs: the sweep was started from ${x ? `${x.source} (sha256 ${x.sha256.slice(0, 12)})` : "none"}, this run has ${y ? `${y.source} (sha256 ${y.sha256.slice(0, 12)})` : "none"}`,
    );
  }
}

function isCanaryValues(v: unknown): v is CanaryValues {
  return (
    v !== null &&
    typeof v === "object" &&
    !Array.isArray(v) &&
    Object.values(v).every((x) => x === null || typeof x === "number")
  );
}

/**
 * A stored canary with its metric keys as the lab names them now (a path
 * ends in its metric key, and only `credit/…` keys were renamed), in order.
 */
function currentCanary(canary: CanaryValues): CanaryValues {
  const out: CanaryValues = {};
  for (const [path, v] of Object.entries(canary)) {
    const at = path.indexOf("/credit/");
    out[at < 0 ? path : `${path.slice(0, at + 1)}${currentMetricKey(path.slice(at + 1))}`] = v;
  }
  return out;
}

/**
 * A unit value read back, its metric rows (`rows`, in both sweeps' units)
 * with their keys as the lab names them now.
 * @throws Error (from migrateStoredRow) naming a row that holds a key under both names.
 */
function currentUnitValue<T>(value: T, what: string): T {
  const rows = (value as { rows?: unknown }).rows;
  if (!Array.isArray(rows)) return value;
  return {
    ...value,
    rows: rows.map((r: MetricRow, i) => migrateStoredRow(r, `${what}: rows[${i}]`)),
  };
}

/**
 * The first stored canary value (in the order of `was`) that the new code
 * gives otherwise or no longer gives, or null when every one is the same
 * bit for bit. A path only `now` has is a value the new code adds (a new
 * metric): it changes none of the stored numbers, so it is not a difference
 * (see canaryAdded).
 */
export function canaryDiff(
  was: CanaryValues,
  now: CanaryValues,
): { path: string; was: string; now: string } | null {
  const show = (v: number | null | undefined) =>
    v === undefined ? "(absent)" : v === null ? "NaN" : String(v);
  for (const path of Object.keys(was)) {
    const a = was[path];
    const b = now[path];
    if (a === b || (a !== undefined && b !== undefined && Object.is(a, b))) continue;
    return { path, was: show(a), now: show(b) };
  }
  return null;
}

/** The canary paths only the new code gives (new metrics), in its order. */
export function canaryAdded(was: CanaryValues, now: CanaryValues): string[] {
  return Object.keys(now).filter((k) => !Object.hasOwn(was, k));
}

/**
 * Whether a folder entry is more than a note written before the sweep (a
 * markdown file no report writes, such as the plan docs/results/horizon/PLAN.md
 * fixed before its runs): a new sweep may start beside notes only.
 */
function isNotNote(name: string): boolean {
  return !name.endsWith(".md") || name === "claims.md";
}

/** A free name beside `file` for a damaged copy: FILE.damaged, FILE.damaged.2, … */
function asideName(file: string): string {
  let name = `${file}.damaged`;
  for (let n = 2; existsSync(name); n++) name = `${file}.damaged.${n}`;
  return name;
}

/**
 * Opens a sweep folder and returns its unit store.
 * - `mode` "new": `dir` must be new or hold only notes (markdown files
 *   other than claims.md, e.g. the sweep's plan; an earlier report is never
 *   overwritten) and writable; the canary runs, then the manifest (version
 *   2, with the canary's figures) is written.
 * - `mode` "resume": `dir` must hold a manifest with this run's settings and
 *   cold starts (see checkSame). When the code version differs, the canary
 *   runs again and must give the stored figures bit for bit (a version-1
 *   folder has none: the code must be the same); a match is recorded in the
 *   manifest's `resumes`. Its unit files are the units already done.
 * A unit file that cannot be read back is set aside (see the file comment)
 * and reported on `report`; its unit runs again.
 * @param isValue checks a stored unit's value (untrusted JSON).
 * @param canary runs the sweep's canary on this build (only called when needed).
 * @throws Error naming the flag, the folder and what is wrong, or the first canary value that differs.
 */
export async function openSweepFolder<T>(args: {
  dir: string;
  mode: "new" | "resume";
  manifest: SweepManifest;
  isValue: (v: unknown) => v is T;
  canary: () => Promise<CanaryValues>;
  report: (line: string) => void;
  flagOf?: (setting: string) => string | undefined;
}): Promise<SweepStore<T>> {
  const { dir, report } = args;
  const flag = args.mode === "new" ? "--out" : "--resume";
  const manifestFile = join(dir, MANIFEST_FILE);
  if (args.mode === "new") {
    if (existsSync(dir) && statSync(dir).isDirectory() && readdirSync(dir).some(isNotNote))
      throw new Error(
        `--out ${dir} exists and is not empty (beside notes, markdown files other than claims.md); give a new folder (an earlier report is never overwritten), or --resume ${dir} to continue the sweep in it`,
      );
    checkWritableFolder("--out", dir);
    report("[sweep] running the canary (a tiny fixed-seed run of every unit kind)");
    const canary = await args.canary();
    const manifest: SweepManifest = { ...args.manifest, version: 2, canary };
    writeFileAtomic(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  } else {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new Error(`--resume ${dir}: no such folder`);
    const was = readManifest(dir, flag);
    checkSame(dir, was, args.manifest, args.flagOf ?? (() => undefined));
    checkWritableFolder("--resume", dir);
    const now = args.manifest.code;
    if (was.code !== now) {
      const head = `--resume ${dir}: the code changed since the sweep was started (code version ${was.code.slice(0, 12)} then, ${now.slice(0, 12)} now)`;
      if (!was.canary)
        throw new Error(
          `${head} and the folder (version 1) has no canary to show its numbers are the same; start a new sweep`,
        );
      report(`[sweep] ${head.slice(`--resume ${dir}: `.length)}: running the canary again`);
      const canary = await args.canary();
      const d = canaryDiff(currentCanary(was.canary), canary);
      if (d)
        throw new Error(
          `${head} and its canary differs at ${d.path}: ${d.was} then, ${d.now} now; the new code gives other numbers, so its units would not belong to this sweep: start a new sweep`,
        );
      const stored = currentCanary(was.canary);
      const added = canaryAdded(stored, canary);
      const n = Object.keys(stored).length;
      report(
        `[sweep] the canary's ${n} stored values are the same bit for bit: going on under the new code${added.length ? `; it also gives ${added.length} values the stored canary lacks (new metrics, e.g. ${added[0]}), which the units made before do not carry` : ""}`,
      );
      const resumes = [
        ...(was.resumes ?? []),
        {
          code: now,
          at: new Date().toISOString(),
          values: n,
          ...(added.length ? { added: added.length } : {}),
        },
      ];
      writeFileAtomic(manifestFile, `${JSON.stringify({ ...was, resumes }, null, 2)}\n`);
    }
  }
  const units = join(dir, "units");
  mkdirSync(units, { recursive: true });
  return {
    load: (id) => {
      const file = join(units, `${id}.json`);
      if (!existsSync(file)) return undefined;
      const what = `${flag} ${dir}: units/${id}.json`;
      let why: string | undefined;
      try {
        const v = readJson(file, what) as { id?: unknown; value?: unknown };
        if (v !== null && typeof v === "object" && v.id === id && args.isValue(v.value))
          return currentUnitValue(v.value, what);
        why = `not the result of unit ${id}`;
      } catch (e) {
        why = (e as Error).message;
      }
      const aside = asideName(file);
      renameSync(file, aside);
      report(
        `[sweep] ${what} could not be read back (${why}); set aside as units/${aside.slice(units.length + 1)}, the unit runs again`,
      );
      return undefined;
    },
    save: (id, value) =>
      writeFileAtomic(join(units, `${id}.json`), `${JSON.stringify({ id, value })}\n`),
  };
}
