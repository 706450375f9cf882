// `npm run checks`: the page's reward-hacking checks on a metrics.jsonl made
// by hand: RLVR's rollouts stay at 40 tokens, the written reward's grow from
// 30 to 36 (+20 %, over the 10 % rule of src/ui/lib/detectors.ts): the
// length-drift check fires on the written reward alone, with those figures.
// A line that is not JSON, or not a metric row, is refused by its number.
import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli";

const row = (variant: string, step: number, len: number) =>
  JSON.stringify({
    variant,
    step,
    time: step,
    kind: "train",
    values: { response_length: len, frac_reward_zero_std: 0 },
    seed: 1,
  });

describe("npm run checks", () => {
  it("gives each variant's length change and the checks that fire", () => {
    const dir = mkdtempSync(join(tmpdir(), "reward-lab-checks-"));
    const lines: string[] = [];
    for (let s = 1; s <= 6; s++) lines.push(row("rlvr", s, 40), row("user", s, s <= 3 ? 30 : 36));
    writeFileSync(join(dir, "metrics.jsonl"), `${lines.join("\n")}\n`);
    const r = runCli("scripts/run-checks.ts", [dir]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.lastJson as {
      length: Record<string, { first: number; last: number; change: number; steps: number }>;
      detections: { key: string; variant: string; step: number; text: string }[];
    };
    expect(out.length.rlvr).toEqual({ first: 40, last: 40, change: 0, steps: 6 });
    expect(out.length.user.first).toBe(30);
    expect(out.length.user.last).toBe(36);
    expect(out.length.user.change).toBeCloseTo(0.2, 12);
    expect(out.detections.map((d) => [d.key, d.variant, d.step])).toEqual([
      ["length-drift", "user", 6],
    ]);
    expect(out.detections[0].text).toContain("grew from 30.00 to 36.00 tokens");
  });

  it("refuses a line that is not JSON or not a metric row, naming the line", () => {
    const dir = mkdtempSync(join(tmpdir(), "reward-lab-checks-"));
    const file = join(dir, "metrics.jsonl");
    writeFileSync(file, `${row("rlvr", 1, 40)}\n\n{not json\n`);
    const bad = runCli("scripts/run-checks.ts", [file]);
    expect(bad.code).toBe(1);
    expect(String((bad.lastJson as { error: string }).error)).toMatch(/line 3: not JSON/);
    writeFileSync(
      file,
      `${row("rlvr", 1, 40)}\n${JSON.stringify({ variant: "x", kind: "sometimes" })}\n`,
    );
    const notRow = runCli("scripts/run-checks.ts", [file]);
    expect(notRow.code).toBe(1);
    expect(String((notRow.lastJson as { error: string }).error)).toMatch(
      /line 2: not a metric row/,
    );
  });
});
