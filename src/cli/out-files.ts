/**
 * Output files of the CLIs, written so that nothing earlier is lost:
 * paths are checked before any work, every file is written under a
 * temporary name and renamed into place, and a run folder that already
 * holds files is never written into without `--force` (the run goes to a
 * new subfolder instead).
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** Suffix of a file still being written (renamed away when complete). */
export const PARTIAL_SUFFIX = ".partial";

let tempCounter = 0;

/** A temporary name beside `file`, unique in this process. */
function tempNameFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${tempCounter++}.tmp`);
}

/** The deepest existing ancestor of an absolute path (the path itself if it exists). */
function existingAncestor(path: string): string {
  let p = path;
  while (!existsSync(p)) {
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  return p;
}

/**
 * Checks that a folder can be created (if missing) and written, by creating
 * it and writing and removing a probe file: the only check that sees
 * permissions, read-only mounts and a file standing where a folder must be.
 * @param flag names the option in the error (e.g. "--out").
 * @param shown the path as the user gave it, for the error (default `dir`).
 * @throws Error naming the flag, the path and why it cannot be written.
 */
export function checkWritableFolder(flag: string, dir: string, shown = dir): void {
  const abs = resolve(dir);
  const ancestor = existingAncestor(abs);
  if (!statSync(ancestor).isDirectory())
    throw new Error(
      `${flag} ${shown}: ${ancestor} is a file, not a folder, so nothing can be written under it`,
    );
  if (existsSync(abs) && !statSync(abs).isDirectory())
    throw new Error(`${flag} ${shown}: ${abs} is a file, not a folder`);
  try {
    mkdirSync(abs, { recursive: true });
    const probe = tempNameFor(join(abs, "probe"));
    closeSync(openSync(probe, "wx"));
    rmSync(probe);
  } catch (e) {
    throw new Error(`${flag} ${shown}: cannot write there (${(e as Error).message})`);
  }
}

/**
 * Checks, before any work, that `file` can be written: its folder exists or
 * can be made and is writable, and `file` is not a folder.
 * @throws Error naming the flag, the path and why it cannot be written.
 */
export function checkOutputFile(flag: string, file: string): void {
  const abs = resolve(file);
  if (existsSync(abs) && statSync(abs).isDirectory())
    throw new Error(`${flag} ${file}: ${abs} is a folder; give a file name`);
  checkWritableFolder(flag, dirname(abs), file);
}

/**
 * Checks that an input file exists and is a readable file, before any work.
 * @throws Error naming the flag and the path.
 */
export function checkInputFile(flag: string, file: string): void {
  if (!existsSync(file)) throw new Error(`${flag}: no such file '${file}'`);
  if (!statSync(file).isFile()) throw new Error(`${flag}: '${file}' is not a file`);
}

/**
 * Writes `data` to `file` atomically: a temporary file in the same folder,
 * flushed to disk, then renamed over `file`. A reader sees the old file or
 * the new one, never a part; on failure the old file is unchanged and the
 * temporary file removed.
 * @throws the underlying file-system error.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = tempNameFor(file);
  try {
    const fd = openSync(tmp, "wx");
    try {
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** True when `dir` exists and holds at least one entry. */
function nonEmpty(dir: string): boolean {
  return existsSync(dir) && statSync(dir).isDirectory() && readdirSync(dir).length > 0;
}

/**
 * The folder a run writes to: `dir` itself when it is new or empty (or with
 * `force`), else the first free `dir/run-<n>` (n = 2, 3, …), so an earlier
 * run's files are never touched. The folder is created and checked writable.
 * @throws Error naming the flag when the folder cannot be written.
 */
export function chooseRunFolder(
  flag: string,
  dir: string,
  force: boolean,
): { dir: string; isNew: boolean } {
  checkWritableFolder(flag, dir);
  if (force || !nonEmpty(dir)) return { dir, isNew: !nonEmpty(dir) };
  for (let n = 2; ; n++) {
    const sub = join(dir, `run-${n}`);
    if (!existsSync(sub)) {
      checkWritableFolder(flag, sub);
      return { dir: sub, isNew: true };
    }
  }
}

/**
 * The files of one run in its folder. Streams (metrics) are appended to
 * `<name>.partial` while the run goes, and progress files (the run
 * snapshot) are replaced atomically as `<name>.partial`; `commit` writes the
 * final files (each atomically) and then renames the streams and progress
 * files to their names. Until `commit`, no file of an earlier run in the
 * folder is touched; after a failure the `.partial` files hold this run's
 * progress.
 */
export class RunFiles {
  private readonly streams = new Map<string, number>();
  private readonly progress = new Set<string>();

  constructor(readonly dir: string) {}

  /** Path of `name` inside the run folder. */
  path(name: string): string {
    return join(this.dir, name);
  }

  /**
   * Starts (or truncates) the stream `<name>.partial` with `header`.
   * @throws the file-system error.
   */
  openStream(name: string, header = ""): void {
    const fd = openSync(this.path(name + PARTIAL_SUFFIX), "w");
    this.streams.set(name, fd);
    if (header) writeSync(fd, header);
  }

  /**
   * Writes the progress file `<name>.partial` atomically, replacing the one
   * before (a reader sees a whole old or a whole new file).
   * @throws the file-system error.
   */
  writeProgress(name: string, data: string | Uint8Array): void {
    writeFileAtomic(this.path(name + PARTIAL_SUFFIX), data);
    this.progress.add(name);
  }

  /** Appends text to an open stream. */
  append(name: string, text: string): void {
    const fd = this.streams.get(name);
    if (fd === undefined) throw new Error(`RunFiles: stream '${name}' is not open`);
    writeSync(fd, text);
  }

  /**
   * Writes every file in `files` atomically (all serialized by the caller
   * before this is called), then closes the streams and renames them from
   * `.partial` to their names.
   * @throws the first file-system error (files renamed before it stay).
   */
  commit(files: { name: string; data: string | Uint8Array }[]): string[] {
    for (const f of files) writeFileAtomic(this.path(f.name), f.data);
    const names = [...this.streams.keys(), ...this.progress];
    this.closeStreams(true);
    this.progress.clear();
    for (const name of names) renameSync(this.path(name + PARTIAL_SUFFIX), this.path(name));
    return [...files.map((f) => f.name), ...names];
  }

  /** Closes the streams (kept as `.partial`, with the progress files), after a failure. Returns their paths. */
  abandon(): string[] {
    const names = [...this.streams.keys(), ...this.progress].map((n) =>
      this.path(n + PARTIAL_SUFFIX),
    );
    this.closeStreams(false);
    this.progress.clear();
    return names;
  }

  private closeStreams(sync: boolean): void {
    for (const fd of this.streams.values()) {
      if (sync) fsyncSync(fd);
      closeSync(fd);
    }
    this.streams.clear();
  }
}

/**
 * Ends a CLI: exit 0 on success; on failure prints the message on stderr as
 * `<name>: message` and one JSON line `{"error": message, …extra}` on stdout
 * (what a script reading the last line sees), then exits 1.
 */
export function finishCli(
  name: string,
  run: Promise<void>,
  extra: () => Record<string, unknown> = () => ({}),
): void {
  run.then(
    () => process.exit(0),
    (e) => {
      const message = e instanceof Error ? e.message : String(e);
      console.error(`${name}: ${message}`);
      process.stdout.write(`${JSON.stringify({ error: message, ...extra() })}\n`);
      process.exit(1);
    },
  );
}
