// `lab --seeds … --out DIR` is a resumable sweep: SFT from scratch (6 steps,
// its result DIR/cold-start.ckpt), then RLVR and GRR under seeds 3 and 4,
// 2 RL steps each. Killed with SIGKILL after its first seed-variant and
// resumed with the same flags and --resume DIR, it prints the JSON of an
// uninterrupted sweep and leaves the same checkpoints and metric rows; a
// changed setting is refused by its flag.
import { describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = ["--import", "tsx", "--import", "./scripts/register-raw.mjs", "src/cli/lab.ts"];
const FLAGS = [
  ...["--preset", "smoke", "--seeds", "3,4", "--steps", "2", "--eval-every", "2"],
  ...["--from-scratch", "--sft-steps", "6", "--quiet"],
];

function lab(args: string[]) {
  return spawnSync(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 900_000,
  });
}

const lastLine = (s: string) => JSON.parse(s.trim().split("\n").at(-1)!);

/** metrics.jsonl rows without their wall-clock fields. */
function rowsOf(dir: string): unknown[] {
  return readFileSync(join(dir, "metrics.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const { time: _t, ...r } = JSON.parse(l);
      r.values = Object.fromEntries(
        Object.entries(r.values as Record<string, number>).filter(
          ([k]) => !k.endsWith("_ms") && k !== "dispatches" && k !== "submits",
        ),
      );
      return r;
    });
}

describe("npm run lab -- --seeds … --out DIR / --resume DIR", () => {
  it("killed after the first seed-variant and resumed: the uninterrupted sweep's JSON, rows and checkpoints", async () => {
    const base = mkdtempSync(join(tmpdir(), "reward-lab-labsweep-"));
    try {
      const whole = join(base, "whole");
      const res = lab([...FLAGS, "--out", whole]);
      expect(res.status, `stderr:\n${res.stderr}`).toBe(0);
      expect(res.stderr).toMatch(/\[sweep\] estimated run time: about .+ for 4 seed-variants/);
      expect(res.stderr).toMatch(/seed-variant 4 of 4 \(seed 4, grr\) done in .+; about .+ left/);
      for (const f of ["cold-start.ckpt", "rlvr.s3.ckpt", "grr.s4.ckpt", "metrics.csv"])
        expect(existsSync(join(whole, f)), f).toBe(true);

      const cut = join(base, "cut");
      const killed = await new Promise<string | null>((done, fail) => {
        const child = spawn(process.execPath, [...CLI, ...FLAGS, "--out", cut], { cwd: ROOT });
        let err = "";
        child.stderr.on("data", (b: Buffer) => {
          err += b.toString();
          if (/seed-variant 1 of 4/.test(err)) child.kill("SIGKILL");
        });
        child.on("error", fail);
        child.on("close", (_c, signal) => done(signal));
      });
      expect(killed).toBe("SIGKILL");
      expect(existsSync(join(cut, "units", "rl.s3.rlvr.json"))).toBe(true);
      expect(existsSync(join(cut, "metrics.jsonl"))).toBe(false);

      const resumed = lab([...FLAGS, "--resume", cut]);
      expect(resumed.status, `stderr:\n${resumed.stderr}`).toBe(0);
      expect(resumed.stderr).toMatch(/\[sweep\] [1-3] of 4 seed-variants .* were done already/);
      const { out: _a, ...a } = lastLine(resumed.stdout);
      const { out: _b, ...b } = lastLine(res.stdout);
      expect(a).toEqual(b);
      expect(rowsOf(cut)).toEqual(rowsOf(whole));
      for (const f of [
        "cold-start.ckpt",
        "rlvr.s3.ckpt",
        "rlvr.s4.ckpt",
        "grr.s3.ckpt",
        "grr.s4.ckpt",
      ])
        expect(readFileSync(join(cut, f)).equals(readFileSync(join(whole, f))), f).toBe(true);

      const steps3 = [...FLAGS];
      steps3[steps3.indexOf("--steps") + 1] = "3";
      const changed = lab([...steps3, "--resume", cut]);
      expect(changed.status).toBe(1);
      expect(changed.stderr).toMatch(
        /setting 'experiment\.algorithm\.steps' \(--steps\) differs: the sweep was started with 2, this run has 3/,
      );
      const single = lab(["--preset", "smoke", "--resume", cut]);
      expect(single.stderr).toMatch(/it continues a seed sweep, so give the sweep's flags again/);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 1_800_000); // three small sweeps (one in two parts) on a CPU adapter: minutes
});
