// `npm run stability` on Node/SwiftShader with tiny sizes: one JSON line of
// the documented shape with every figure finite; bad flags fail before any
// GPU work, naming the flag.
import { describe, expect, it } from "vitest";
import { DEFAULT_AUDITOR } from "../../src/rewards/auditor-judge";
import { runCli } from "../support/cli";

const stability = (args: string[]) => runCli("stability", args, { timeout: 600_000 });

describe("npm run stability", () => {
  it("prints the sweep on 2 prompts × 4 rollouts as one JSON line, every figure finite", () => {
    const res = stability(["--prompts", "2", "--group-size", "4", "--repeats", "2", "--seed", "5"]);
    expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
    const lines = res.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]);
    expect(Object.keys(out)).toEqual([
      "prompts",
      "groupSize",
      "repeats",
      "seed",
      "checkpoint",
      "temperature",
      "passRate",
      "settings",
    ]);
    expect([out.prompts, out.groupSize, out.repeats, out.seed]).toEqual([2, 4, 2, 5]);
    expect(out.checkpoint).toMatch(/^sft-digits2-.*\.ckpt$/);
    expect(out.passRate).toBeGreaterThanOrEqual(0);
    expect(out.passRate).toBeLessThanOrEqual(1);
    expect(out.settings.map((s: { label: string }) => s.label)).toEqual([
      "lab default",
      "σ_b = 0",
      "σ_b = 0.05",
      "σ_b = 0.3",
      "σ_j = 0",
      "σ_j = 0.05",
    ]);
    for (const s of out.settings) {
      expect(Object.keys(s).sort()).toEqual([
        "groupwise",
        "judge",
        "label",
        "pointwise",
        "reduction",
        "repeats",
        "rollouts",
      ]);
      expect(Object.keys(s.judge).sort()).toEqual(["delta", "sigmaB", "sigmaJ"]);
      for (const v of [
        s.pointwise,
        s.groupwise,
        s.reduction,
        s.judge.sigmaJ,
        s.judge.sigmaB,
        s.judge.delta,
      ])
        expect(Number.isFinite(v)).toBe(true);
      expect([s.rollouts, s.repeats]).toEqual([8, 2]);
    }
    // The same seed gives the same line.
    const again = stability([
      "--prompts",
      "2",
      "--group-size",
      "4",
      "--repeats",
      "2",
      "--seed",
      "5",
      "--quiet",
    ]);
    expect(again.stdout.trim()).toBe(lines[0]);
    // A σ_j × σ_b grid: every pair, in order; the default's pair gives the default's figures.
    const grid = stability(
      "--prompts 2 --group-size 4 --repeats 2 --seed 5 --quiet --sigma-j 0,DJ --sigma-b DB"
        .replace("DJ", String(DEFAULT_AUDITOR.sigmaJ))
        .replace("DB", String(DEFAULT_AUDITOR.sigmaB))
        .split(" "),
    );
    expect(grid.code, `stderr:\n${grid.stderr}`).toBe(0);
    const g = JSON.parse(grid.stdout.trim());
    expect(g.settings.map((s: { judge: object }) => s.judge)).toEqual([
      { sigmaJ: 0, sigmaB: DEFAULT_AUDITOR.sigmaB, delta: DEFAULT_AUDITOR.delta },
      {
        sigmaJ: DEFAULT_AUDITOR.sigmaJ,
        sigmaB: DEFAULT_AUDITOR.sigmaB,
        delta: DEFAULT_AUDITOR.delta,
      },
    ]);
    expect(g.settings[1].pointwise).toBe(out.settings[0].pointwise);
    expect(g.settings[1].groupwise).toBe(out.settings[0].groupwise);
  }, 600_000);

  it.each([
    [["--group-size", "1"], /--group-size must be an integer in \[2, 64\]/],
    [["--prompts", "1.5"], /--prompts must be an integer/],
    [["--repeats", "1"], /--repeats must be an integer in \[2,/],
    [["--seed", "x"], /--seed must be a number/],
    [["--temperature", "0"], /--temperature/],
    [["--checkpoint", "/nonexistent.ckpt"], /--checkpoint: no such file/],
    [["--bogus"], /unknown option --bogus/],
    [["--sigma-j", "0.1"], /--sigma-j and --sigma-b go together/],
    [["--sigma-j", "0.1,x", "--sigma-b", "0"], /--sigma-j: 'x' is not a number in \[0, 1\]/],
    [["--sigma-j", "0.1", "--sigma-b", "2"], /--sigma-b: '2' is not a number/],
    [["--delta", "0.1"], /--delta needs --sigma-j and --sigma-b/],
  ])(
    "%j fails naming the flag",
    (args, message) => {
      const res = stability(args as string[]);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(message as RegExp);
    },
    120_000,
  );
});
