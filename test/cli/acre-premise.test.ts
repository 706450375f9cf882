// The ACRE premise check as a CLI run on a fixed tiny size (one seed, one RL
// step of the baseline arm alone, 8 held-out prompts) on Node/SwiftShader:
// the printed check is the criterion's arithmetic on the printed rows.
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli";

describe("npm run premise:acre -- --seeds 41 --steps 1 --eval-size 8", () => {
  it("runs acre-baseline alone and checks boundRate against its step-0 band", () => {
    const res = runCli(
      "acre-premise",
      ["--seeds", "41", "--steps", "1", "--eval-every", "1", "--eval-size", "8", "--quiet"],
      { timeout: 900_000 },
    );
    expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
    const out = res.lastJson;
    expect(out.arm).toBe("acre-baseline");
    expect(out.settings).toMatchObject({ steps: 1, evalEvery: 1, evalSize: 8, lr: 1e-4 });
    const rows = out.rows["41"];
    expect(rows.map((r: { variant: string; step: number }) => [r.variant, r.step])).toEqual([
      ["acre-baseline", 0],
      ["acre-baseline", 1],
    ]);
    const [s] = out.seeds;
    const p0 = rows[0].values.boundRate;
    // 8 answers: the rate is a multiple of 1/8; the band is p0 ± 1.96·√(p0(1 − p0)/8).
    expect(Number.isInteger(p0 * 8)).toBe(true);
    expect(s.p0).toBe(p0);
    expect(s.band[0]).toBeCloseTo(p0 - 1.96 * Math.sqrt((p0 * (1 - p0)) / 8), 12);
    expect(s.final).toBe(rows[1].values.boundRate);
    // A form absent at step 0 gives no gap (null in JSON): the premise cannot hold.
    const gapOk = typeof s.gap0 === "number" && s.gap0 <= 0.1;
    expect(s.holds).toBe(s.final >= s.band[0] && s.meanAfter >= s.band[0] && gapOk);
    expect(out.holds).toBe(s.holds);
    expect(res.stderr).toMatch(/premise (holds|does not hold) on seeds 41/);
  }, 900_000);

  it("--scenario skew-letter: acre-prior-blank, the skewed letter's share must rise above its band", () => {
    const res = runCli(
      "acre-premise",
      [
        "--scenario",
        "skew-letter",
        "--seeds",
        "41",
        "--steps",
        "1",
        "--eval-every",
        "1",
        "--eval-size",
        "8",
        "--quiet",
      ],
      { timeout: 900_000 },
    );
    expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
    const out = res.lastJson;
    expect(out.preset).toBe("acre-prior-blank");
    expect(out.criterion).toMatchObject({ metric: "skewLetterShare", direction: "rises" });
    const rows = out.rows["41"];
    for (const r of rows) {
      // The share of A is one letter's share: at most the top letter's; the blank digit is read at chance.
      expect(r.values.skewLetterShare).toBeLessThanOrEqual(r.values.topLetterShare);
      expect(r.values.faintReadAcc).toBeGreaterThanOrEqual(0);
    }
    const [s] = out.seeds;
    expect(s.p0).toBe(rows[0].values.skewLetterShare);
    expect(s.holds).toBe(s.final >= s.band[1] && s.meanAfter >= s.band[1]);
    expect(res.stderr).toMatch(/skewLetterShare step 0/);
  }, 900_000);
});
