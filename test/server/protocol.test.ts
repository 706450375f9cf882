/**
 * The reward server speaks OpenRLHF's remote reward protocol and verl's batch
 * shape, and its rewards are the reward library's own for the same texts,
 * whatever order the rollouts of a group arrive in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  mulberry32,
  scoreGRR,
  scorePointwiseGR,
  scoreRLVR,
  scoreStructReward,
  STRUCT_DEFAULT_WEIGHTS,
  type GroupScore,
} from "../../src/rewards/index";
import { buildRewardServer, type RewardServer } from "../../src/server/app";
import { createJudgeClient } from "../../src/server/judge-client";
import { readLabel, DEFAULT_LIMITS } from "../../src/server/protocol";
import { COMPONENTS_OF, promptOf, type ServedVariant } from "../../src/server/scoring";
import { startFakeJudge, syncFakeJudge, type FakeJudge } from "./fake-judge";
import { flatten, makeCases, openRlhfBody, post, type PromptCase } from "./fixtures";

let fake: FakeJudge;
const servers = new Map<ServedVariant, { server: RewardServer; url: string }>();

beforeAll(async () => {
  fake = await startFakeJudge();
  for (const variant of ["rlvr", "structreward", "pointwise-gr", "grr"] as const) {
    const judge =
      variant === "grr" || variant === "pointwise-gr"
        ? createJudgeClient({ url: fake.url, model: "fake-judge", timeoutMs: 5_000 })
        : undefined;
    const server = buildRewardServer({ variant, judge });
    servers.set(variant, { server, url: await server.listen("127.0.0.1", 0) });
  }
});

afterAll(async () => {
  for (const { server } of servers.values()) await server.close();
  await fake.close();
});

/** The library's own scores of one prompt's rollouts, for `variant`. */
function libraryScores(variant: ServedVariant, c: PromptCase): GroupScore {
  const prompt = promptOf(
    readLabel(JSON.stringify(c.label), "label", DEFAULT_LIMITS),
    c.prompt,
    "x",
  );
  const rng = mulberry32(0);
  switch (variant) {
    case "rlvr":
      return scoreRLVR(prompt, c.responses);
    case "structreward":
      return scoreStructReward(prompt, c.responses, { weights: STRUCT_DEFAULT_WEIGHTS });
    case "pointwise-gr":
      return scorePointwiseGR(prompt, c.responses, { judge: syncFakeJudge, lambda: 1 }, rng);
    default:
      return scoreGRR(
        prompt,
        c.responses,
        { judge: syncFakeJudge, lambda: 1, mapping: "pcs" },
        rng,
      );
  }
}

/** Expected reward per (prompt, response) from the library. */
function expected(variant: ServedVariant, cases: readonly PromptCase[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of cases) {
    const g = libraryScores(variant, c);
    c.responses.forEach((r, i) => {
      out.set(c.prompt + r, g.rollouts[i].total);
    });
  }
  return out;
}

describe("OpenRLHF /get_reward", () => {
  const cases = makeCases(6, 8, 7);

  for (const variant of ["rlvr", "structreward", "pointwise-gr", "grr"] as const) {
    it(`${variant}: rewards of the right length, equal to the library's, in any rollout order`, async () => {
      const { url } = servers.get(variant)!;
      const want = expected(variant, cases);
      for (const seed of [0, 1, 2]) {
        const flat = flatten(cases, seed === 0 ? undefined : mulberry32(seed));
        const body = openRlhfBody(flat);
        const res = await post(`${url}/get_reward`, body);
        expect(res.status).toBe(200);
        const rewards = res.json.rewards as number[];
        const scores = res.json.scores as number[];
        const extra = res.json.extra_logs as Record<string, number[]>;
        expect(rewards).toHaveLength(flat.length);
        expect(scores).toHaveLength(flat.length);
        expect(Object.keys(extra)).toEqual([...COMPONENTS_OF[variant]]);
        for (const k of COMPONENTS_OF[variant]) expect(extra[k]).toHaveLength(flat.length);
        flat.forEach((r, i) => {
          expect(rewards[i]).toBeCloseTo(want.get(r.prompt + r.response)!, 12);
          expect(scores[i] === 0 || scores[i] === 1).toBe(true);
        });
      }
    });
  }

  it("GRR ranks within a group: its rewards are spread, centred over the passed rollouts", async () => {
    const { url } = servers.get("grr")!;
    const flat = flatten(cases);
    const res = await post(`${url}/get_reward`, openRlhfBody(flat));
    const rRank = (res.json.extra_logs as Record<string, number[]>).rRank;
    const rVer = (res.json.extra_logs as Record<string, number[]>).rVer;
    for (const c of cases) {
      const idx = flat.flatMap((r, i) => (r.prompt === c.prompt && rVer[i] === 1 ? [i] : []));
      const sum = idx.reduce((a, i) => a + rRank[i], 0);
      expect(Math.abs(sum)).toBeLessThan(1e-9);
    }
    expect(rRank.some((x) => x !== 0)).toBe(true);
  });

  it("labels as plain answers, as objects and as JSON strings give the same rewards", async () => {
    const { url } = servers.get("rlvr")!;
    const flat = flatten(makeCases(2, 4, 3));
    const asJson = await post(`${url}/get_reward`, openRlhfBody(flat));
    const asObject = await post(`${url}/get_reward`, {
      ...openRlhfBody(flat),
      labels: flat.map((r) => r.label),
    });
    const asPlain = await post(`${url}/get_reward`, {
      ...openRlhfBody(flat),
      labels: flat.map((r) => r.label.answer),
    });
    expect(asObject.json.rewards).toEqual(asJson.json.rewards);
    expect(asPlain.json.rewards).toEqual(asJson.json.rewards);
  });

  it("StructReward without reference steps pays format, correctness and consistency (lab choice)", async () => {
    const { url } = servers.get("structreward")!;
    const c = makeCases(1, 6, 5, false)[0];
    const flat = flatten([c]);
    const res = await post(`${url}/get_reward`, openRlhfBody(flat));
    const e = res.json.extra_logs as Record<string, number[]>;
    const w = STRUCT_DEFAULT_WEIGHTS;
    (res.json.rewards as number[]).forEach((total, i) => {
      expect(e.hasReference[i]).toBe(0);
      const want =
        w.fmt * e.fmt[i] +
        w.right * e.right[i] +
        w.rule * e.right[i] * e.cons[i] * (1 + w.cons * e.cons[i]);
      expect(total).toBeCloseTo(want, 12);
    });
  });
});

describe("verl /verl/compute_score", () => {
  it("one result dict per rollout: score = the library's total, components beside it", async () => {
    const cases = makeCases(4, 8, 11);
    const flat = flatten(cases, mulberry32(4));
    const ids = flat.map((r) => cases.findIndex((c) => c.prompt === r.prompt));
    const want = expected("grr", cases);
    const { url } = servers.get("grr")!;
    const res = await post(`${url}/verl/compute_score`, {
      data_sources: flat.map(() => "digits"),
      solution_strs: flat.map((r) => r.response),
      ground_truths: flat.map((r) => r.label),
      extra_infos: flat.map((_, i) => ({ index: ids[i] })),
      group_ids: ids,
      prompts: flat.map((r) => r.prompt),
    });
    expect(res.status).toBe(200);
    const results = res.json.results as Record<string, number>[];
    expect(results).toHaveLength(flat.length);
    results.forEach((row, i) => {
      expect(Object.keys(row)).toEqual(["score", ...COMPONENTS_OF.grr]);
      expect(row.score).toBeCloseTo(want.get(flat[i].prompt + flat[i].response)!, 12);
    });
  });
});
