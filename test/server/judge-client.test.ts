/**
 * The OpenAI-compatible judge client against a stand-in endpoint on
 * 127.0.0.1 that replies validly, malformed, slowly or with errors: replies
 * are parsed, repaired, retried, timed out and counted, and the API key
 * appears only in the Authorization header.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseJudgeRanking, parseJudgeScore } from "../../src/rewards/index";
import { createJudgeClient, redactUrl } from "../../src/server/judge-client";
import { GROUPWISE_INSTRUCTIONS, POINTWISE_INSTRUCTIONS } from "../../src/server/judge-prompts";
import { DEFAULT_LIMITS, readLabel } from "../../src/server/protocol";
import { promptOf } from "../../src/server/scoring";
import { startFakeJudge, type FakeJudge } from "./fake-judge";
import { response } from "./fixtures";

const KEY = "sk-test-secret-key-0123456789";
const prompt = promptOf(
  readLabel({ answer: "12", steps: ["3", "4", "5", "12"] }, "label", DEFAULT_LIMITS),
  "What is the sum of the digits?",
  "t",
);
const texts = [
  response([3, 4, 5], "good"),
  response([3, 4, 5], "good-short"),
  response([3, 4, 5], "good"),
];

let fake: FakeJudge;
beforeAll(async () => {
  fake = await startFakeJudge();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.script([]);
});

function client(extra: Partial<Parameters<typeof createJudgeClient>[0]> = {}) {
  return createJudgeClient({
    url: fake.url,
    model: "fake-judge",
    apiKey: KEY,
    timeoutMs: 3_000,
    maxAttempts: 3,
    backoffMs: 5,
    maxBackoffMs: 20,
    ...extra,
  });
}

describe("judge client", () => {
  it("valid replies: parsed, one attempt, model and messages as sent, key only in the header", async () => {
    const c = client();
    const ranking = await c.groupwise({ prompt, texts });
    const r = parseJudgeRanking({ text: ranking, numCandidates: 3 });
    expect(r.ok && r.complete).toBe(true);
    expect(r.ranks).toEqual([1, 2, 1]);
    const score = await c.pointwise({ prompt, text: texts[0] });
    expect(parseJudgeScore({ text: score }).score).toBe(1);
    expect(fake.requests).toHaveLength(2);
    const [g, p] = fake.requests;
    expect(g.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(g.body.model).toBe("fake-judge");
    expect(g.body.messages[0]).toEqual({ role: "system", content: GROUPWISE_INSTRUCTIONS });
    expect(g.body.messages[1].content).toContain("Reference answer: 12");
    expect(g.body.messages[1].content).toContain('<candidate index="3">');
    expect(p.body.messages[0].content).toBe(POINTWISE_INSTRUCTIONS);
    expect(JSON.stringify(g.body)).not.toContain(KEY);
    const s = c.stats();
    expect(s).toMatchObject({
      calls: 2,
      attempts: 2,
      retries: 0,
      succeeded: 2,
      failed: 0,
      repaired: 0,
    });
    expect(JSON.stringify(s)).not.toContain(KEY);
    expect(c.describe()).not.toContain(KEY);
  });

  it("a fenced reply with prose and a trailing comma is repaired, not retried", async () => {
    const c = client();
    fake.script(["fenced"]);
    const reply = await c.groupwise({ prompt, texts });
    expect(parseJudgeRanking({ text: reply, numCandidates: 3 }).ranks).toEqual([1, 2, 1]);
    expect(c.stats()).toMatchObject({ attempts: 1, repaired: 1, succeeded: 1, unparseable: 0 });
  });

  it("an unreadable reply and a reply without content are retried, then the valid one is used", async () => {
    const c = client();
    fake.script(["garbage", "no-content"]);
    const reply = await c.groupwise({ prompt, texts });
    expect(parseJudgeRanking({ text: reply, numCandidates: 3 }).ok).toBe(true);
    expect(c.stats()).toMatchObject({
      attempts: 3,
      retries: 2,
      unparseable: 2,
      succeeded: 1,
      failed: 0,
    });
  });

  it("HTTP 500 and 429 are retried with backoff; 401 is not retried and counts a failure", async () => {
    const c = client();
    fake.script(["http500", "http429"]);
    expect(parseJudgeScore({ text: await c.pointwise({ prompt, text: texts[1] }) }).score).toBe(
      0.2,
    );
    expect(c.stats()).toMatchObject({ attempts: 3, retries: 2, httpErrors: 2, succeeded: 1 });
    fake.script(["http401"]);
    expect(await c.pointwise({ prompt, text: texts[1] })).toBe("");
    expect(c.stats()).toMatchObject({
      attempts: 4,
      httpErrors: 3,
      failed: 1,
      lastError: "HTTP 401",
    });
  });

  it("a slow reply is cut by the timeout and retried", async () => {
    const c = client({ timeoutMs: 500 });
    fake.slowMs = 4_000;
    fake.script(["slow"]);
    const t0 = performance.now();
    const reply = await c.groupwise({ prompt, texts });
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(parseJudgeRanking({ text: reply, numCandidates: 3 }).ok).toBe(true);
    expect(c.stats()).toMatchObject({ timeouts: 1, retries: 1, succeeded: 1 });
  });

  it("a judge that always fails: every attempt used, the call returns '' and counts a failure", async () => {
    const c = client({ timeoutMs: 500 });
    fake.slowMs = 4_000;
    fake.script(["garbage", "http500", "slow"]);
    const reply = await c.groupwise({ prompt, texts });
    expect(parseJudgeRanking({ text: reply, numCandidates: 3 }).ok).toBe(false);
    expect(c.stats()).toMatchObject({
      calls: 1,
      attempts: 3,
      failed: 1,
      unparseable: 1,
      httpErrors: 1,
      timeouts: 1,
    });
  });

  it("an unreachable judge counts network errors; concurrency bounds calls in flight", async () => {
    const down = createJudgeClient({
      url: "http://127.0.0.1:9/v1",
      model: "m",
      maxAttempts: 2,
      backoffMs: 1,
    });
    expect(await down.pointwise({ prompt, text: texts[0] })).toBe("");
    expect(down.stats()).toMatchObject({ networkErrors: 2, failed: 1 });
    const c = client({ concurrency: 2 });
    fake.latencyMs = 50;
    fake.peakInFlight = 0;
    await Promise.all(Array.from({ length: 6 }, () => c.pointwise({ prompt, text: texts[0] })));
    fake.latencyMs = 0;
    expect(fake.requests.length).toBe(6);
    expect(c.stats().succeeded).toBe(6);
    expect(fake.peakInFlight).toBe(2);
  });

  it("settings are checked and URLs are shown without credentials or query", () => {
    expect(() => createJudgeClient({ url: "ftp://x", model: "m" })).toThrow(/judge url/);
    expect(() => createJudgeClient({ url: fake.url, model: " " })).toThrow(/REWARD_JUDGE_MODEL/);
    expect(() => createJudgeClient({ url: fake.url, model: "m", timeoutMs: 0 })).toThrow(
      /judge.timeoutMs/,
    );
    expect(redactUrl("https://user:pw@api.example/v1?api-key=s3cret")).toBe(
      "https://api.example/v1",
    );
  });
});
