// `claims --out DIR` is a resumable sweep: a 2-seed, 2-step run (`--size tiny`,
// two claims: RLVR and GRR under seeds 1 and 2, four seed-variants) killed
// with SIGKILL right after its first seed-variant is written, then resumed
// with --resume DIR, writes a claims.json byte for byte the one of an
// uninterrupted run, and the same metric rows (wall-clock fields aside). A
// sitting cut short by --max-hours stops between units and the next sitting
// goes on. A resume with a changed setting or a foreign cold start is refused
// with an error that names it, and the folder is left as it was. Under
// another code version the canary runs again: the same figures bit for bit
// go on, a moved figure is refused by name. A unit file cut off mid-write
// is set aside and its unit runs again.
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

      // A sitting too short for the next unit stops between units: nothing new, no report, status 0.
      const unitsBefore = readdirSync(join(cut, "units")).sort();
      const short = claims([...ARGS, "--max-hours", "0.00001", "--resume", cut]);
      expect(short.status, `stderr:\n${short.stderr}`).toBe(0);
      expect(short.stderr).toMatch(
        /\[sweep\] stopping between units: .+ would not end within this sitting's 0 s \(--max-hours\)/,
      );
      expect(JSON.parse(short.stdout.trim().split("\n").at(-1)!).sweep).toMatchObject({
        complete: false,
      });
      expect(readdirSync(join(cut, "units")).sort()).toEqual(unitsBefore);
      expect(existsSync(join(cut, "claims.json"))).toBe(false);

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
      // Another code version (the manifest edited as if another build had started it): the
      // canary runs again, gives the same figures bit for bit, and the sweep goes on.
      const manifest = JSON.parse(before);
      expect(manifest.version).toBe(2);
      const paths = Object.keys(manifest.canary);
      expect(paths.some((k) => k.includes("/train/rlvr/"))).toBe(true);
      expect(paths.some((k) => k.includes("/train/grr/"))).toBe(true);
      writeFileSync(join(cut, "sweep.json"), JSON.stringify({ ...manifest, code: "0".repeat(64) }));
      const code = claims([...ARGS, "--resume", cut]);
      expect(code.status, `stderr:\n${code.stderr}`).toBe(0);
      expect(code.stderr).toMatch(
        /the code changed since the sweep was started \(code version 000000000000 then, .+ now\): running the canary again/,
      );
      expect(code.stderr).toMatch(
        /the canary's \d+ stored values are the same bit for bit: going on/,
      );
      expect(readFileSync(join(cut, "claims.json"), "utf8")).toBe(
        readFileSync(join(whole, "claims.json"), "utf8"),
      );
      // A figure the canary kept, moved (as if the numbers had changed): refused, naming it.
      const moved = paths.find((k) => k.includes("/train/grr/") && k.endsWith("/kl"))!;
      const tampered = {
        ...manifest,
        code: "0".repeat(64),
        canary: { ...manifest.canary, [moved]: 12345 },
      };
      writeFileSync(join(cut, "sweep.json"), JSON.stringify(tampered));
      const refused = claims([...ARGS, "--resume", cut]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(`its canary differs at ${moved}: 12345 then, `);
      writeFileSync(join(cut, "sweep.json"), before);
      // Not a sweep folder.
      const notSweep = claims([...ARGS, "--resume", base]);
      expect(notSweep.stderr).toMatch(/no sweep\.json there, so it is not a sweep folder/);
      // A unit file cut off mid-write: set aside, run again, the same report.
      const unit = join(cut, "units", "rl.default.s1.rlvr.json");
      writeFileSync(unit, readFileSync(unit, "utf8").slice(0, 40));
      const damaged = claims([...ARGS, "--resume", cut]);
      expect(damaged.status, `stderr:\n${damaged.stderr}`).toBe(0);
      expect(damaged.stderr).toMatch(
        /units\/rl\.default\.s1\.rlvr\.json could not be read back \(.+\); set aside as units\/rl\.default\.s1\.rlvr\.json\.damaged, the unit runs again/,
      );
      expect(existsSync(`${unit}.damaged`)).toBe(true);
      expect(readFileSync(join(cut, "claims.json"), "utf8")).toBe(
        readFileSync(join(whole, "claims.json"), "utf8"),
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 1_800_000); // two 4-seed-variant tiny sweeps (one in three parts), the canary three times, a rerun unit and five refused resumes on a CPU adapter
});
