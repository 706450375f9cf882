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
import { readLabel, DEFAULT_LIMITS, responseAfterPrompt } from "../../src/server/protocol";
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

describe("VLM queries as OpenRLHF decodes them (special tokens kept)", () => {
  // Qwen2.5-VL's chat template: one <|image_pad|> in the prompt string, one per
  // image patch after the processor's expansion in the decoded query.
  const vlmPrompt = (question: string, pads: number) =>
    `<|im_start|>system\nAnswer like this example: <think> Step 1: 2 + 5 = \\boxed{7} </think> \\boxed{7}<|im_end|>\n<|im_start|>user\n<|vision_start|>${"<|image_pad|>".repeat(pads)}<|vision_end|>${question}<|im_end|>\n<|im_start|>assistant\n`;

  it("responseAfterPrompt: the text after the prompt, a placeholder run matching its expansion", () => {
    const p = vlmPrompt("What is 3 + 4?", 1);
    expect(responseAfterPrompt(`${p}\\boxed{7}<|im_end|>`, p)).toBe("\\boxed{7}<|im_end|>");
    expect(responseAfterPrompt(`${vlmPrompt("What is 3 + 4?", 64)}\\boxed{7}<|im_end|>`, p)).toBe(
      "\\boxed{7}<|im_end|>",
    );
    // LLaVA's <image> and InternVL's <IMG_CONTEXT> expand the same way.
    expect(
      responseAfterPrompt(
        "USER: <image><image><image>\nSum? ASSISTANT: 12",
        "USER: <image>\nSum? ASSISTANT: ",
      ),
    ).toBe("12");
    expect(
      responseAfterPrompt("<img><IMG_CONTEXT><IMG_CONTEXT></img>Q A", "<img><IMG_CONTEXT></img>Q "),
    ).toBe("A");
    // Not the prompt: another question, or no placeholder where the prompt has one.
    expect(responseAfterPrompt(`${vlmPrompt("What is 3 + 5?", 64)}7`, p)).toBeNull();
    expect(responseAfterPrompt(`${vlmPrompt("What is 3 + 4?", 0)}7`, p)).toBeNull();
  });

  for (const variant of ["structreward", "grr"] as const)
    it(`${variant}: rewards of VLM-decoded queries equal the library's for the responses alone`, async () => {
      const { url } = servers.get(variant)!;
      const [c] = makeCases(1, 8, 13);
      const question = "Image 0: what is the sum of the digits?";
      const plain = await post(`${url}/get_reward`, {
        query: c.responses.map((r) => vlmPrompt(question, 1) + r),
        prompts: c.responses.map(() => vlmPrompt(question, 1)),
        labels: c.responses.map(() => JSON.stringify(c.label)),
      });
      const decoded = await post(`${url}/get_reward`, {
        query: c.responses.map((r) => `${vlmPrompt(question, 256)}${r}<|im_end|>`),
        prompts: c.responses.map(() => vlmPrompt(question, 1)),
        labels: c.responses.map(() => JSON.stringify(c.label)),
      });
      expect(decoded.status).toBe(200);
      expect(decoded.json.rewards).toEqual(plain.json.rewards);
      const want = expected(variant, [c]);
      (decoded.json.rewards as number[]).forEach((r, i) => {
        expect(r).toBeCloseTo(want.get(c.prompt + c.responses[i])!, 12);
      });
    });
});
