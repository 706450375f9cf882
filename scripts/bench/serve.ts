/**
 * `npm run bench:serve [-- --requests N --seconds S --concurrency C --in-flight P --pattern batch,rollout]`
 * (N 1–10,000, S in (0, 60], C 1–64, P 1–256):
 * throughput of the reward server in two patterns.
 *
 * Batch pattern (OpenRLHF before its streaming-sampling rework, verl, TRL):
 * for each of rlvr, structreward and grr
 * (GRR with the local stand-in judge of test/server/fake-judge.ts, which
 * answers at once), the server runs as its own process
 * (`scripts/serve-rewards.ts`, as `npm run serve:rewards` starts it) and a
 * load generator on loopback posts OpenRLHF-shaped batches of 64 rollouts
 * (8 prompts × 8) from C concurrent clients, until N requests or S seconds,
 * whichever comes first (defaults 400, 4 s, 4), after 8 warm-up requests.
 *
 * Rollout pattern (OpenRLHF since that rework): one rollout per request, the
 * 8 requests of a prompt posted at once, P prompts in flight (default 64,
 * so 512 requests open); a prompt is followed by the next when its 8 replies
 * are in, until S seconds. grr runs with `--group-size 8` (group assembly);
 * every server gets `limits.maxQueued` = 8 P so that the requests in flight
 * fit its queue. Latency is per request.
 *
 * Prints requests/s, rollouts/s and p50/p99 latency per variant and pattern
 * as a table on stderr and as one JSON line at the end: node, batch,
 * concurrency, inFlight, limits, and per variant and pattern {variant,
 * pattern, requests, seconds, rps, rollouts_per_s, p50, p99, latency_ms:
 * {median, min, max, spread, runs}}.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeJudge } from "../../test/server/fake-judge";
import { flatten, makeCases, openRlhfBody } from "../../test/server/fixtures";
import { mulberry32 } from "../../src/rewards/index";
import { type BenchLog, parseBenchFlags, runBench, summarize } from "./harness";

const FLAGS = {
  requests: { kind: "int", min: 1, max: 10_000, default: 400, help: "requests per variant" },
  seconds: { kind: "number", above: 0, max: 60, default: 4, help: "seconds per variant" },
  concurrency: { kind: "int", min: 1, max: 64, default: 4, help: "concurrent clients" },
  "in-flight": {
    kind: "int",
    min: 1,
    max: 256,
    default: 64,
    help: "prompts in flight (rollout pattern)",
  },
  pattern: {
    kind: "list",
    of: ["batch", "rollout"],
    default: ["batch", "rollout"],
    help: "the patterns to run",
  },
} as const;
/** Rollouts per prompt in both patterns (OpenRLHF's n_samples_per_prompt). */
const N = 8;
// Set from the flags when the benchmark starts.
let MAX_REQUESTS: number = FLAGS.requests.default;
let MAX_SECONDS: number = FLAGS.seconds.default;
let CONCURRENCY: number = FLAGS.concurrency.default;
const WARMUP = 8;

async function startServer(variant: string, env: Record<string, string>, extra: string[] = []) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/serve-rewards.ts", "--variant", variant, "--port", "0", ...extra],
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
    pattern: "batch",
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    rollouts_per_s: (latencies.length / seconds) * 64,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    latency_ms: summarize(latencies),
  };
}

/**
 * The rollout pattern for one variant: `inFlight` prompts at once, each as N
 * concurrent single-rollout requests (see the module comment).
 */
async function benchRollouts(variant: string, env: Record<string, string>, inFlight: number) {
  const dir = mkdtempSync(join(tmpdir(), "bench-serve-"));
  const config = join(dir, "serve.json");
  writeFileSync(config, JSON.stringify({ limits: { maxQueued: N * inFlight } }));
  const extra = ["--config", config, ...(variant === "grr" ? ["--group-size", String(N)] : [])];
  const server = await startServer(variant, env, extra);
  const cases = makeCases(256, N, 300);
  const send = async (c: (typeof cases)[number], k: number, latencies: number[] | null) => {
    const s = performance.now();
    const res = await fetch(`${server.url}/get_reward`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: [c.prompt + c.responses[k]],
        prompts: [c.prompt],
        labels: [JSON.stringify(c.label)],
      }),
    });
    const json = (await res.json()) as { rewards?: number[] };
    if (res.status !== 200 || json.rewards?.length !== 1)
      throw new Error(`${variant}: HTTP ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
    latencies?.push(performance.now() - s);
  };
  // Each prompt is used once per run of the pattern, so that no two of its groups overlap.
  let next = 0;
  const prompt = () => {
    const c = {
      ...cases[next % cases.length],
      prompt: `${next} ${cases[next % cases.length].prompt}`,
    };
    next++;
    return c;
  };
  const group = (latencies: number[] | null) => {
    const c = prompt();
    return Promise.all(Array.from({ length: N }, (_, k) => send(c, k, latencies)));
  };
  for (let w = 0; w < WARMUP; w++) await group(null);
  const latencies: number[] = [];
  const t0 = performance.now();
  const deadline = t0 + MAX_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) await group(latencies);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await server.stop();
  latencies.sort((a, b) => a - b);
  return {
    variant,
    pattern: "rollout",
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    rollouts_per_s: latencies.length / seconds,
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
  const inFlight = flags["in-flight"];
  const patterns = flags.pattern;
  const judge = await startFakeJudge();
  const judgeEnv = { REWARD_JUDGE_URL: judge.url, REWARD_JUDGE_MODEL: "stand-in" };
  say(
    `bench:serve: batch pattern: batches of 64 rollouts (8 prompts x 8), ${CONCURRENCY} concurrent clients, at most ${MAX_REQUESTS} requests or ${MAX_SECONDS} s per variant; rollout pattern: 1 rollout per request, ${N} per prompt at once, ${inFlight} prompts in flight, ${MAX_SECONDS} s per variant; loopback (node ${process.version})`,
  );
  say("variant        pattern  requests   req/s   rollouts/s   p50 ms   p99 ms");
  const variants: Awaited<ReturnType<typeof bench>>[] = [];
  try {
    for (const pattern of patterns)
      for (const variant of ["rlvr", "structreward", "grr"]) {
        const env = variant === "grr" ? judgeEnv : {};
        const r =
          pattern === "batch"
            ? await bench(variant, env)
            : await benchRollouts(variant, env, inFlight);
        variants.push(r);
        say(
          `${(variant === "grr" ? "grr (stand-in)" : variant).padEnd(14)} ${pattern.padEnd(8)} ${String(r.requests).padStart(8)} ${r.rps.toFixed(1).padStart(7)} ${r.rollouts_per_s.toFixed(0).padStart(12)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}`,
        );
      }
  } finally {
    await judge.close();
  }
  return {
    node: process.version,
    batch: { prompts: 8, rolloutsPerPrompt: N },
    concurrency: CONCURRENCY,
    inFlight,
    maxRequests: MAX_REQUESTS,
    maxSeconds: MAX_SECONDS,
    warmup: WARMUP,
    variants,
  };
});
