/**
 * The code's version, as a resumed sweep checks it: a SHA-256 over every
 * file that decides a run's figures (src/, shaders/, the register hook and
 * the locked dependency versions), by sorted path. Any edit, a comment
 * included, is a new version (lab choice: a resumed table never mixes two
 * builds; a comment-only change costs a new sweep).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./node-run";

/** Folders and files the version covers, relative to the repository root. */
const COVERED = ["src", "shaders", "scripts/register-raw.mjs", "package-lock.json"];

function filesUnder(path: string, out: string[]): void {
  const st = statSync(path);
  if (st.isFile()) {
    out.push(path);
    return;
  }
  for (const name of readdirSync(path)) filesUnder(join(path, name), out);
}

let cached: string | undefined;

/**
 * The code version of this checkout (hex, 64 characters), computed once per process.
 * @throws Error when a covered path is missing (not a full checkout).
 */
export function codeVersion(): string {
  if (cached) return cached;
  const files: string[] = [];
  for (const p of COVERED) filesUnder(join(REPO_ROOT, p), files);
  const rel = files.map((f) => relative(REPO_ROOT, f).split("\\").join("/")).sort();
  const h = createHash("sha256");
  for (const f of rel) {
    const bytes = readFileSync(join(REPO_ROOT, f));
    h.update(`${f}\0${bytes.length}\0`);
    h.update(bytes);
  }
  cached = h.digest("hex");
  return cached;
}

/** SHA-256 of a file's bytes (hex): a cold start's identity in a sweep's manifest. */
export function fileSha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
