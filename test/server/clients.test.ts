/**
 * The engines' clients against a running server: the verl reward function,
 * the OpenRLHF reward_func and the TRL reward function (Python, standard
 * library only) get the
 * library's rewards; the documented command (docs/reward-server.md) starts the server, which answers
 * OpenRLHF's request and drains on SIGTERM. Without a python3 interpreter the
 * Python tests fail and say what to install.
 */
import { spawn, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../../src/rewards/index";
import { buildRewardServer, type RewardServer } from "../../src/server/app";
import { createJudgeClient } from "../../src/server/judge-client";
import { COMPONENTS_OF } from "../../src/server/scoring";
import { startFakeJudge, type FakeJudge } from "./fake-judge";
import { flatten, makeCases, openRlhfBody, post } from "./fixtures";

const PYTHON = process.env.PYTHON ?? "python3";

function requirePython(): void {
  const r = spawnSync(PYTHON, ["--version"], { encoding: "utf8" });
  if (r.error || r.status !== 0)
    throw new Error(
      `${PYTHON} not found: the verl and OpenRLHF client tests run the Python clients in clients/ and need a Python 3 interpreter (Debian: apt-get install python3; or set PYTHON=/path/to/python3)`,
    );
}

/** Runs a Python snippet with `input` on stdin; returns its stdout parsed as JSON. */
function python(code: string, input: unknown, env: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ["-c", code], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", ...env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("error", reject);
    child.on("close", (status) => {
      if (status !== 0) return reject(new Error(`python exited ${status}: ${err}`));
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`python printed no JSON: ${out} ${err}`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

let fake: FakeJudge;
let server: RewardServer;
let url: string;

beforeAll(async () => {
  fake = await startFakeJudge();
  const judge = createJudgeClient({ url: fake.url, model: "fake-judge", timeoutMs: 10_000 });
  server = buildRewardServer({ variant: "grr", judge });
  url = await server.listen("127.0.0.1", 0);
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

describe("Python clients (standard library only)", () => {
  const cases = makeCases(4, 8, 21);
  const flat = flatten(cases, mulberry32(5));
  const index = flat.map((r) => cases.findIndex((c) => c.prompt === r.prompt));

  it("verl: compute_score (batch manager) returns the server's rewards, groups read from extra_info", async () => {
    requirePython();
    const direct = await post(`${url}/get_reward`, openRlhfBody(flat));
    const code = `
import json, sys
sys.path.insert(0, "clients/verl")
import lab_reward
batch = json.load(sys.stdin)
print(json.dumps(lab_reward.compute_score(**batch)))`;
    const results = (await python(
      code,
      {
        data_sources: flat.map(() => "digits"),
        solution_strs: flat.map((r) => r.response),
        ground_truths: flat.map((r) => JSON.stringify(r.label)),
        extra_infos: flat.map((r, i) => ({ split: "train", index: index[i], question: r.prompt })),
      },
      { REWARD_SERVER_URL: url, REWARD_SERVER_CHUNK: "16" },
    )) as Record<string, number>[];
    expect(results).toHaveLength(flat.length);
    const want = direct.json.rewards as number[];
    results.forEach((row, i) => {
      expect(row.score).toBeCloseTo(want[i], 12);
      expect(Object.keys(row)).toEqual(["score", ...COMPONENTS_OF.grr]);
    });
  });

  it("verl: a refused batch raises ValueError with the server's message", async () => {
    requirePython();
    const code = `
import json, sys
sys.path.insert(0, "clients/verl")
import lab_reward
try:
    lab_reward.compute_score(["d"], ["x"], [None], None)
    print(json.dumps("no error"))
except ValueError as e:
    print(json.dumps(str(e)))`;
    const msg = await python(code, {}, { REWARD_SERVER_URL: url });
    expect(String(msg)).toMatch(/ground_truths\[0\]: must be the answer/);
  });

  it("OpenRLHF: reward_func posts OpenRLHF's body and returns rewards, scores, extra_logs", async () => {
    requirePython();
    const body = openRlhfBody(flat);
    const direct = await post(`${url}/get_reward`, body);
    const code = `
import json, sys
sys.path.insert(0, "clients/openrlhf")
import lab_reward_func
b = json.load(sys.stdin)
out = lab_reward_func.reward_func(b["query"], b["prompts"], b["labels"])
to_list = lambda v: v.tolist() if hasattr(v, "tolist") else v
print(json.dumps({"rewards": to_list(out["rewards"]), "scores": to_list(out["scores"]),
                  "extra_logs": {k: to_list(v) for k, v in out["extra_logs"].items()}}))`;
    const out = (await python(code, body, { REWARD_SERVER_URL: url })) as Record<string, unknown>;
    expect(out.rewards as number[]).toHaveLength(flat.length);
    (out.rewards as number[]).forEach((r, i) => {
      expect(r).toBeCloseTo((direct.json.rewards as number[])[i], 6);
    });
    expect(Object.keys(out.extra_logs as object)).toEqual([...COMPONENTS_OF.grr]);
  });
});

describe("OpenRLHF since its streaming-sampling rework: reward_func called once per rollout", () => {
  it("16 concurrent one-rollout calls (2 prompts x 8) to a server assembling groups of 8 get the whole groups' rewards", async () => {
    requirePython();
    const judge = createJudgeClient({ url: fake.url, model: "fake-judge", timeoutMs: 10_000 });
    const assembled = buildRewardServer({ variant: "grr", judge, assembly: { groupSize: 8 } });
    const assembledUrl = await assembled.listen("127.0.0.1", 0);
    try {
      const flat = flatten(makeCases(2, 8, 27), mulberry32(2));
      const body = openRlhfBody(flat);
      const direct = await post(`${url}/get_reward`, body);
      const code = `
import json, sys
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, "clients/openrlhf")
import lab_reward_func
b = json.load(sys.stdin)
def one(i):
    out = lab_reward_func.reward_func([b["query"][i]], [b["prompts"][i]], [b["labels"][i]])
    r = out["rewards"]
    return (r.tolist() if hasattr(r, "tolist") else r)[0]
with ThreadPoolExecutor(len(b["query"])) as pool:
    print(json.dumps(list(pool.map(one, range(len(b["query"]))))))`;
      const rewards = (await python(code, body, { REWARD_SERVER_URL: assembledUrl })) as number[];
      rewards.forEach((r, i) => {
        expect(r).toBeCloseTo((direct.json.rewards as number[])[i], 6);
      });
      expect(assembled.stats().assembly).toMatchObject({ groupsFilled: 2, groupsTimedOut: 0 });
    } finally {
      await assembled.close();
    }
  });
});

describe("TRL: GRPOTrainer's reward function (Python, standard library only)", () => {
  // TRL's order: the completions of a prompt next to each other.
  const cases = makeCases(4, 8, 23);
  const flat = flatten(cases);

  it("lab_reward returns the server's rewards for text prompts, one group per run of a prompt", async () => {
    requirePython();
    const direct = await post(`${url}/get_reward`, openRlhfBody(flat));
    const code = `
import json, sys
sys.path.insert(0, "clients/trl")
from lab_reward import lab_reward
print(json.dumps(lab_reward(**json.load(sys.stdin))))`;
    const rewards = (await python(
      code,
      {
        prompts: flat.map((r) => r.prompt),
        completions: flat.map((r) => r.response),
        answer: flat.map((r) => JSON.stringify(r.label)),
        trainer_state: null,
      },
      { REWARD_SERVER_URL: url },
    )) as number[];
    expect(rewards).toHaveLength(flat.length);
    rewards.forEach((r, i) => {
      expect(r).toBeCloseTo((direct.json.rewards as number[])[i], 12);
    });
  });

  it("conversations, a label column by name, None for rollouts without a label", async () => {
    requirePython();
    const direct = await post(`${url}/get_reward`, openRlhfBody(flat));
    const code = `
import json, sys
sys.path.insert(0, "clients/trl")
from lab_reward import lab_reward
print(json.dumps(lab_reward(**json.load(sys.stdin))))`;
    const rewards = (await python(
      code,
      {
        prompts: flat.map((r) => [
          { role: "user", content: [{ type: "image" }, { type: "text", text: r.prompt }] },
        ]),
        completions: flat.map((r) => [{ role: "assistant", content: r.response }]),
        solution: flat.map((r, i) => (i < 8 ? null : r.label)),
        trainer_state: null,
      },
      { REWARD_SERVER_URL: url, REWARD_LABEL_KEY: "solution" },
    )) as (number | null)[];
    expect(rewards.slice(0, 8)).toEqual(Array(8).fill(null));
    rewards.slice(8).forEach((r, k) => {
      expect(r).toBeCloseTo((direct.json.rewards as number[])[8 + k], 12);
    });
  });
});

describe("npm run serve:rewards (the README's command)", () => {
  it("starts, answers OpenRLHF's request, refuses an unknown variant, drains on SIGTERM", async () => {
    const bad = spawnSync("npm", ["run", "-s", "serve:rewards", "--", "--variant", "scs"], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout.trim().split("\n").pop()!).error).toMatch(/--variant: 'scs'/);
    const noJudge = spawnSync("npm", ["run", "-s", "serve:rewards", "--", "--variant", "grr"], {
      encoding: "utf8",
      env: { ...process.env, REWARD_JUDGE_URL: "", REWARD_JUDGE_MODEL: "" },
    });
    expect(noJudge.stdout).toMatch(/REWARD_JUDGE_URL: required for --variant grr/);

    const child = spawn(
      "npm",
      ["run", "-s", "serve:rewards", "--", "--variant", "rlvr", "--port", "0"],
      {
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      const serverUrl = await new Promise<string>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(
          () => reject(new Error(`no start-up line: ${out} ${err}`)),
          60_000,
        );
        child.stdout.on("data", (d: Buffer) => {
          out += d;
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      const flat = flatten(makeCases(2, 4, 1));
      const res = await post(`${serverUrl}/get_reward`, openRlhfBody(flat));
      expect(res.status).toBe(200);
      expect(res.json.rewards).toHaveLength(8);
    } finally {
      process.kill(-child.pid!, "SIGTERM"); // the group: npm, sh and node
    }
    await exited;
    await new Promise((r) => setTimeout(r, 500));
    expect(err).toMatch(/SIGTERM: draining/);
    expect(err).toMatch(/stopped/);
  });
});
