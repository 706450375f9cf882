// The headless CLI with StructReward's recycling and hard negatives on
// (`--set structreward.recycle=on --set structreward.hardNegatives=on`): the
// step trains the auxiliary examples and its train row carries their metrics;
// a bad value gets the schema's error naming the setting, and nothing runs.
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli";

const lab = (args: string[]) => runCli("lab", args, { timeout: 900_000 });

describe("npm run lab -- --variants structreward --set structreward.recycle=on …", () => {
  it("runs one step with the auxiliary step and writes its metrics", () => {
    const out = mkdtempSync(join(tmpdir(), "reward-lab-aux-"));
    try {
      const res = lab([
        "--preset",
        "smoke",
        "--variants",
        "structreward",
        "--set",
        "structreward.recycle=on",
        "--set",
        "structreward.hardNegatives=on",
        "--steps",
        "1",
        "--out",
        out,
      ]);
      expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
      const train = readFileSync(join(out, "metrics.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((r) => r.kind === "train");
      expect(train.map((r) => [r.variant, r.step])).toEqual([["structreward", 1]]);
      const v = train[0].values;
      const trained = v.aux_pointwise + v.aux_pairwise + v.aux_locate + v.aux_choose;
      // smoke: 2 prompts × G 4 = 8 rows; every rollout makes a pointwise example.
      expect(trained).toBeGreaterThan(0);
      expect(trained).toBeLessThanOrEqual(8);
      expect(v.aux_loss).toBeGreaterThan(0);
      expect(v.aux_ms).toBeGreaterThan(0);
      expect(v.step_time_ms).toBeGreaterThanOrEqual(v.aux_ms);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("refuses a value that is not on or off, naming the setting", () => {
    const res = lab([
      "--preset",
      "smoke",
      "--variants",
      "structreward",
      "--set",
      "structreward.recycle=yes",
    ]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/structreward\.weights\.recycle/);
  });
});
