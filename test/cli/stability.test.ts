// `npm run stability` on Node/SwiftShader with tiny sizes: one JSON line of
// the documented shape with every figure finite; bad flags fail before any
// GPU work, naming the flag.
import { describe, expect, it } from "vitest";
import { JUDGE_DEFAULTS } from "../../src/rewards/judges";
import { runCli } from "../support/cli";

const stability = (args: string[]) => runCli("stability", args, { timeout: 600_000 });

describe("npm run stability", () => {
  it("prints each draw's sweep and the pooled figures on 2 prompts × 4 rollouts, every figure finite", () => {
    const args = "--prompts 2 --group-size 4 --repeats 2 --seeds 5,6".split(" ");
    const res = stability(args);
    expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
    const lines = res.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]);
    expect(Object.keys(out)).toEqual([
      "prompts",
      "groupSize",
      "repeats",
      "seeds",
      "judge",
      "checkpoint",
      "temperature",
      "draws",
      "pooled",
    ]);
    expect([out.prompts, out.groupSize, out.repeats, out.seeds, out.judge]).toEqual([
      2,
      4,
      2,
      [5, 6],
      "text-auditor",
    ]);
    expect(out.checkpoint).toMatch(/^sft-digits2-.*\.ckpt$/);
    const d = JUDGE_DEFAULTS["text-auditor"];
    expect(out.draws.map((x: { seed: number }) => x.seed)).toEqual([5, 6]);
    for (const draw of out.draws) {
      expect(draw.passRate).toBeGreaterThanOrEqual(0);
      expect(draw.passRate).toBeLessThanOrEqual(1);
      expect(draw.settings.map((s: { label: string }) => s.label)).toEqual([
        "lab default",
        "σ_b = 0.1",
        "σ_b = 0.2",
        "σ_j = 0",
      ]);
      expect(draw.settings[0].judge).toEqual({ name: "text-auditor", ...d });
      for (const s of draw.settings) {
        for (const v of [s.pointwise, s.groupwise, s.reduction])
          expect(Number.isFinite(v)).toBe(true);
        expect([s.rollouts, s.repeats]).toEqual([8, 2]);
      }
    }
    // Pooled: the mean over the draws, each draw's value listed.
    for (const [k, p] of out.pooled.entries()) {
      const per = out.draws.map(
        (x: { settings: { pointwise: number }[] }) => x.settings[k].pointwise,
      );
      expect(p.pointwise.perDraw).toEqual(per);
      expect(p.pointwise.mean).toBeCloseTo((per[0] + per[1]) / 2, 12);
      expect(p.pointwise.ci95[0]).toBeLessThanOrEqual(p.pointwise.mean);
    }
    // The same seeds give the same line.
    const again = stability([...args, "--quiet"]);
    expect(again.stdout.trim()).toBe(lines[0]);
    // A σ_j × σ_b grid of the oracle auditor, every pair in order, and the fit to two targets.
    const grid = stability(
      "--prompts 2 --group-size 4 --repeats 2 --seed 5 --quiet --judge oracle-auditor --sigma-j 0,0.13 --sigma-b 0.17 --fit 0.026,0.016".split(
        " ",
      ),
    );
    expect(grid.code, `stderr:\n${grid.stderr}`).toBe(0);
    const g = JSON.parse(grid.stdout.trim());
    expect(g.draws[0].settings.map((s: { judge: object }) => s.judge)).toEqual([
      { name: "oracle-auditor", sigmaJ: 0, sigmaB: 0.17, delta: 0.15 },
      { name: "oracle-auditor", sigmaJ: 0.13, sigmaB: 0.17, delta: 0.15 },
    ]);
    expect(g.fit.targets).toEqual({ pointwise: 0.026, groupwise: 0.016 });
    expect([0, 1]).toContain(g.fit.index);
    const err = (k: number) =>
      (g.pooled[k].pointwise.mean / 0.026 - 1) ** 2 + (g.pooled[k].groupwise.mean / 0.016 - 1) ** 2;
    expect(g.fit.error).toBeCloseTo(Math.min(err(0), err(1)), 12);
  }, 600_000);

  it.each([
    [["--group-size", "1"], /--group-size must be an integer in \[2, 64\]/],
    [["--prompts", "1.5"], /--prompts must be an integer/],
    [["--repeats", "1"], /--repeats must be an integer in \[2,/],
    [["--seed", "x"], /--seed must be an integer in \[0, 2147483647\]/],
    [["--temperature", "0"], /--temperature/],
    [["--checkpoint", "/nonexistent.ckpt"], /--checkpoint: no such file/],
    [["--bogus"], /unknown option --bogus/],
    [["--sigma-j", "0.1"], /--sigma-j and --sigma-b go together/],
    [["--sigma-j", "0.1,x", "--sigma-b", "0"], /--sigma-j: 'x' is not a number in \[0, 1\]/],
    [["--sigma-j", "0.1", "--sigma-b", "2"], /--sigma-b: '2' is not a number/],
    [["--delta", "0.1"], /--delta needs --sigma-j and --sigma-b/],
    [["--judge", "gpt"], /--judge must be one of text-auditor, oracle-auditor/],
    [["--seeds", "1,1"], /--seeds: seed 1 appears twice/],
    [["--seed", "1", "--seeds", "2"], /--seed and --seeds: give one/],
    [["--fit", "0.026"], /--fit: '0.026' is not two variances/],
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
