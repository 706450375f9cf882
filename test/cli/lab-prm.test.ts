// The prm variant in the whole loop on the small model, its PRM run with
// onnxruntime-web (wasm) in Node: it trains RL steps beside RLVR, its rows
// carry the mean PRM step score, and a missing PRM file stops only it, with
// a message naming the file, while RLVR trains on.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli";

function lab(extra: string[]) {
  const out = mkdtempSync(join(tmpdir(), "reward-lab-prm-"));
  const res = runCli(
    "lab",
    [
      "--preset",
      "smoke",
      "--variants",
      "rlvr,prm",
      "--steps",
      "2",
      "--group-size",
      "4",
      "--batch-prompts",
      "2",
      "--eval-size",
      "4",
      "--out",
      out,
      ...extra,
    ],
    { timeout: 900_000 },
  );
  const rows = (() => {
    try {
      return readFileSync(join(out, "metrics.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  })();
  rmSync(out, { recursive: true, force: true });
  return { res, rows, result: res.lastJson };
}

describe("npm run lab -- --variants rlvr,prm", () => {
  it("trains the prm variant with the shipped PRM in onnxruntime-web", () => {
    const { res, rows, result } = lab([]);
    expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
    expect(Object.keys(result.variants).sort()).toEqual(["prm", "rlvr"]);
    const train = rows.filter((r) => r.variant === "prm" && r.kind === "train");
    expect(train.map((r) => r.step)).toEqual([1, 2]);
    for (const r of train) {
      const rPrm = r.values["components/rPrm"];
      expect(rPrm).toBeGreaterThan(0);
      expect(rPrm).toBeLessThanOrEqual(1);
      expect(r.values.reward_ms).toBeGreaterThan(0);
    }
    expect(result.variants.prm.final.acc).toBeGreaterThanOrEqual(0);
  }, 900_000);

  it("a missing PRM file stops only the prm variant, naming the file", () => {
    const missing = join(tmpdir(), "no-such-prm.onnx");
    const { res, rows, result } = lab(["--prm", missing]);
    expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
    expect(result.variants.prm.stopped).toContain(`PRM file ${missing}: is missing`);
    expect(res.stderr).toContain(`PRM file ${missing}`);
    expect(
      rows.filter((r) => r.variant === "rlvr" && r.kind === "train").map((r) => r.step),
    ).toEqual([1, 2]);
    expect(rows.some((r) => r.variant === "prm" && r.kind === "train")).toBe(false);
  }, 900_000);
});
