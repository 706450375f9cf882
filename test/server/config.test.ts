/** `serve:rewards` settings: flags over the config file, the judge from the environment, errors naming the flag or field. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRewardServer } from "../../src/server/app";
import { readServeSettings } from "../../src/server/config";

const dir = mkdtempSync(join(tmpdir(), "serve-config-"));
function file(name: string, value: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof value === "string" ? value : JSON.stringify(value));
  return p;
}
const judgeEnv = { REWARD_JUDGE_URL: "http://127.0.0.1:8000/v1", REWARD_JUDGE_MODEL: "judge-7b" };

describe("readServeSettings", () => {
  it("defaults: port 5000 on 127.0.0.1, no judge for rlvr", () => {
    const s = readServeSettings(["--variant", "rlvr"], {});
    expect(s).toMatchObject({ variant: "rlvr", host: "127.0.0.1", port: 5000, judge: null });
  });

  it("a config file sets weights, limits and judge settings; flags win", () => {
    const cfg = file("grr.json", {
      variant: "pointwise-gr",
      port: 6000,
      weights: { lambda: 0.5 },
      limits: { maxConcurrent: 2, maxGroupSize: 16 },
      judge: { timeoutMs: 30_000, maxAttempts: 2 },
    });
    const s = readServeSettings(["--variant", "grr", "--port", "7000", "--config", cfg], {
      ...judgeEnv,
      REWARD_JUDGE_API_KEY: "k",
    });
    expect(s.variant).toBe("grr");
    expect(s.port).toBe(7000);
    expect(s.judge).toMatchObject({
      ...{ url: judgeEnv.REWARD_JUDGE_URL, model: "judge-7b" },
      apiKey: "k",
      timeoutMs: 30_000,
      maxAttempts: 2,
    });
    expect(s.config.limits).toEqual({ maxConcurrent: 2, maxGroupSize: 16 });
  });

  it("errors name the flag, the config field or the variable", () => {
    expect(() => readServeSettings([], {})).toThrow(/--variant: required/);
    expect(() => readServeSettings(["--variant", "acre"], {})).toThrow(
      /--variant: 'acre' is not served/,
    );
    expect(() => readServeSettings(["--variant", "rlvr", "--port", "x1"], {})).toThrow(/--port/);
    expect(() => readServeSettings(["--variant", "rlvr", "--nope"], {})).toThrow(/nope/);
    expect(() => readServeSettings(["--variant", "grr"], {})).toThrow(/REWARD_JUDGE_URL: required/);
    const unknown = file("unknown.json", { limits: { maxRollout: 3 } });
    expect(() => readServeSettings(["--variant", "rlvr", "--config", unknown], {})).toThrow(
      /limits: Unrecognized key: "maxRollout"/,
    );
    const proto = file("proto.json", '{"__proto__": {"x": 1}}');
    expect(() => readServeSettings(["--variant", "rlvr", "--config", proto], {})).toThrow(
      /__proto__/,
    );
    expect(() =>
      readServeSettings(["--variant", "rlvr", "--config", join(dir, "none.json")], {}),
    ).toThrow(/--config: cannot read/);
  });

  it("assembly flags override the config file's assembly entry; bad values name the flag", () => {
    const cfg = file("assembly.json", { assembly: { groupSize: 4, groupWaitMs: 5_000 } });
    const s = readServeSettings(
      ["--variant", "grr", "--config", cfg, "--group-size", "8", "--max-waiting-groups", "100"],
      judgeEnv,
    );
    expect(s.config.assembly).toEqual({ groupSize: 8, groupWaitMs: 5_000, maxWaitingGroups: 100 });
    expect(() => readServeSettings(["--variant", "grr", "--group-size", "1"], judgeEnv)).toThrow(
      /--group-size: must be 0 \(off\) or at least 2/,
    );
    expect(() => readServeSettings(["--variant", "grr", "--group-wait-ms", "0"], judgeEnv)).toThrow(
      /--group-wait-ms must be an integer in \[1, 86400000\] \(.+\), got '0'/,
    );
    expect(() =>
      readServeSettings(["--variant", "grr", "--max-waiting-rollouts", "1e3"], judgeEnv),
    ).toThrow(/--max-waiting-rollouts must be an integer in \[1, 10000000\]/);
    expect(() => buildRewardServer({ variant: "rlvr", assembly: { groupSize: 128 } })).toThrow(
      /assembly.groupSize \(128\) is more than limits.maxGroupSize \(64\)/,
    );
  });

  it("weights are checked by the variant table's schema", () => {
    expect(() => buildRewardServer({ variant: "structreward", weights: { fmt: -1 } })).toThrow(
      /weights \(structreward\): fmt/,
    );
    expect(() => buildRewardServer({ variant: "grr", weights: {} })).toThrow(/needs an LLM judge/);
  });
});
