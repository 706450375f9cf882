// `npm run claims -- --size tiny` on Node/SwiftShader, on four of its claims
// (one with two comparisons, one with an arm of its own, the stability claim)
// and two seeds: the JSON line has the documented shape, every figure is
// finite, every verdict is one of the words, each comparison has its MDE and
// the N its paper effect needs, and --out gets the two-panel plots and the
// table with its judge line. The verdicts themselves are measured
// (docs/results.md), not asserted here.
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCli } from "../support/cli";

const VERDICTS = ["reproduced", "not reproduced", "inconclusive", "not runnable"];

describe("npm run claims", () => {
  it("reports four claims over two seeds, with comparisons, plots and a table", () => {
    const out = join(mkdtempSync(join(tmpdir(), "reward-lab-claims-")), "report");
    try {
      const res = runCli(
        "claims",
        [
          "--size",
          "tiny",
          "--seeds",
          "101,102",
          "--claims",
          "rlvr-drift,grr-rcacc,groupwise-stability,structreward-ablation",
          "--out",
          out,
          "--quiet",
        ],
        { timeout: 1_500_000 },
      );
      expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
      const result = res.lastJson;
      expect(result.size).toBe("tiny");
      expect(result.seeds).toEqual([101, 102]);
      expect(result.judge.name).toBe("text-auditor");
      expect(Number.isFinite(result.seconds)).toBe(true);
      expect(Array.isArray(result.cannot_decide_at_n)).toBe(true);
      expect(result.claims.map((c: { id: string }) => c.id)).toEqual([
        "rlvr-drift",
        "grr-rcacc",
        "groupwise-stability",
        "structreward-ablation",
      ]);
      const rcacc = result.claims.find((c: { id: string }) => c.id === "grr-rcacc");
      expect(rcacc.comparisons.map((k: { label: string }) => k.label)).toEqual([
        "GRR − RLVR, final RC-Acc",
        "GRR − pointwise GR, final RC-Acc",
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
        expect(["yes", "no", "unknown"]).toContain(c.decidable);
        for (const k of c.comparisons) {
          expect(k.per_seed).toHaveLength(2);
          expect(Number.isFinite(k.mde)).toBe(true);
          expect(typeof k.paper_effect).toBe("number");
          expect(Number.isInteger(k.n_needed) || typeof k.n_needed === "string").toBe(true);
        }
      }
      for (const f of [
        "claims.json",
        "claims.md",
        "metrics.jsonl",
        "metrics-default-2.jsonl",
        "rlvr-drift.svg",
        "rlvr-drift.png",
        "groupwise-stability.svg",
        "groupwise-stability.png",
        "structreward-ablation.png",
      ]) {
        expect(existsSync(join(out, f)), f).toBe(true);
      }
      const md = readFileSync(join(out, "claims.md"), "utf8");
      expect(md).toMatch(/^Size tiny, judge text-auditor \(σ_j 0\.25, σ_b 0\)/);
      expect(md).toContain("| rlvr-drift |");
      // The aux arm's rows carry its key; the plot has the judged panel beside the curves.
      expect(readFileSync(join(out, "metrics-default-2.jsonl"), "utf8")).toContain(
        '"variant":"structreward+aux"',
      );
      expect(
        readFileSync(join(out, "grr-rcacc.svg"), "utf8").match(/<g class="panel"/g),
      ).toHaveLength(2);
      const png = readFileSync(join(out, "rlvr-drift.png"));
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    } finally {
      rmSync(resolve(out, ".."), { recursive: true, force: true });
    }
  }, 1_800_000); // 2 seeds × 2 RL steps of 5 arms + evals + the stability sweep on a CPU adapter: minutes

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
      const judge = runCli("claims", ["--judge", "gpt"], { timeout: 120_000 });
      expect(judge.code).toBe(1);
      expect(judge.stderr).toContain("--judge must be one of text-auditor, oracle-auditor");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
