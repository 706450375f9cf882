/**
 * `npm run bench:serve [-- --requests N --seconds S --concurrency C]`
 * (N 1–10,000, S in (0, 60], C 1–64):
 * throughput of the reward server. For each of rlvr, structreward and grr
 * (GRR with the local stand-in judge of test/server/fake-judge.ts, which
 * answers at once), the server runs as its own process
 * (`scripts/serve-rewards.ts`, as `npm run serve:rewards` starts it) and a
 * load generator on loopback posts OpenRLHF-shaped batches of 64 rollouts
 * (8 prompts × 8) from C concurrent clients, until N requests or S seconds,
 * whichever comes first (defaults 400, 4 s, 4), after 8 warm-up requests.
 * Prints requests/s, rollouts/s and p50/p99 latency per variant as a table on
 * stderr and as one JSON line at the end: node, batch, concurrency, limits,
 * and per variant {variant, requests, seconds, rps, rollouts_per_s, p50, p99,
 * latency_ms: {median, min, max, spread, runs}}.
 */
import { spawn } from "node:child_process";
import { startFakeJudge } from "../../test/server/fake-judge";
import { flatten, makeCases, openRlhfBody } from "../../test/server/fixtures";
import { mulberry32 } from "../../src/rewards/index";
import { type BenchLog, parseBenchFlags, runBench, summarize } from "./harness";

const FLAGS = {
  requests: { kind: "int", min: 1, max: 10_000, default: 400, help: "requests per variant" },
  seconds: { kind: "number", above: 0, max: 60, default: 4, help: "seconds per variant" },
  concurrency: { kind: "int", min: 1, max: 64, default: 4, help: "concurrent clients" },
} as const;
// Set from the flags when the benchmark starts.
let MAX_REQUESTS: number = FLAGS.requests.default;
let MAX_SECONDS: number = FLAGS.seconds.default;
let CONCURRENCY: number = FLAGS.concurrency.default;
const WARMUP = 8;

async function startServer(variant: string, env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/serve-rewards.ts", "--variant", variant, "--port", "0"],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  const stop = async () => {
    const done = new Promise((r) => child.on("close", r));
    child.kill("SIGTERM");
    await done;
  };
  return { url, stop };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function bench(variant: string, env: Record<string, string>) {
  const server = await startServer(variant, env);
  const bodies = Array.from({ length: 16 }, (_, s) =>
    JSON.stringify(openRlhfBody(flatten(makeCases(8, 8, 100 + s), mulberry32(s)))),
  );
  const send = async (k: number) => {
    const res = await fetch(`${server.url}/get_reward`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bodies[k % bodies.length],
    });
    const json = (await res.json()) as { rewards?: number[] };
    if (res.status !== 200 || json.rewards?.length !== 64)
      throw new Error(`${variant}: HTTP ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
  };
  for (let k = 0; k < WARMUP; k++) await send(k);
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const deadline = t0 + MAX_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < MAX_REQUESTS && performance.now() < deadline) {
        const k = next++;
        const s = performance.now();
        await send(k);
        latencies.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await server.stop();
  latencies.sort((a, b) => a - b);
  return {
    variant,
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    rollouts_per_s: (latencies.length / seconds) * 64,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    latency_ms: summarize(latencies),
  };
}

/** The table goes to stderr, as every benchmark's progress does. */
const say = (line: string) => process.stderr.write(`${line}\n`);

runBench("bench-serve", async (_log: BenchLog) => {
  const flags = parseBenchFlags(process.argv.slice(2), FLAGS);
  MAX_REQUESTS = flags.requests;
  MAX_SECONDS = flags.seconds;
  CONCURRENCY = flags.concurrency;
  const judge = await startFakeJudge();
  const judgeEnv = { REWARD_JUDGE_URL: judge.url, REWARD_JUDGE_MODEL: "stand-in" };
  say(
    `bench:serve: batches of 64 rollouts (8 prompts x 8), ${CONCURRENCY} concurrent clients on loopback, at most ${MAX_REQUESTS} requests or ${MAX_SECONDS} s per variant (node ${process.version})`,
  );
  say("variant        requests   req/s   rollouts/s   p50 ms   p99 ms");
  const variants: Awaited<ReturnType<typeof bench>>[] = [];
  try {
    for (const variant of ["rlvr", "structreward", "grr"]) {
      const r = await bench(variant, variant === "grr" ? judgeEnv : {});
      variants.push(r);
      say(
        `${(variant === "grr" ? "grr (stand-in)" : variant).padEnd(14)} ${String(r.requests).padStart(8)} ${r.rps.toFixed(1).padStart(7)} ${(r.rps * 64).toFixed(0).padStart(12)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}`,
      );
    }
  } finally {
    await judge.close();
  }
  return {
    node: process.version,
    batch: { prompts: 8, rolloutsPerPrompt: 8 },
    concurrency: CONCURRENCY,
    maxRequests: MAX_REQUESTS,
    maxSeconds: MAX_SECONDS,
    warmup: WARMUP,
    variants,
  };
});
