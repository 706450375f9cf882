// `npm run train:sft` on Node/SwiftShader: a few SFT steps from scratch must
// write the checkpoint, a loadable snapshot at each intermediate eval
// (--snapshots), and end with one JSON line of figures.
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCheckpoint } from "../../src/model/checkpoint";
import { runCli } from "../support/cli";

describe("npm run train:sft -- --snapshots", () => {
  it("writes the final checkpoint and one snapshot per intermediate eval", () => {
    const out = mkdtempSync(join(tmpdir(), "reward-lab-sft-"));
    try {
      const file = join(out, "cold.ckpt");
      const res = runCli("train-sft.ts", [
        "--size",
        "small",
        "--open-ended",
        "--steps",
        "4",
        "--batch",
        "4",
        "--eval-every",
        "2",
        "--snapshots",
        "--quiet",
        "--out",
        file,
      ]);
      expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
      // The native layer's XDG_RUNTIME_DIR complaint is silenced (node-gpu.ts).
      expect(res.stderr).not.toContain("XDG_RUNTIME_DIR");
      const result = res.lastJson;
      expect(result.checkpoint).toBe(file);
      expect(result.steps).toBe(4);
      expect(result.eval.formatRate).toBeGreaterThanOrEqual(0);

      const snapFile = join(out, "cold.step2.ckpt");
      expect(existsSync(snapFile)).toBe(true);
      expect(existsSync(join(out, "cold.step4.ckpt"))).toBe(false); // the last eval is the checkpoint itself
      const snap = loadCheckpoint(new Uint8Array(readFileSync(snapFile)));
      const last = loadCheckpoint(new Uint8Array(readFileSync(file)));
      expect(snap.meta).toMatchObject({ step: 2, of: 4, seed: 1, lr: 2e-3, batch: 4 });
      expect(last.meta).toMatchObject({ step: 4, of: 4 });
      expect(snap.config).toEqual(last.config);
      expect(snap.params.length).toBe(last.params.length);
      // Two more AdamW steps moved the weights.
      let diff = 0;
      for (let i = 0; i < snap.params.length; i++)
        diff = Math.max(diff, Math.abs(snap.params[i] - last.params[i]));
      expect(diff).toBeGreaterThan(1e-5);

      // The lab starts RL from the snapshot (--checkpoint) with the overrides applied.
      // --out names a folder that holds an earlier run's files: they stay byte-identical
      // and this run goes to run/run-2.
      const earlier = join(out, "run");
      mkdirSync(earlier);
      writeFileSync(join(earlier, "metrics.jsonl"), '{"earlier": true}\n');
      writeFileSync(join(earlier, "rlvr.ckpt"), Buffer.from([1, 2, 3]));
      const lab = runCli("lab.ts", [
        "--preset",
        "smoke",
        "--steps",
        "1",
        "--checkpoint",
        snapFile,
        "--group-size",
        "2",
        "--batch-prompts",
        "1",
        "--eval-every",
        "1",
        "--eval-size",
        "4",
        "--out",
        join(out, "run"),
      ]);
      expect(lab.code, `stderr:\n${lab.stderr}`).toBe(0);
      expect(lab.stderr).toContain(`cold start from ${snapFile} (SFT step 2)`);
      const runDir = join(earlier, "run-2");
      expect(lab.lastJson.out).toBe(runDir);
      expect(readFileSync(join(earlier, "metrics.jsonl"), "utf8")).toBe('{"earlier": true}\n');
      expect([...readFileSync(join(earlier, "rlvr.ckpt"))]).toEqual([1, 2, 3]);
      expect(existsSync(join(runDir, "metrics.jsonl.partial"))).toBe(false);
      const rows = readFileSync(join(runDir, "metrics.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const evalRows = rows.filter((r) => r.variant === "rlvr" && r.kind === "eval");
      expect(evalRows.map((r) => r.step)).toEqual([0, 1]);
      // 4 held-out prompts: every metric is a multiple of 1/4.
      for (const r of evalRows) expect((r.values.acc * 4) % 1).toBe(0);
      // --out also gets the variant's final parameters, a cold start for another run.
      const rl = loadCheckpoint(new Uint8Array(readFileSync(join(runDir, "rlvr.ckpt"))));
      expect(rl.meta).toMatchObject({ variant: "rlvr", rlSteps: 1, coldStartStep: 2 });
      expect(rl.config).toEqual(snap.config);
      const bad = runCli("lab.ts", ["--preset", "smoke", "--group-size", "0"], {
        timeout: 120_000,
      });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/groupSize/);
      const wrongTask = runCli(
        "lab.ts",
        ["--preset", "smoke", "--checkpoint", "public/checkpoints/sft-digits2-mc-small.ckpt"],
        { timeout: 120_000 },
      );
      expect(wrongTask.code).toBe(1);
      expect(wrongTask.stderr).toContain("trained on the multiple-choice task");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 600_000);
});
