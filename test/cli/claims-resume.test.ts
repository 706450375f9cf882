// `claims --out DIR` is a resumable sweep: a 2-seed, 2-step run (`--size tiny`,
// two claims: RLVR and GRR under seeds 1 and 2, four seed-variants) killed
// with SIGKILL right after its first seed-variant is written, then resumed
// with --resume DIR, writes a claims.json byte for byte the one of an
// uninterrupted run, and the same metric rows (wall-clock fields aside). A
// resume with a changed setting, a foreign cold start or another code
// version is refused with an error that names it, and the folder is left as
// it was.
import { describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { canonicalClaims } from "./claims-output";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = ["--import", "tsx", "--import", "./scripts/register-raw.mjs", "src/cli/claims.ts"];
const ARGS = ["--size", "tiny", "--claims", "rlvr-drift,grr-incr", "--quiet"];

function claims(args: string[], timeout = 900_000) {
  return spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: "utf8", timeout });
}

/** Starts the sweep and SIGKILLs it once stderr says its first seed-variant is done; resolves with stderr. */
function killAfterFirstSeedVariant(
  out: string,
): Promise<{ stderr: string; signal: string | null }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...CLI, ...ARGS, "--out", out], { cwd: ROOT });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
      if (/seed-variant 1 of 4/.test(stderr)) child.kill("SIGKILL");
    });
    child.on("error", fail);
    child.on("close", (_code, signal) => done({ stderr, signal }));
  });
}

describe("npm run claims -- --out DIR / --resume DIR", () => {
  it("killed after the first seed-variant and resumed: the same claims.json as an uninterrupted run", async () => {
    const base = mkdtempSync(join(tmpdir(), "reward-lab-resume-"));
    try {
      const whole = join(base, "whole");
      const res = claims([...ARGS, "--out", whole]);
      expect(res.status, `stderr:\n${res.stderr}`).toBe(0);
      // Progress on stderr (with --quiet): the estimate first, then each seed-variant with the time left.
      expect(res.stderr).toMatch(/\[sweep\] estimated run time: about .+ for 4 seed-variants/);
      for (let i = 1; i <= 4; i++)
        expect(res.stderr).toMatch(
          new RegExp(`seed-variant ${i} of 4 \\(.+\\) done in .+; about .+ left`),
        );

      const cut = join(base, "cut");
      const killed = await killAfterFirstSeedVariant(cut);
      expect(killed.signal).toBe("SIGKILL");
      // What the killed sweep left: its manifest and the finished units, no report yet.
      expect(existsSync(join(cut, "sweep.json"))).toBe(true);
      expect(existsSync(join(cut, "claims.json"))).toBe(false);
      const units = readdirSync(join(cut, "units")).filter((f) => f.endsWith(".json"));
      expect(units).toContain("rl.default.s1.rlvr.json");
      expect(units.filter((f) => f.startsWith("rl.")).length).toBeLessThan(4);

      const resumed = claims([...ARGS, "--resume", cut]);
      expect(resumed.status, `stderr:\n${resumed.stderr}`).toBe(0);
      expect(resumed.stderr).toMatch(/\[sweep\] [1-3] of 4 seed-variants .* were done already/);
      expect(readFileSync(join(cut, "claims.json"), "utf8")).toBe(
        readFileSync(join(whole, "claims.json"), "utf8"),
      );
      expect(canonicalClaims(cut)).toEqual(canonicalClaims(whole));
      const lastLine = (s: string) => JSON.parse(s.trim().split("\n").at(-1)!);
      expect(lastLine(resumed.stdout).claims).toEqual(lastLine(res.stdout).claims);

      // A changed setting is named; the folder is untouched.
      const before = readFileSync(join(cut, "sweep.json"), "utf8");
      const seeds = claims([...ARGS, "--seeds", "1,3", "--resume", cut]);
      expect(seeds.status).toBe(1);
      expect(seeds.stderr).toMatch(
        /--resume .*: setting 'seeds' \(--seeds\) differs: the sweep was started with \[1,2\], this run has \[1,3\]/,
      );
      const size = claims(["--size", "ci", "--claims", "rlvr-drift,grr-incr", "--resume", cut]);
      expect(size.status).toBe(1);
      expect(size.stderr).toMatch(
        /setting 'size' \(--size\) differs: the sweep was started with "tiny", this run has "ci"/,
      );
      const which = claims(["--size", "tiny", "--claims", "rlvr-drift", "--resume", cut]);
      expect(which.stderr).toMatch(/setting 'claims' \(--claims\) differs/);
      // Another cold start for the default run.
      const other = join(ROOT, "public/checkpoints/sft-digits2-open-small.ckpt");
      const cold = claims([...ARGS, "--checkpoint", other, "--resume", cut]);
      expect(cold.status).toBe(1);
      expect(cold.stderr).toMatch(
        /the cold start of the default run differs: the sweep was started from public\/checkpoints\/.+, this run has public\/checkpoints\/sft-digits2-open-small\.ckpt/,
      );
      // Another code version (the manifest edited as if an older build had started it).
      const manifest = JSON.parse(before);
      writeFileSync(join(cut, "sweep.json"), JSON.stringify({ ...manifest, code: "0".repeat(64) }));
      const code = claims([...ARGS, "--resume", cut]);
      expect(code.status).toBe(1);
      expect(code.stderr).toMatch(
        /the code changed since the sweep was started \(code version 000000000000 then/,
      );
      writeFileSync(join(cut, "sweep.json"), before);
      expect(readFileSync(join(cut, "claims.json"), "utf8")).toBe(
        readFileSync(join(whole, "claims.json"), "utf8"),
      );
      // Not a sweep folder, and a damaged unit file.
      const notSweep = claims([...ARGS, "--resume", base]);
      expect(notSweep.stderr).toMatch(/no sweep\.json there, so it is not a sweep folder/);
      writeFileSync(
        join(cut, "units", "rl.default.s1.rlvr.json"),
        '{"id":"rl.default.s2.grr","value":{}}',
      );
      const damaged = claims([...ARGS, "--resume", cut]);
      expect(damaged.status).toBe(1);
      expect(damaged.stderr).toMatch(
        /units\/rl\.default\.s1\.rlvr\.json: not the result of unit rl\.default\.s1\.rlvr/,
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 1_800_000); // three 4-seed-variant tiny sweeps (one in two parts) and six refused resumes on a CPU adapter
});
