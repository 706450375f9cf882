/**
 * The written reward on the reward server (`serve:rewards --reward FILE`):
 * the operator's file is served through the existing endpoints to the verl
 * and OpenRLHF clients, in the same sandbox with the same limits; a reward
 * the operator did not pass (in the config's weights, or with no file) is
 * never run; hostile code fails its request with its message and the server
 * goes on.
 */
import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32, verifyRollout } from "../../src/rewards/index";
import { buildRewardServer, type RewardServer } from "../../src/server/app";
import { readServeSettings } from "../../src/server/config";
import { readRewardFile } from "../../src/server/reward-file";
import { promptOf } from "../../src/server/scoring";
import { DEFAULT_LIMITS, readLabel } from "../../src/server/protocol";
import { flatten, makeCases, openRlhfBody, post } from "./fixtures";

const PYTHON = process.env.PYTHON ?? "python3";
const LENGTH_BONUS = resolve(import.meta.dirname, "../../examples/rewards/length-bonus.js");

function python(code: string, input: unknown, env: Record<string, string>): Promise<unknown> {
  return new Promise((done, fail) => {
    const child = spawn(PYTHON, ["-c", code], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", ...env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("error", fail);
    child.on("close", (status) =>
      status === 0 ? done(JSON.parse(out)) : fail(new Error(`python exited ${status}: ${err}`)),
    );
    child.stdin.end(JSON.stringify(input));
  });
}

let server: RewardServer;
let url: string;
const cases = makeCases(3, 4, 17);
const flat = flatten(cases, mulberry32(9));
/** The length bonus by hand: r_ver of the lab's verifier + characters / 100. */
const expected = flat.map(
  (r) =>
    verifyRollout({
      text: r.response,
      prompt: promptOf(readLabel(JSON.stringify(r.label), "label", DEFAULT_LIMITS), r.prompt, "x"),
    }).rVer +
    r.response.length / 100,
);

beforeAll(async () => {
  server = buildRewardServer({ variant: "user", user: { code: readRewardFile(LENGTH_BONUS) } });
  url = await server.listen("127.0.0.1", 0);
});
afterAll(async () => {
  await server.close();
});

describe("serve:rewards --reward FILE", () => {
  it("OpenRLHF's endpoint returns the file's rewards and its components as extra_logs", async () => {
    const res = await post(`${url}/get_reward`, openRlhfBody(flat));
    expect(res.status).toBe(200);
    (res.json.rewards as number[]).forEach((r, i) => {
      expect(r).toBeCloseTo(expected[i], 12);
    });
    expect(Object.keys(res.json.extra_logs as object)).toEqual(["answer", "length"]);
    // Both right and wrong answers occur in the fixture.
    expect(new Set(expected.map(Math.floor)).size).toBe(2);
  });

  it("the verl and OpenRLHF Python clients get the same rewards", async () => {
    const index = flat.map((r) => cases.findIndex((c) => c.prompt === r.prompt));
    const verl = (await python(
      `
import json, sys
sys.path.insert(0, "clients/verl")
import lab_reward
print(json.dumps(lab_reward.compute_score(**json.load(sys.stdin))))`,
      {
        data_sources: flat.map(() => "digits"),
        solution_strs: flat.map((r) => r.response),
        ground_truths: flat.map((r) => JSON.stringify(r.label)),
        extra_infos: flat.map((r, i) => ({ split: "train", index: index[i], question: r.prompt })),
      },
      { REWARD_SERVER_URL: url },
    )) as Record<string, number>[];
    verl.forEach((row, i) => {
      expect(row.score).toBeCloseTo(expected[i], 12);
      expect(Object.keys(row)).toEqual(["score", "answer", "length"]);
    });
    const body = openRlhfBody(flat);
    const openrlhf = (await python(
      `
import json, sys
sys.path.insert(0, "clients/openrlhf")
import lab_reward_func
b = json.load(sys.stdin)
out = lab_reward_func.reward_func(b["query"], b["prompts"], b["labels"])
to_list = lambda v: v.tolist() if hasattr(v, "tolist") else v
print(json.dumps({"rewards": to_list(out["rewards"])}))`,
      body,
      { REWARD_SERVER_URL: url },
    )) as { rewards: number[] };
    openrlhf.rewards.forEach((r, i) => {
      expect(r).toBeCloseTo(expected[i], 6);
    });
  });

  it("hostile code fails its request with the sandbox's message; the server answers the next", async () => {
    const loop = buildRewardServer({
      variant: "user",
      user: { code: "function reward(g) {\n  for (;;) {}\n}" },
    });
    const at = await loop.listen("127.0.0.1", 0);
    try {
      const res = await post(`${at}/get_reward`, openRlhfBody(flat.slice(0, 4)));
      expect(res.status).toBe(500);
      expect(String(res.json.message ?? res.json.error)).toMatch(
        /your reward: the reward ran past its time budget of 1000 ms for one group and was stopped in reward \(the last place the engine recorded: line 1\); an endless loop\?/,
      );
      expect((await fetch(`${at}/health`)).status).toBe(200);
    } finally {
      await loop.close();
    }
    expect((await post(`${url}/get_reward`, openRlhfBody(flat))).status).toBe(200);
  });

  it("a reward the operator did not pass is never run", () => {
    const code = "function reward(g) { return g.rollouts.map(() => 99); }";
    expect(() => buildRewardServer({ variant: "user" })).toThrow(
      /needs the operator's --reward FILE/,
    );
    expect(() => buildRewardServer({ variant: "user", weights: { code }, user: { code } })).toThrow(
      /weights\.code: a written reward's code comes only from --reward FILE/,
    );
    expect(() => readServeSettings(["--variant", "user"], {})).toThrow(/needs --reward FILE/);
    expect(() => readServeSettings(["--variant", "rlvr", "--reward", LENGTH_BONUS], {})).toThrow(
      /--reward: serves the user variant, not --variant rlvr/,
    );
    const s = readServeSettings(["--reward", LENGTH_BONUS], {});
    expect(s.variant).toBe("user");
    expect(s.rewardCode).toBe(readRewardFile(LENGTH_BONUS));
    expect(() => readServeSettings(["--reward", "/no/such/reward.js"], {})).toThrow(
      /--reward \/no\/such\/reward\.js: ENOENT/,
    );
  });

  it("code in a request is never run: the file's rewards come back", async () => {
    const code = "function reward(g) { return g.rollouts.map(() => 99); }";
    const body = { ...openRlhfBody(flat), code, weights: { code }, reward: code };
    const res = await post(`${url}/get_reward`, body);
    expect(res.status).toBe(200);
    (res.json.rewards as number[]).forEach((r, i) => {
      expect(r).toBeCloseTo(expected[i], 12);
    });
  });

  it("npm run serve:rewards -- --reward FILE starts and names the user variant", async () => {
    const bad = spawnSync("npm", ["run", "-s", "serve:rewards", "--", "--variant", "user"], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout.trim().split("\n").pop()!).error).toMatch(/needs --reward FILE/);
  });
});
