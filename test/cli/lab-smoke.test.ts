// The headless CLI's smoke preset on Node/SwiftShader: the same engine and
// reward code as the page. It must end with one JSON line of the documented
// shape and write the per-step metrics as CSV and JSONL.
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VARIANT_TABLE } from "../../src/settings/variant-table";
import { runCli } from "../support/cli";
const METRIC_KEYS = ["acc", "rcAcc", "incR", "cbir", "cacr", "formatRate", "stepAcc"];

describe("npm run lab -- --preset smoke", () => {
  it("runs RLVR and GRR and prints the final metrics as one JSON line", () => {
    const out = mkdtempSync(join(tmpdir(), "reward-lab-cli-"));
    try {
      const res = runCli("lab", ["--preset", "smoke", "--steps", "3", "--out", out], {
        timeout: 900_000,
      });
      expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
      const result = res.lastJson;
      expect(result.preset).toBe("smoke");
      expect(Object.keys(result.variants).sort()).toEqual(["grr", "rlvr"]);
      for (const metrics of [result.sft, result.variants.rlvr.final, result.variants.grr.final]) {
        for (const k of METRIC_KEYS) {
          expect(metrics[k], k).toBeGreaterThanOrEqual(0);
          expect(metrics[k], k).toBeLessThanOrEqual(1);
        }
        expect(metrics.rcAcc).toBeCloseTo(metrics.acc - metrics.cbir, 12);
      }
      const jsonl = readFileSync(join(out, "metrics.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      for (const v of ["rlvr", "grr"]) {
        expect(
          jsonl.filter((r) => r.variant === v && r.kind === "train").map((r) => r.step),
        ).toEqual([1, 2, 3]);
        expect(jsonl.some((r) => r.variant === v && r.kind === "eval" && r.step === 3)).toBe(true);
      }
      const csv = readFileSync(join(out, "metrics.csv"), "utf8").trim().split("\n");
      expect(csv[0]).toBe("variant,seed,kind,step,time,metric,value");
      expect(csv.some((l) => l.startsWith("grr,,train,3,") && l.includes(",reward_mean,"))).toBe(
        true,
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 900_000); // a CPU adapter shares 2 cores with the other GPU test files

  it("trains every variant in the variant table one step, with the step's phase times and GPU counts", () => {
    // One run over the whole table: a variant added to the table is tested by being added.
    const names = VARIANT_TABLE.map((v) => v.name);
    const out = mkdtempSync(join(tmpdir(), "reward-lab-cli-all-"));
    try {
      const res = runCli(
        "lab",
        [
          "--preset",
          "smoke",
          "--variants",
          names.join(","),
          // ACRE re-asks with the options shuffled: the whole table runs on multiple choice.
          "--multiple-choice",
          "--steps",
          "1",
          "--group-size",
          "2",
          "--batch-prompts",
          "1",
          "--eval-size",
          "4",
          "--out",
          out,
        ],
        { timeout: 900_000 },
      );
      expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
      expect(Object.keys(res.lastJson.variants).sort()).toEqual([...names].sort());
      const jsonl = readFileSync(join(out, "metrics.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      for (const name of names) {
        const row = jsonl.find((r) => r.variant === name && r.kind === "train" && r.step === 1);
        expect(row, name).toBeDefined();
        expect(Number.isFinite(row.values.reward_mean), name).toBe(true);
        // The phases add up to no more than the step; every step dispatches and submits.
        const phases = ["generate_ms", "passes_ms", "reward_ms", "advantages_ms", "update_ms"];
        for (const k of phases) expect(row.values[k], `${name} ${k}`).toBeGreaterThanOrEqual(0);
        const sum = phases.reduce((a, k) => a + row.values[k], 0);
        expect(sum).toBeLessThanOrEqual(row.values.step_time_ms + 1e-6);
        expect(row.values.dispatches, name).toBeGreaterThan(0);
        expect(row.values.submits, name).toBeGreaterThan(0);
        // Every component the variant's scorer pays is in the row.
        const eval1 = jsonl.find((r) => r.variant === name && r.kind === "eval" && r.step === 1);
        expect(eval1?.values.oscr, `${name} OSCR`).toBeGreaterThanOrEqual(0);
        expect(eval1?.values.oscr, `${name} OSCR`).toBeLessThanOrEqual(1);
      }
      const scs = jsonl.find((r) => r.variant === "scs" && r.kind === "train");
      expect(scs.values["components/rCon"]).toBeGreaterThanOrEqual(0);
      expect(scs.values.passes_ms).toBeGreaterThan(0);
      const acre = jsonl.find((r) => r.variant === "acre" && r.kind === "train");
      expect(acre.values["components/rC"]).toBeGreaterThanOrEqual(0);
      expect(acre.values.passes_ms).toBeGreaterThan(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 900_000);
});
