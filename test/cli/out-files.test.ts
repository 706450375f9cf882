/**
 * Output files of the CLIs (src/cli/out-files.ts): paths checked before any
 * work, atomic writes, an earlier run's folder never written into, and a
 * failure that leaves earlier files byte-identical with one JSON error line.
 * The CLI cases fail before the GPU is touched, so they take seconds.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli";
import {
  PARTIAL_SUFFIX,
  RunFiles,
  checkInputFile,
  checkOutputFile,
  checkWritableFolder,
  chooseRunFolder,
  writeFileAtomic,
} from "../../src/cli/out-files";

const ROOT = resolve(import.meta.dirname, "../..");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "reward-lab-out-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An earlier run's folder: three files with known bytes. */
function earlierRun(at: string): Map<string, Buffer> {
  mkdirSync(at, { recursive: true });
  const files = new Map<string, Buffer>([
    [
      "metrics.jsonl",
      Buffer.from('{"variant":"rlvr","step":1,"kind":"train","values":{"acc":0.5}}\n'),
    ],
    [
      "metrics.csv",
      Buffer.from("variant,seed,kind,step,time,metric,value\nrlvr,,train,1,0.1,acc,0.5\n"),
    ],
    ["rlvr.ckpt", Buffer.from([1, 2, 3, 4, 5, 250, 251, 252])],
  ]);
  for (const [name, bytes] of files) writeFileSync(join(at, name), bytes);
  return files;
}

function expectUnchanged(at: string, files: Map<string, Buffer>): void {
  expect(readdirSync(at).sort()).toEqual([...files.keys()].sort());
  for (const [name, bytes] of files)
    expect(readFileSync(join(at, name)).equals(bytes), name).toBe(true);
}

describe("output paths, checked before any work", () => {
  it("refuses a path under a file, naming the flag and the file", () => {
    expect(() => checkOutputFile("--out", "/etc/passwd/x.ckpt")).toThrow(
      "--out /etc/passwd/x.ckpt: /etc/passwd is a file, not a folder, so nothing can be written under it",
    );
    writeFileSync(join(dir, "f"), "x");
    expect(() => checkWritableFolder("--out", join(dir, "f"))).toThrow(/is a file, not a folder/);
    expect(() => checkOutputFile("--out", dir)).toThrow(/is a folder; give a file name/);
    expect(() => checkInputFile("--checkpoint", join(dir, "missing.ckpt"))).toThrow(
      `--checkpoint: no such file '${join(dir, "missing.ckpt")}'`,
    );
  });

  it("accepts a new folder (made on the spot) and leaves no probe file", () => {
    checkOutputFile("--out", join(dir, "a", "b", "c.ckpt"));
    expect(readdirSync(join(dir, "a", "b"))).toEqual([]);
  });
});

describe("atomic writes", () => {
  it("replaces a file whole, and a failed write leaves the old one and no temporary", () => {
    const f = join(dir, "x.ckpt");
    writeFileAtomic(f, "first");
    writeFileAtomic(f, new Uint8Array([9, 8, 7]));
    expect([...readFileSync(f)]).toEqual([9, 8, 7]);
    // A folder where the file must go: the rename fails, nothing else changes.
    mkdirSync(join(dir, "y.ckpt"));
    writeFileSync(join(dir, "y.ckpt", "inside"), "kept");
    expect(() => writeFileAtomic(join(dir, "y.ckpt"), "new")).toThrow();
    expect(readdirSync(dir).sort()).toEqual(["x.ckpt", "y.ckpt"]);
    expect(readFileSync(join(dir, "y.ckpt", "inside"), "utf8")).toBe("kept");
  });
});

describe("run folders", () => {
  it("uses a new or empty folder, and puts a run beside an earlier one's files in run-<n>", () => {
    expect(chooseRunFolder("--out", join(dir, "new"), false)).toEqual({
      dir: join(dir, "new"),
      isNew: true,
    });
    const files = earlierRun(join(dir, "old"));
    expect(chooseRunFolder("--out", join(dir, "old"), false).dir).toBe(join(dir, "old", "run-2"));
    expect(chooseRunFolder("--out", join(dir, "old"), false).dir).toBe(join(dir, "old", "run-3"));
    expect(chooseRunFolder("--out", join(dir, "old"), true)).toEqual({
      dir: join(dir, "old"),
      isNew: false,
    });
    for (const [name, bytes] of files)
      expect(readFileSync(join(dir, "old", name)).equals(bytes)).toBe(true);
  });

  it("streams to .partial files and renames them on commit", () => {
    const run = new RunFiles(join(dir, "r"));
    mkdirSync(run.dir);
    run.openStream("metrics.jsonl");
    run.append("metrics.jsonl", "a\n");
    expect(readFileSync(run.path(`metrics.jsonl${PARTIAL_SUFFIX}`), "utf8")).toBe("a\n");
    expect(run.commit([{ name: "rlvr.ckpt", data: new Uint8Array([1]) }])).toEqual([
      "rlvr.ckpt",
      "metrics.jsonl",
    ]);
    expect(readdirSync(run.dir).sort()).toEqual(["metrics.jsonl", "rlvr.ckpt"]);
  });

  it("a failing commit with --force leaves the earlier run's files byte-identical", () => {
    const at = join(dir, "old");
    const files = earlierRun(at);
    mkdirSync(join(at, "grr.ckpt")); // a folder where this run's grr.ckpt must go
    files.set("grr.ckpt", Buffer.alloc(0));
    const run = new RunFiles(at);
    run.openStream("metrics.jsonl");
    run.openStream("metrics.csv", "variant,seed,kind,step,time,metric,value\n");
    run.append("metrics.jsonl", '{"new": true}\n');
    expect(() =>
      run.commit([
        { name: "grr.ckpt", data: new Uint8Array([7]) },
        { name: "rlvr.ckpt", data: new Uint8Array([8]) },
      ]),
    ).toThrow();
    const partial = run.abandon();
    expect(partial.map((p) => p.slice(at.length + 1)).sort()).toEqual([
      "metrics.csv.partial",
      "metrics.jsonl.partial",
    ]);
    for (const p of partial) rmSync(p);
    files.delete("grr.ckpt");
    expect(readdirSync(join(at, "grr.ckpt"))).toEqual([]);
    rmSync(join(at, "grr.ckpt"), { recursive: true });
    expectUnchanged(at, files);
  });
});

