/**
 * Untrusted bodies and load: each bad input (a body over the byte limit too)
 * gets a 400 whose message names the field, and the server answers a good
 * request right after it; a full queue answers 503 with Retry-After; closing
 * the server lets the requests in flight finish.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRewardServer, type RewardServer } from "../../src/server/app";
import { createJudgeClient } from "../../src/server/judge-client";
import { startFakeJudge, type FakeJudge } from "./fake-judge";
import { flatten, makeCases, openRlhfBody, post } from "./fixtures";

const good = openRlhfBody(flatten(makeCases(2, 4, 9)));
let server: RewardServer;
let url: string;

beforeAll(async () => {
  server = buildRewardServer({
    variant: "structreward",
    limits: { maxBodyBytes: 256 * 1024, maxRollouts: 64, maxTextChars: 2_000 },
  });
  url = await server.listen("127.0.0.1", 0);
});
afterAll(async () => {
  await server.close();
});

async function expectGoodAfter(): Promise<void> {
  const res = await post(`${url}/get_reward`, good);
  expect(res.status).toBe(200);
  expect(res.json.rewards).toHaveLength(good.query.length);
}

const bytes = (s: string) => new TextEncoder().encode(s);

const cases: { name: string; body: unknown; raw?: boolean; status?: number; error: RegExp }[] = [
  { name: "not JSON", body: bytes('{"query": ['), raw: true, error: /^body: not valid JSON/ },
  { name: "empty body", body: new Uint8Array(0), raw: true, error: /^body: missing/ },
  { name: "not an object", body: [1, 2], error: /^body: .*expected object/ },
  { name: "query missing", body: { prompts: [] }, error: /^query: .*expected array/ },
  {
    name: "a query that is not a string",
    body: { ...good, query: [...good.query.slice(1), 42] },
    error: /^query\[7\]: .*expected string, received number/,
  },
  {
    name: "labels shorter than query",
    body: { ...good, labels: good.labels.slice(1) },
    error: /^labels: has 7 entries but query has 8/,
  },
  {
    name: "prompts longer than query",
    body: { ...good, prompts: [...good.prompts, "x"] },
    error: /^prompts: has 9 entries but query has 8/,
  },
  {
    name: "labels missing",
    body: { query: good.query, prompts: good.prompts },
    error: /^labels: required/,
  },
  {
    name: "a label of the wrong shape",
    body: {
      ...good,
      labels: good.labels.map((l, i) => (i === 2 ? { answer: "3", steps: "x" } : l)),
    },
    error: /^labels\[2\]\.steps: /,
  },
  {
    name: "a label with an unknown key",
    body: {
      ...good,
      labels: good.labels.map((l, i) => (i === 1 ? '{"answer": "3", "gold": 1}' : l)),
    },
    error: /^labels\[1\]: Unrecognized key/,
  },
  {
    name: "two labels for one prompt",
    body: { ...good, labels: good.labels.map((l, i) => (i === 3 ? "999" : l)) },
    error: /^labels\[3\]: differs from labels\[0\]/,
  },
  {
    name: "too many rollouts",
    body: {
      query: new Array(65).fill("x"),
      prompts: new Array(65).fill(""),
      labels: new Array(65).fill("1"),
    },
    error: /^query: more than 64 rollouts \(limits\.maxRollouts\)/,
  },
  {
    name: "a text over the length limit",
    body: { ...good, query: good.query.map((q, i) => (i === 5 ? q + "x".repeat(2_000) : q)) },
    error: /^query\[5\]: longer than 2000 characters \(limits\.maxTextChars\)/,
  },
  {
    name: "a lone surrogate escape",
    body: bytes(JSON.stringify(good).replace('"query":["', '"query":["\\ud800')),
    raw: true,
    error: /^query\[0\]: not valid UTF-8 text/,
  },
  {
    name: "a prototype key",
    body: bytes(JSON.stringify(good).replace('{"query"', '{"__proto__": {"x": 1}, "query"')),
    raw: true,
    error: /__proto__/,
  },
  {
    name: "a body over the byte limit",
    body: { ...good, padding: "x".repeat(300 * 1024) },
    status: 400,
    error: /^body: larger than 262144 bytes \(limits\.maxBodyBytes\)/,
  },
];

describe("bad input", () => {
  for (const c of cases) {
    it(`${c.name}: ${c.status ?? 400} naming the field, then a good request is served`, async () => {
      const res = await post(`${url}/get_reward`, c.body, c.raw);
      expect(res.status).toBe(c.status ?? 400);
      expect(String(res.json.error)).toMatch(c.error);
      await expectGoodAfter();
    });
  }

  it("bytes that are not UTF-8: 400 naming the field and the byte", async () => {
    const marked = { ...good, query: good.query.map((q, i) => (i === 6 ? `${q}@@BAD@@` : q)) };
    const text = JSON.stringify(marked);
    const enc = bytes(text);
    const prefix = bytes(text.slice(0, text.indexOf("@@BAD@@"))).length;
    const bad = enc.slice();
    bad.set([0xc3, 0x28], prefix); // 0xC3 must be followed by a continuation byte
    const res = await post(`${url}/get_reward`, bad, true);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(`query[6]: not valid UTF-8 (byte ${prefix} of the body)`);
    const label = bytes(text.replace(/"labels":\["/, '"labels":["\u0000MARK'));
    const where = label.indexOf(0);
    label[where] = 0xff; // never valid in UTF-8
    const res2 = await post(`${url}/get_reward`, label, true);
    expect(res2.json.error).toBe(`labels[0]: not valid UTF-8 (byte ${where} of the body)`);
    await expectGoodAfter();
  });

  it("verl bodies are checked the same way", async () => {
    const res = await post(`${url}/verl/compute_score`, {
      solution_strs: ["a", "b"],
      ground_truths: ["1"],
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/^ground_truths: has 1 entries but solution_strs has 2/);
    const res2 = await post(`${url}/verl/compute_score`, {
      solution_strs: ["a", "b"],
      ground_truths: ["1", "2"],
      group_ids: [7, 7],
    });
    expect(res2.json.error).toMatch(/^ground_truths\[1\]: differs from ground_truths\[0\]/);
    await expectGoodAfter();
  });

  it("bad requests are counted; the server is still up", async () => {
    const stats = server.stats();
    expect(stats.badRequests).toBeGreaterThanOrEqual(cases.length);
    const health = await fetch(`${url}/health`).then((r) => r.json());
    expect(health).toMatchObject({ ok: true, variant: "structreward" });
  });
});

describe("load and shutdown", () => {
  let fake: FakeJudge;
  beforeAll(async () => {
    fake = await startFakeJudge();
  });
  afterAll(async () => {
    await fake.close();
  });

  it("a full queue answers 503 with Retry-After; the queued requests are still served", async () => {
    fake.latencyMs = 300;
    const judge = createJudgeClient({ url: fake.url, model: "m", timeoutMs: 10_000 });
    const s = buildRewardServer({
      variant: "grr",
      judge,
      limits: { maxConcurrent: 1, maxQueued: 1 },
    });
    const u = await s.listen("127.0.0.1", 0);
    try {
      const body = openRlhfBody(flatten(makeCases(1, 4, 2)));
      const first = post(`${u}/get_reward`, body);
      await new Promise((r) => setTimeout(r, 50));
      const second = post(`${u}/get_reward`, body);
      await new Promise((r) => setTimeout(r, 50));
      const third = await post(`${u}/get_reward`, body);
      expect(third.status).toBe(503);
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(third.json.error).toMatch(/limits\.maxQueued 1/);
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      expect(s.stats().queue.rejected).toBe(1);
    } finally {
      fake.latencyMs = 0;
      await s.close();
    }
  });

  it("close() drains: a request in flight completes, new connections are refused", async () => {
    fake.latencyMs = 400;
    const judge = createJudgeClient({ url: fake.url, model: "m", timeoutMs: 10_000 });
    const s = buildRewardServer({ variant: "grr", judge });
    const u = await s.listen("127.0.0.1", 0);
    const body = openRlhfBody(flatten(makeCases(1, 4, 2)));
    const inFlight = post(`${u}/get_reward`, body);
    await new Promise((r) => setTimeout(r, 100));
    const closed = s.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.json.rewards).toHaveLength(4);
    await closed;
    await expect(fetch(`${u}/health`)).rejects.toThrow();
    fake.latencyMs = 0;
  });
});
