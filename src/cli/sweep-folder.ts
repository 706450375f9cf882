/**
 * A sweep's folder (`claims --out DIR`, `lab --seeds … --out DIR`): the
 * manifest `sweep.json` (which command, its settings, the code's version
 * and the cold starts, written before any work) and one file per finished
 * unit, `units/<id>.json`, each written atomically the moment the unit is
 * done (src/run/sweep.ts). `--resume DIR` reopens the folder: every setting,
 * the code version and every cold start must be the ones the sweep was
 * started with, else a named error (never a table mixed from two setups).
 * Every file read back is untrusted: its size is bounded, its JSON parsed
 * without prototype keys, and its shape checked.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { assertNoForbiddenKeys, parseUntrustedJson } from "../lib/untrusted";
import type { SweepStore } from "../run/sweep";
import { checkWritableFolder, writeFileAtomic } from "./out-files";

/** File of the manifest in a sweep folder. */
const MANIFEST_FILE = "sweep.json";
/** Largest manifest or unit file read back (lab choice: a 512-prompt, 20-step unit is ~100 KB). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** What a sweep folder was started with (see the file comment). */
export interface SweepManifest {
  format: "reward-lab-sweep";
  version: 1;
  /** The CLI that runs the sweep: "claims" or "lab". */
  command: string;
  /** Every setting that decides the results, JSON values by name. */
  settings: Record<string, unknown>;
  /** codeVersion() of the code that started it. */
  code: string;
  /** Each cold start by the run it starts: where it was read and its SHA-256. */
  coldStarts: Record<string, { source: string; sha256: string }>;
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
    m.version === 1 &&
    typeof m.command === "string" &&
    typeof m.code === "string" &&
    m.settings !== null &&
    typeof m.settings === "object" &&
    m.coldStarts !== null &&
    typeof m.coldStarts === "object";
  if (!ok)
    throw new Error(
      `${flag} ${dir}/${MANIFEST_FILE}: not a reward-lab sweep manifest of version 1 (format, version, command, settings, code, coldStarts)`,
    );
  return m as SweepManifest;
}

/**
 * Compares the manifest a sweep was started with against this run's.
 * @param flagOf the flag that sets a setting (by its path), to name it in the error.
 * @throws Error naming the first setting that differs (then the code
 *   version, then the cold start), with both values.
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
  if (was.code !== now.code)
    throw new Error(
      `${head}: the code changed since the sweep was started (code version ${was.code.slice(0, 12)} then, ${now.code.slice(0, 12)} now); its results would mix two builds, so start a new sweep`,
    );
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

/**
 * Opens a sweep folder and returns its unit store.
 * - `mode` "new": `dir` must be new or empty (an earlier report is never
 *   overwritten) and writable; the manifest is written at once.
 * - `mode` "resume": `dir` must hold a manifest equal to `manifest` (see
 *   checkSame); its unit files are the units already done.
 * @param isValue checks a stored unit's value (untrusted JSON).
 * @throws Error naming the flag, the folder and what is wrong.
 */
export function openSweepFolder<T>(args: {
  dir: string;
  mode: "new" | "resume";
  manifest: SweepManifest;
  isValue: (v: unknown) => v is T;
  flagOf?: (setting: string) => string | undefined;
}): SweepStore<T> {
  const { dir, manifest } = args;
  const flag = args.mode === "new" ? "--out" : "--resume";
  if (args.mode === "new") {
    if (existsSync(dir) && statSync(dir).isDirectory() && readdirSync(dir).length > 0)
      throw new Error(
        `--out ${dir} exists and is not empty; give a new folder (an earlier report is never overwritten), or --resume ${dir} to continue the sweep in it`,
      );
    checkWritableFolder("--out", dir);
    writeFileAtomic(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  } else {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new Error(`--resume ${dir}: no such folder`);
    checkSame(dir, readManifest(dir, flag), manifest, args.flagOf ?? (() => undefined));
    checkWritableFolder("--resume", dir);
  }
  const units = join(dir, "units");
  mkdirSync(units, { recursive: true });
  return {
    load: (id) => {
      const file = join(units, `${id}.json`);
      if (!existsSync(file)) return undefined;
      const what = `${flag} ${dir}: units/${id}.json`;
      const v = readJson(file, what) as { id?: unknown; value?: unknown };
      if (v === null || typeof v !== "object" || v.id !== id || !args.isValue(v.value))
        throw new Error(`${what}: not the result of unit ${id} (a damaged or foreign file)`);
      return v.value;
    },
    save: (id, value) =>
      writeFileAtomic(join(units, `${id}.json`), `${JSON.stringify({ id, value })}\n`),
  };
}