/** Runs a CLI as `npm run` does (test/support/cli.ts), with this file's time limit. */
const cli = (script: string, args: string[]) => runCli(script, args, { timeout: 120_000 });

describe("CLIs fail before any work, leave earlier files whole and print a JSON error line", () => {
  it("lab --out <an earlier run's folder> --checkpoint missing.ckpt", () => {
    const at = join(dir, "run");
    const files = earlierRun(at);
    const r = cli("lab.ts", [
      "--preset",
      "smoke",
      "--out",
      at,
      "--checkpoint",
      join(dir, "missing.ckpt"),
    ]);
    expect(r.code).toBe(1);
    expect(r.lastJson).toEqual({
      error: `--checkpoint: no such file '${join(dir, "missing.ckpt")}'`,
    });
    expect(r.stderr).not.toContain("adapter:");
    expectUnchanged(at, files);
  }, 120_000);

  it("lab --checkpoint <a damaged file> names the damage and touches nothing", () => {
    const at = join(dir, "run");
    const files = earlierRun(at);
    const bad = join(dir, "bad.ckpt");
    const good = readFileSync(join(ROOT, "public/checkpoints/sft-digits2-open-hint-small.ckpt"));
    good[Math.floor(good.length / 2)] ^= 4; // inside a tensor's data
    writeFileSync(bad, good);
    const r = cli("lab.ts", ["--preset", "smoke", "--out", at, "--checkpoint", bad]);
    expect(r.code).toBe(1);
    expect(r.lastJson.error).toMatch(
      /^--checkpoint .*bad\.ckpt: checkpoint checksum mismatch in tensor '[a-z0-9.]+'/,
    );
    expectUnchanged(at, files);
  }, 120_000);

  it("lab --eval-size 1000000000 is an error naming the flag, not an out-of-memory abort", () => {
    const r = cli("lab.ts", ["--preset", "smoke", "--eval-size", "1000000000"]);
    expect(r.code).toBe(1);
    expect(r.signal).toBeNull();
    expect(r.lastJson.error).toBe(
      "Invalid experiment config: --eval-size: evalSize: at most 512 (MAX_EVAL_SIZE: the held-out set's size), got 1000000000",
    );
    const g = cli("lab.ts", ["--preset", "smoke", "--group-size", "64", "--batch-prompts", "64"]);
    expect(g.lastJson.error).toMatch(
      /--group-size: algorithm\.groupSize: groupSize × batchPrompts = 64 × 64 = 4096/,
    );
  }, 120_000);

  it("train:sft --out /etc/passwd/x.ckpt fails before training", () => {
    const r = cli("train-sft.ts", ["--out", "/etc/passwd/x.ckpt", "--steps", "600"]);
    expect(r.code).toBe(1);
    expect(r.lastJson).toEqual({
      error:
        "--out /etc/passwd/x.ckpt: /etc/passwd is a file, not a folder, so nothing can be written under it",
    });
    expect(r.stderr).not.toContain("adapter:");
    expect(r.stderr).not.toContain("[sft]");
    const m = cli("train-sft.ts", [
      "--out",
      join(dir, "a.ckpt"),
      "--resume",
      join(dir, "none.ckpt"),
    ]);
    expect(m.lastJson).toEqual({ error: `--resume: no such file '${join(dir, "none.ckpt")}'` });
    expect(existsSync(join(dir, "a.ckpt"))).toBe(false);
  }, 120_000);

  it("claims and stability check their paths first too", () => {
    const at = join(dir, "report");
    const files = earlierRun(at);
    const c = cli("claims.ts", ["--out", at]);
    expect(c.code).toBe(1);
    expect(c.lastJson.error).toMatch(/exists and is not empty/);
    expectUnchanged(at, files);
    const p = cli("claims.ts", ["--out", "/etc/passwd/report"]);
    expect(p.lastJson.error).toMatch(/\/etc\/passwd is a file, not a folder/);
    const s = cli("stability.ts", ["--checkpoint", join(dir, "missing.ckpt")]);
    expect(s.code).toBe(1);
    expect(s.lastJson).toEqual({
      error: `--checkpoint: no such file '${join(dir, "missing.ckpt")}'`,
    });
  }, 120_000);
});
