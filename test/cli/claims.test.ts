// `npm run claims -- --size ci` on Node/SwiftShader, on two of its claims and two
// seeds: the JSON line has the documented shape, every figure is finite, every
// verdict is one of the words, and --out gets the plots and the table. The
// verdicts themselves are measured (docs/results.md), not asserted here.
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCli } from "../support/cli";

const VERDICTS = ["reproduced", "not reproduced", "inconclusive", "not runnable"];

describe("npm run claims -- --size ci", () => {
  it("reports rlvr-drift and groupwise-stability over two seeds, with plots and a table", () => {
    const out = join(mkdtempSync(join(tmpdir(), "reward-lab-claims-")), "report");
    try {
      const res = runCli(
        "claims",
        [
          "--size",
          "ci",
          "--seeds",
          "101,102",
          "--claims",
          "rlvr-drift,groupwise-stability",
          "--out",
          out,
          "--quiet",
        ],
        { timeout: 1_500_000 },
      );
      expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
      const result = res.lastJson;
      expect(result.size).toBe("ci");
      expect(result.seeds).toEqual([101, 102]);
      expect(Number.isFinite(result.seconds)).toBe(true);
      expect(result.claims.map((c: { id: string }) => c.id)).toEqual([
        "rlvr-drift",
        "groupwise-stability",
      ]);
      for (const c of result.claims) {
        expect(VERDICTS).toContain(c.verdict);
        for (const k of ["paper", "statement", "paper_figure", "command"])
          expect(typeof c[k]).toBe("string");
        if (c.verdict === "not runnable") {
          expect(c.lab).toBeNull();
          expect(c.reason.length).toBeGreaterThan(10);
          continue;
        }
        expect(c.verdict).not.toBe("not runnable");
        expect(c.lab.per_seed).toHaveLength(2);
        for (const x of [c.lab.mean, ...c.lab.ci95, ...c.lab.per_seed])
          expect(Number.isFinite(x)).toBe(true);
        expect(c.lab.ci95[0]).toBeLessThanOrEqual(c.lab.mean);
        expect(c.lab.ci95[1]).toBeGreaterThanOrEqual(c.lab.mean);
        expect(c.command).toContain(`--claims ${c.id}`);
      }
      for (const f of [
        "claims.json",
        "claims.md",
        "metrics.jsonl",
        "rlvr-drift.svg",
        "rlvr-drift.png",
        "groupwise-stability.svg",
        "groupwise-stability.png",
      ]) {
        expect(existsSync(join(out, f)), f).toBe(true);
      }
      expect(readFileSync(join(out, "claims.md"), "utf8")).toContain("rlvr-drift");
      const png = readFileSync(join(out, "rlvr-drift.png"));
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    } finally {
      rmSync(resolve(out, ".."), { recursive: true, force: true });
    }
  }, 1_800_000); // 2 seeds × 15 RL steps + evals + the stability sweep on a CPU adapter: minutes

  it("refuses a non-empty --out folder and an unknown claim before any work", () => {
    const dir = mkdtempSync(join(tmpdir(), "reward-lab-claims-"));
    try {
      writeFileSync(join(dir, "claims.md"), "an earlier report");
      const res = runCli("claims", ["--out", dir, "--claims", "rlvr-drift"], { timeout: 120_000 });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain("is not empty");
      expect(readFileSync(join(dir, "claims.md"), "utf8")).toBe("an earlier report");
      const bad = runCli("claims", ["--claims", "nope"], { timeout: 120_000 });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("unknown claim 'nope'");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
