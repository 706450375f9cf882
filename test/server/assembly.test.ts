/**
 * Group assembly (src/server/assembly.ts) driven the way OpenRLHF's vLLM
 * engine posts since its streaming-sampling rework: one rollout per request,
 * the N requests of a prompt at once, prompts interleaved, a request retried
 * after its connection dropped. Every rollout's GRR reward must equal the one
 * a single whole-group request gets from a server without assembly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../../src/rewards/index";
import { buildRewardServer, type RewardServer } from "../../src/server/app";
import { createJudgeClient } from "../../src/server/judge-client";
import type { AssemblyLimits } from "../../src/server/assembly";
import { startFakeJudge, type FakeJudge } from "./fake-judge";
import { flatten, makeCases, openRlhfBody, post, type PromptCase } from "./fixtures";

let fake: FakeJudge;
const started: RewardServer[] = [];
let reference: string; // grr without assembly: whole groups in one request
let referenceServer: RewardServer;

async function start(
  assembly?: Partial<AssemblyLimits>,
  log?: (line: string) => void,
): Promise<{ server: RewardServer; url: string }> {
  const judge = createJudgeClient({ url: fake.url, model: "fake-judge", timeoutMs: 10_000 });
  const server = buildRewardServer({ variant: "grr", judge, assembly, log });
  started.push(server);
  return { server, url: await server.listen("127.0.0.1", 0) };
}

beforeAll(async () => {
  fake = await startFakeJudge();
  const r = await start();
  reference = r.url;
  referenceServer = r.server;
});
afterAll(async () => {
  for (const s of started) await s.close();
  await fake.close();
});

type Reply = { rewards: number[]; extra_logs: Record<string, number[]> };

/** One rollout as OpenRLHF's SingleTurnAgentExecutor posts it. */
function single(c: PromptCase, k: number) {
  return {
    query: [c.prompt + c.responses[k]],
    prompts: [c.prompt],
    labels: [JSON.stringify(c.label)],
  };
}

/** Rewards of each prompt's whole group in one request, by prompt + response. */
async function wholeGroupRewards(cases: readonly PromptCase[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const c of cases) {
    const res = await post(`${reference}/get_reward`, openRlhfBody(flatten([c])));
    expect(res.status).toBe(200);
    c.responses.forEach((r, k) => {
      out.set(c.prompt + r, (res.json as Reply).rewards[k]);
    });
  }
  return out;
}

/** Polls /stats until `ok` holds (the server's view of a dropped connection arrives asynchronously). */
async function until(url: string, ok: (stats: Record<string, unknown>) => boolean) {
  for (;;) {
    const stats = (await (await fetch(`${url}/stats`)).json()) as Record<string, unknown>;
    if (ok(stats)) return stats;
    await new Promise((r) => setTimeout(r, 20));
  }
}
const assemblyOf = (s: Record<string, unknown>) => s.assembly as Record<string, number>;

