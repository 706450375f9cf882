// `npm run lab` reads --variants, --estimator and --set through the variant
// and estimator tables. With --dry-run it prints the experiment the flags
// give and exits before any GPU work, so these checks train nothing.
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli";

const lab = (...args: string[]) => runCli("lab", args, { timeout: 120_000 });

describe("npm run lab -- --estimator / --set / --variants (dry run)", () => {
  it("--estimator rloo and --set reach the experiment; other flags keep working", () => {
    const res = lab(
      "--preset",
      "smoke",
      "--variants",
      "rlvr,grr,structreward",
      "--estimator",
      "rloo",
      "--set",
      "grr.lambda=0.5",
      "--set",
      "grr.mapping=edn",
      "--set",
      "structreward.estimator=reinforce++",
      "--steps",
      "2",
      "--lr",
      "1e-4",
      "--dry-run",
    );
    expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
    const { preset, experiment } = res.lastJson;
    expect(preset).toBe("smoke");
    expect(experiment.algorithm).toMatchObject({ estimator: "rloo", steps: 2, lr: 1e-4 });
    expect(experiment.variants.map((v: { name: string }) => v.name)).toEqual([
      "rlvr",
      "grr",
      "structreward",
    ]);
    expect(experiment.variants[1].weights).toEqual({ lambda: 0.5, mapping: "edn" });
    expect(experiment.variants[2]).toMatchObject({ estimator: "reinforce++", beta: 1e-3 });
  }, 120_000);

  it("--multiple-choice and --slip-box reach the task", () => {
    const res = lab("--preset", "drift", "--multiple-choice", "--slip-box", "step", "--dry-run");
    expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
    const { experiment } = res.lastJson;
    expect(experiment.task).toMatchObject({ multipleChoice: true, traceSlipBox: "step" });
    const bad = lab("--preset", "drift", "--slip-box", "sideways", "--dry-run");
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/traceSlipBox|--slip-box/);
  }, 120_000);

  it.each([
    [["--set", "grr.lambda=abc"], /grr\.weights\.lambda: Invalid input: expected number/],
    [["--set", "nope.x=1"], /unknown variant 'nope'/],
    [["--estimator", "ppo"], /--estimator: unknown estimator 'ppo'/],
    [["--variants", "rlvr,nope"], /unknown variant 'nope'/],
  ])(
    "%s fails naming the field",
    (args, msg) => {
      const res = lab("--preset", "smoke", ...args, "--dry-run");
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(msg);
      // A failing CLI ends with one JSON error line on stdout (and nothing else).
      const lines = res.stdout.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]).error).toMatch(msg);
    },
    120_000,
  );
});
