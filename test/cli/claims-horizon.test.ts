// `npm run claims -- --size tiny-horizon`: the horizon's levels at a test
// size (4 RL steps, an eval every 2), one seed, the three claims the horizon
// plan reads along the curve. Every arm's unit keeps its evals at the size's
// steps (0, 2, 4); grr-rcacc is one claim per σ_b (0: the default judge's
// own arms; 0.1, 0.2: the judge arms trained again at that σ_b beside the
// same RLVR), prm-shift one per PRM (the shipped one; the SFT cold start
// read as a PRM); the σ_b and the PRM reach the rewards (pointwise GR's
// rows part at σ_b 0.2, the PRM arm's step-1 PRM component moves); claims.md
// prints each claim's curves at every eval step; the sweep starts in a
// folder that holds only its plan and leaves the plan as it was. The figures themselves
// mean nothing at this size.
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCli } from "../support/cli";

interface Row {
  variant: string;
  step: number;
  kind: "train" | "eval";
  values: Record<string, number>;
}

/** Every metric row of the report's metrics files. */
function rowsOf(out: string): Row[] {
  return readdirSync(out)
    .filter((f) => /^metrics(-.+)?\.jsonl$/.test(f))
    .flatMap((f) =>
      readFileSync(join(out, f), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Row),
    );
}

describe("npm run claims -- --size tiny-horizon", () => {
  it("keeps the evals at the size's steps and gives a row per σ_b and per PRM", () => {
    const out = join(mkdtempSync(join(tmpdir(), "reward-lab-horizon-")), "report");
    // The sweep starts in a folder that holds its plan (as docs/results/horizon/ does).
    mkdirSync(out);
    writeFileSync(join(out, "PLAN.md"), "the plan, fixed before any run\n");
    try {
      const res = runCli(
        "claims",
        [
          "--size",
          "tiny-horizon",
          "--seeds",
          "1",
          "--claims",
          "rlvr-drift,grr-rcacc,prm-shift",
          "--out",
          out,
          "--quiet",
        ],
        { timeout: 1_500_000 },
      );
      expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
      const claims = res.lastJson.claims as {
        id: string;
        level?: string;
        comparisons: { label: string }[];
      }[];
      expect(claims.map((c) => [c.id, c.level ?? null])).toEqual([
        ["rlvr-drift", null],
        ["grr-rcacc", "σ_b 0"],
        ["grr-rcacc", "σ_b 0.1"],
        ["grr-rcacc", "σ_b 0.2"],
        ["prm-shift", "PRM shipped"],
        ["prm-shift", "PRM sft-cold-start"],
      ]);
      expect(claims[2].comparisons.map((k) => k.label)).toEqual([
        "GRR − RLVR, final RC-Acc (σ_b 0.1)",
        "GRR − pointwise GR, final RC-Acc (σ_b 0.1)",
      ]);
      expect(claims[5].comparisons.map((k) => k.label)).toEqual([
        "PRM − RLVR, RC-Acc at the first eval (PRM sft-cold-start)",
        "PRM − RLVR, final RC-Acc (PRM sft-cold-start)",
      ]);

      // Each arm's unit: its evals at steps 0, 2, 4.
      const rows = rowsOf(out);
      const arms = [
        "rlvr",
        "prm",
        "pointwise-gr",
        "grr",
        "pointwise-gr sigma_b 0.1",
        "grr sigma_b 0.1",
        "pointwise-gr sigma_b 0.2",
        "grr sigma_b 0.2",
        "prm sft-cold-start",
      ];
      expect([...new Set(rows.map((r) => r.variant))].sort()).toEqual([...arms].sort());
      for (const arm of arms)
        expect(
          rows.filter((r) => r.variant === arm && r.kind === "eval").map((r) => r.step),
          arm,
        ).toEqual([0, 2, 4]);
      const units = readdirSync(join(out, "units"));
      expect(units).toContain("rl.default-2.s1.grr_sigma_b_0.1.json");
      expect(units).toContain("rl.default-2.s1.prm_sft-cold-start.json");

      // The level reaches the reward. Every step is a function of its seed and the rewards
      // before it, so two arms whose rewards never differ train the same rows at every step:
      // rows that part show that σ_b 0.2 moved a judge score. At step 1 both score the same
      // rollouts: the verifier's part is equal. The other PRM scores those rollouts otherwise.
      const train = (arm: string, key: string, step: number) =>
        rows.find((r) => r.variant === arm && r.kind === "train" && r.step === step)!.values[key];
      const series = (arm: string) => [1, 2, 3, 4].map((s) => train(arm, "reward_mean", s));
      expect(series("pointwise-gr sigma_b 0.2")).not.toEqual(series("pointwise-gr"));
      expect(train("pointwise-gr sigma_b 0.2", "components/rVer", 1)).toBe(
        train("pointwise-gr", "components/rVer", 1),
      );
      expect(train("prm sft-cold-start", "components/rPrm", 1)).not.toBe(
        train("prm", "components/rPrm", 1),
      );

      // The report: a row per level, then the curves at every eval step.
      const md = readFileSync(join(out, "claims.md"), "utf8");
      expect(md).toContain("| grr-rcacc (σ_b 0.1) |");
      expect(md).toContain("| prm-shift (PRM sft-cold-start) |");
      const curves = md.slice(md.indexOf("## Curves"));
      expect(curves).toContain("**rlvr-drift: rcAcc**, held-out eval");
      expect(curves).toContain("**prm-shift (PRM sft-cold-start): response_length**");
      expect(curves).toMatch(
        /\| step \| rlvr \| prm sft-cold-start \|\n\| ---: \| --- \| --- \|\n\| 2 \|/,
      );
      expect(readdirSync(out)).toContain("grr-rcacc-sigma_b-0.1.svg");
      expect(readFileSync(join(out, "PLAN.md"), "utf8")).toBe("the plan, fixed before any run\n");
    } finally {
      rmSync(resolve(out, ".."), { recursive: true, force: true });
    }
  }, 1_500_000); // 9 seed-variants of 4 tiny steps, their canary and cost estimate on a CPU adapter
});