describe("group assembly: OpenRLHF's one rollout per request", () => {
  it("N concurrent single-rollout POSTs per prompt, prompts interleaved, one retried after a dropped connection: every reward equals the whole group's", async () => {
    const cases = makeCases(6, 8, 31);
    const refCalls = referenceServer.stats().judgeCalls;
    const want = await wholeGroupRewards(cases);
    const wholeGroupCalls = referenceServer.stats().judgeCalls - refCalls;
    const callsBefore = fake.requests.length;
    const { server, url } = await start({ groupSize: 8, groupWaitMs: 60_000 });

    const order = cases.flatMap((c, p) => c.responses.map((_, k) => ({ p, k })));
    const rng = mulberry32(9);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    // The first request drops its connection while its group waits.
    const first = order[0];
    const abort = new AbortController();
    const dropped = fetch(`${url}/get_reward`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(single(cases[first.p], first.k)),
      signal: abort.signal,
    }).catch((e: unknown) => e);
    await until(url, (s) => assemblyOf(s).waitingRollouts === 1);
    abort.abort();
    expect(await dropped).toBeInstanceOf(Error);
    await until(url, (s) => assemblyOf(s).claimable === 1);

    // The retry and every other rollout, all at once, in the interleaved order.
    const replies = await Promise.all(
      order.map(({ p, k }) => post(`${url}/get_reward`, single(cases[p], k))),
    );
    replies.forEach((res, i) => {
      const { p, k } = order[i];
      expect(res.status).toBe(200);
      const reply = res.json as Reply;
      expect(reply.rewards).toHaveLength(1);
      expect(reply.rewards[0]).toBeCloseTo(want.get(cases[p].prompt + cases[p].responses[k])!, 12);
      expect(reply.extra_logs.groupSize).toEqual([8]);
      expect(reply.extra_logs.groupTimedOut).toEqual([0]);
      expect(reply.extra_logs.groupOfOne).toEqual([0]);
    });
    const stats = server.stats();
    expect(stats.rollouts).toBe(48); // the retry is not counted again
    expect(stats.groups).toBe(6);
    expect(stats.groupsOfOne).toBe(0);
    expect(stats.assembly).toMatchObject({
      groupsFilled: 6,
      groupsTimedOut: 0,
      retries: 1,
      waitingGroups: 0,
      waitingRollouts: 0,
      claimable: 0,
    });
    // One ranking call per group, as for the whole groups (none with fewer than 2 passed).
    const rankingCalls = fake.requests.slice(callsBefore).length;
    expect(wholeGroupCalls).toBeGreaterThan(0);
    expect(server.stats().judgeCalls).toBe(wholeGroupCalls);
    expect(rankingCalls).toBe(wholeGroupCalls);
  });

  it("a retry after the group was judged gets the reward the dropped request was owed", async () => {
    // Two different texts (a rollout equal to a dropped one would claim it: equal texts are interchangeable).
    const [whole] = makeCases(1, 8, 41);
    const other = whole.responses.find((r) => r !== whole.responses[0])!;
    const c = { ...whole, responses: [whole.responses[0], other] };
    const want = await wholeGroupRewards([c]);
    const { server, url } = await start({ groupSize: 2, groupWaitMs: 60_000 });
    const abort = new AbortController();
    const dropped = fetch(`${url}/get_reward`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(single(c, 0)),
      signal: abort.signal,
    }).catch((e: unknown) => e);
    await until(url, (s) => assemblyOf(s).waitingRollouts === 1);
    abort.abort();
    await dropped;
    await until(url, (s) => assemblyOf(s).claimable === 1);
    const second = await post(`${url}/get_reward`, single(c, 1));
    expect((second.json as Reply).rewards[0]).toBeCloseTo(want.get(c.prompt + c.responses[1])!, 12);
    const retry = await post(`${url}/get_reward`, single(c, 0));
    expect((retry.json as Reply).rewards[0]).toBeCloseTo(want.get(c.prompt + c.responses[0])!, 12);
    expect(server.stats().rollouts).toBe(2);
    expect(server.stats().assembly).toMatchObject({ groupsFilled: 1, retries: 1, claimable: 0 });
  });

  it("the older whole-batch form is scored at once, as without assembly", async () => {
    const cases = makeCases(4, 8, 51);
    const want = await wholeGroupRewards(cases);
    const { server, url } = await start({ groupSize: 8, groupWaitMs: 60_000 });
    const flat = flatten(cases, mulberry32(3));
    const res = await post(`${url}/get_reward`, openRlhfBody(flat));
    expect(res.status).toBe(200);
    flat.forEach((r, i) => {
      expect((res.json as Reply).rewards[i]).toBeCloseTo(want.get(r.prompt + r.response)!, 12);
    });
    expect(server.stats().assembly).toMatchObject({ groupsFilled: 0, waitingRollouts: 0 });
    expect(server.stats().groups).toBe(4);
  });

  it("a group that does not fill in time is judged as it stands and flagged", async () => {
    const [c] = makeCases(1, 3, 61);
    const want = await wholeGroupRewards([c]);
    const lines: string[] = [];
    const { server, url } = await start({ groupSize: 8, groupWaitMs: 300 }, (l) => lines.push(l));
    const replies = await Promise.all(
      [0, 1, 2].map((k) => post(`${url}/get_reward`, single(c, k))),
    );
    replies.forEach((res, k) => {
      const reply = res.json as Reply;
      expect(reply.rewards[0]).toBeCloseTo(want.get(c.prompt + c.responses[k])!, 12);
      expect(reply.extra_logs.groupTimedOut).toEqual([1]);
      expect(reply.extra_logs.groupSize).toEqual([3]);
    });
    expect(server.stats().assembly).toMatchObject({ groupsTimedOut: 1, groupsFilled: 0 });
    expect(lines.filter((l) => l.includes("judged short of 8 rollouts"))).toHaveLength(1);
  });

  it("caps on waiting groups and rollouts: past them a 503 with Retry-After, nothing kept", async () => {
    const cases = makeCases(3, 8, 71);
    const { server, url } = await start({
      groupSize: 8,
      groupWaitMs: 60_000,
      maxWaitingGroups: 2,
      maxWaitingRollouts: 3,
    });
    const waiting = [post(`${url}/get_reward`, single(cases[0], 0))];
    waiting.push(post(`${url}/get_reward`, single(cases[1], 0)));
    await until(url, (s) => assemblyOf(s).waitingGroups === 2);
    const third = await post(`${url}/get_reward`, single(cases[2], 0));
    expect(third.status).toBe(503);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(String(third.json.error)).toMatch(/assembly\.maxWaitingGroups 2/);
    waiting.push(post(`${url}/get_reward`, single(cases[0], 1))); // joins a waiting group: 3 rollouts
    await until(url, (s) => assemblyOf(s).waitingRollouts === 3);
    const fourth = await post(`${url}/get_reward`, single(cases[0], 2));
    expect(fourth.status).toBe(503);
    expect(String(fourth.json.error)).toMatch(/assembly\.maxWaitingRollouts 3/);
    expect(server.stats().assembly).toMatchObject({
      refused: 2,
      waitingGroups: 2,
      waitingRollouts: 3,
    });
    expect(server.stats().rollouts).toBe(3);
    // Closing judges the waiting groups as they stand, so their requests are answered.
    await server.close();
    for (const res of await Promise.all(waiting)) {
      expect(res.status).toBe(200);
      expect((res.json as Reply).extra_logs.groupTimedOut).toEqual([1]);
    }
  });
});

describe("never silent: a groupwise variant scoring a group of one", () => {
  it("says so in extra_logs, in /stats and in one warning line", async () => {
    const lines: string[] = [];
    const { server, url } = await start(undefined, (l) => lines.push(l));
    const [c] = makeCases(1, 2, 81);
    for (const k of [0, 1]) {
      const res = await post(`${url}/get_reward`, single(c, k));
      const reply = res.json as Reply;
      expect(reply.extra_logs.groupOfOne).toEqual([1]);
      expect(reply.extra_logs.groupSize).toEqual([1]);
      expect(reply.extra_logs.rRank).toEqual([0]);
    }
    expect(server.stats().groupsOfOne).toBe(2);
    expect(server.stats().assembly).toBeNull();
    expect(lines.filter((l) => l.includes("group(s) of one rollout"))).toHaveLength(1);
  });
});
