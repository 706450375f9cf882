/**
 * The reward server (Fastify): the lab's rewards as the remote reward model
 * of OpenRLHF (`POST /get_reward`) and of verl (`POST /verl/compute_score`),
 * plus `GET /health` and `GET /stats`.
 *
 * OpenRLHF: request `{"query": [prompt + response, …], "prompts": […],
 * "labels": […]}`, reply `{"rewards": [R_i], "scores": [r_ver_i],
 * "extra_logs": {component: [value_i]}}` (OpenRLHF reads `rewards`; newer
 * versions also `scores`, for dynamic filtering, and `extra_logs`, logged).
 * verl: request `{"solution_strs", "ground_truths", "group_ids"?, "prompts"?}`,
 * reply `{"results": [{"score": R_i, component: value_i, …}]}`, the list that
 * verl's batch `compute_score` returns (clients/verl/lab_reward.py).
 *
 * For grr with `assembly.groupSize`, rollouts that arrive short of their
 * group (OpenRLHF since its streaming-sampling rework posts one rollout per
 * request) wait in src/server/assembly.ts until the group is whole.
 *
 * Bad input is a 400 whose `error` names the field; a body over
 * limits.maxBodyBytes a 400 naming the limit; a full queue a 503 with Retry-After. `close()`
 * stops taking requests and waits for those in flight.
 */
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import {
  AssemblyFull,
  type AssemblyLimits,
  type AssemblyState,
  DEFAULT_ASSEMBLY,
  GroupAssembler,
} from "./assembly";
import type { AsyncJudge, JudgeStats } from "./judge-client";
import {
  BadRequest,
  DEFAULT_LIMITS,
  isSharedGroupKey,
  readJsonBody,
  readOpenRlhfRequest,
  readVerlRequest,
  type RolloutInput,
  type ServerLimits,
} from "./protocol";
import { QueueFull, RequestQueue } from "./queue";
import { UserRewardFailed, type ServedUserReward } from "./user-scoring";
import {
  COMPONENTS_OF,
  JUDGE_OF,
  scoreRequest,
  variantWeights,
  type BatchRewards,
  type ServedVariant,
} from "./scoring";

/** Bounds on concurrent scoring (lab choices). */
export interface QueueLimits {
  /** Requests scored at once (default 4). */
  maxConcurrent: number;
  /** Requests waiting for a slot before new ones get 503 (default 64). */
  maxQueued: number;
}

/** Default queue bounds: 4 scoring (judge calls overlap), 64 waiting. */
export const DEFAULT_QUEUE: Readonly<QueueLimits> = { maxConcurrent: 4, maxQueued: 64 };

/** Everything the server needs. */
export interface RewardServerOptions {
  variant: ServedVariant;
  /** The variant's weights (its schema in the variant table fills the defaults). */
  weights?: unknown;
  limits?: Partial<ServerLimits & QueueLimits>;
  /** Group assembly for the groupwise variant (src/server/assembly.ts); off by default. */
  assembly?: Partial<AssemblyLimits>;
  /** Required for pointwise-gr and grr. */
  judge?: AsyncJudge & { stats?(): JudgeStats; abort?(): void };
  /** Where one-line notes go (default: nowhere). Never given a request's texts or a key. */
  log?: (line: string) => void;
  /** The operator's written reward (--reward FILE): required by, and only read for, the user variant. */
  user?: ServedUserReward;
}

/** The reward of one rollout as scoreRequest returns it. */
type Rewarded = BatchRewards["rollouts"][number];

/** At most one warning line of each kind per minute (lab choice). */
const WARN_EVERY_MS = 60_000;

/**
 * A log that writes a kind's line at most once per `everyMs`, with the count
 * of occurrences since its last line.
 */
function rateLimitedLog(log: (line: string) => void, everyMs: number) {
  const last = new Map<string, { at: number; count: number }>();
  return (kind: string, n: number, line: string) => {
    const now = Date.now();
    const seen = last.get(kind);
    if (seen && now - seen.at < everyMs) {
      seen.count += n;
      return;
    }
    const count = n + (seen?.count ?? 0);
    last.set(kind, { at: now, count: 0 });
    log(`warning: ${count} ${line}`);
  };
}

/** Counters of the server since start. */
interface ServerStats {
  variant: ServedVariant;
  requests: number;
  rollouts: number;
  groups: number;
  badRequests: number;
  judgeCalls: number;
  judgeFailures: number;
  /** Groups of the groupwise variant scored with one rollout (r_rank 0: GRR paid r_ver alone). */
  groupsOfOne: number;
  queue: ReturnType<RequestQueue["state"]>;
  /** Group assembly, or null when off (or the variant is not groupwise). */
  assembly: AssemblyState | null;
  judge: JudgeStats | null;
}

/** A built server: the Fastify instance and its counters. */
export interface RewardServer {
  app: FastifyInstance;
  /** Listens on `host:port` (port 0: any free one). @returns the URL, e.g. `http://127.0.0.1:5000`. */
  listen(host: string, port: number): Promise<string>;
  stats(): ServerStats;
  /** Stops taking requests, waits for those in flight, then aborts judge calls still open. */
  close(): Promise<void>;
}

/**
 * Builds the reward server for one variant.
 * @throws Error naming the field for bad weights or limits, or a judge
 *   variant without a judge.
 */
export function buildRewardServer(options: RewardServerOptions): RewardServer {
  const { variant } = options;
  const limits: ServerLimits & QueueLimits = {
    ...DEFAULT_LIMITS,
    ...DEFAULT_QUEUE,
    ...(options.limits ?? {}),
  };
  for (const [k, v] of Object.entries(limits))
    if (!Number.isInteger(v) || v < 0) throw new Error(`limits.${k} must be an integer >= 0`);
  const weights = variantWeights(variant, options.weights);
  // A written reward runs only from the operator's file, never from weights or a request.
  if (variant === "user" && !options.user)
    throw new Error("variant user needs the operator's --reward FILE");
  if (
    variant === "user" &&
    (options.weights as Record<string, unknown> | undefined)?.code !== undefined
  )
    throw new Error("weights.code: a written reward's code comes only from --reward FILE");
  if (JUDGE_OF[variant] !== "none" && !options.judge)
    throw new Error(
      `variant ${variant} needs an LLM judge: set REWARD_JUDGE_URL and REWARD_JUDGE_MODEL`,
    );
  const queue = new RequestQueue(limits.maxConcurrent, limits.maxQueued);
  const log = options.log ?? (() => {});
  const counts = {
    requests: 0,
    rollouts: 0,
    groups: 0,
    badRequests: 0,
    judgeCalls: 0,
    judgeFailures: 0,
    groupsOfOne: 0,
  };
  const settings = {
    variant,
    weights,
    judge: options.judge,
    maxGroupSize: limits.maxGroupSize,
    user: variant === "user" ? options.user : undefined,
  };
  const warn = rateLimitedLog(log, WARN_EVERY_MS);
  /** Adds a scoring's counts and says, at most once a minute, what degraded. */
  const tally = (r: BatchRewards, timedOut: boolean) => {
    counts.groups += r.groups;
    counts.judgeCalls += r.judgeCalls;
    counts.judgeFailures += r.judgeFailures;
    counts.groupsOfOne += r.groupsOfOne;
    if (r.groupsOfOne > 0)
      warn(
        "groupOfOne",
        r.groupsOfOne,
        `${variant} scored group(s) of one rollout: r_rank is 0, so these rollouts got r_ver alone (send whole groups, or set --group-size to the trainer's samples per prompt)`,
      );
    if (timedOut)
      warn(
        "groupTimedOut",
        r.groups,
        `group(s) judged short of ${assemblyLimits.groupSize} rollouts after ${assemblyLimits.groupWaitMs} ms (assembly.groupWaitMs); check --group-size against the trainer's samples per prompt`,
      );
  };
  const assemblyLimits: AssemblyLimits = { ...DEFAULT_ASSEMBLY, ...(options.assembly ?? {}) };
  if (assemblyLimits.groupSize > limits.maxGroupSize)
    throw new Error(
      `assembly.groupSize (${assemblyLimits.groupSize}) is more than limits.maxGroupSize (${limits.maxGroupSize})`,
    );
  const groupwise = JUDGE_OF[variant] === "groupwise";
  if (assemblyLimits.groupSize > 0 && !groupwise)
    log(
      `assembly.groupSize ${assemblyLimits.groupSize} is not used: ${variant} scores each rollout alone`,
    );
  const assembler =
    groupwise && assemblyLimits.groupSize > 0
      ? new GroupAssembler<RolloutInput, Rewarded>(assemblyLimits, async (group, timedOut) => {
          const r = await scoreRequest(group, settings);
          tally(r, timedOut);
          for (const x of r.rollouts) x.components.groupTimedOut = timedOut ? 1 : 0;
          return r.rollouts;
        })
      : null;

  const app = Fastify({
    bodyLimit: limits.maxBodyBytes,
    logger: false,
    return503OnClosing: true,
    forceCloseConnections: "idle",
  });
  let closing = false;
  // While draining, each answer closes its connection (keep-alive would hold close() open).
  app.addHook("onSend", async (_req, reply) => {
    if (closing) reply.header("connection", "close");
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  app.setErrorHandler(
    (err: { code?: string; statusCode?: number; message: string }, _req, reply) => {
      if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
        counts.badRequests++;
        return reply
          .code(400)
          .send({ error: `body: larger than ${limits.maxBodyBytes} bytes (limits.maxBodyBytes)` });
      }
      const status = err.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        counts.badRequests++;
        return reply.code(status).send({ error: `body: ${err.message}` });
      }
      log(`internal error: ${err.message}`);
      return reply.code(500).send({ error: "internal error" });
    },
  );

  /**
   * Scores a request's rollouts: with assembly, the rollouts of groups it
   * brings short (fewer than groupSize, under a prompt or group id) wait in
   * the assembler; the rest are scored at once in the request queue, as
   * without assembly. @returns rewards in the request's order.
   */
  async function score(rollouts: RolloutInput[], dropped: AbortController): Promise<Rewarded[]> {
    const short: number[] = [];
    if (assembler) {
      const sizes = new Map<string, number>();
      for (const r of rollouts) sizes.set(r.groupKey, (sizes.get(r.groupKey) ?? 0) + 1);
      rollouts.forEach((r, i) => {
        if (isSharedGroupKey(r.groupKey) && (sizes.get(r.groupKey) ?? 0) < assemblyLimits.groupSize)
          short.push(i);
      });
    }
    const isShort = new Set(short);
    const whole = rollouts.filter((_, i) => !isShort.has(i));
    const retriesBefore = assembler?.state().retries ?? 0;
    const waited =
      assembler && short.length > 0
        ? assembler.admit(
            short.map((i) => ({
              key: JSON.stringify([rollouts[i].groupKey, rollouts[i].label.key]),
              text: rollouts[i].response,
              rollout: rollouts[i],
            })),
            dropped.signal,
          )
        : Promise.resolve([]);
    const retries = (assembler?.state().retries ?? 0) - retriesBefore;
    counts.rollouts += rollouts.length - retries;
    const direct =
      whole.length > 0
        ? queue
            .run(() => scoreRequest(whole, settings))
            .then((r) => {
              tally(r, false);
              return r.rollouts;
            })
        : Promise.resolve([]);
    // Refused in the queue: the request's waiting rollouts become a retry's to claim.
    direct.catch(() => dropped.abort());
    const [a, b] = await Promise.all([waited, direct]);
    const out = new Array<Rewarded>(rollouts.length);
    let ia = 0;
    let ib = 0;
    rollouts.forEach((_, i) => {
      out[i] = isShort.has(i) ? a[ia++] : b[ib++];
    });
    return out;
  }

  async function serve(
    reply: FastifyReply,
    body: unknown,
    read: (value: unknown, l: ServerLimits) => RolloutInput[],
    shape: (r: Rewarded[]) => unknown,
  ): Promise<unknown> {
    let rollouts: RolloutInput[];
    try {
      rollouts = read(readJsonBody(body), limits);
    } catch (e) {
      if (e instanceof BadRequest) {
        counts.badRequests++;
        return reply.code(400).send({ error: e.message });
      }
      throw e;
    }
    const dropped = new AbortController();
    reply.raw.on("close", () => {
      if (!reply.raw.writableFinished) dropped.abort();
    });
    try {
      const rewards = await score(rollouts, dropped);
      counts.requests++;
      return reply.send(shape(rewards));
    } catch (e) {
      if (e instanceof QueueFull || e instanceof AssemblyFull)
        return reply
          .code(503)
          .header("retry-after", String(e.retryAfterS))
          .send({ error: e.message });
      if (e instanceof BadRequest) {
        counts.badRequests++;
        return reply.code(400).send({ error: e.message });
      }
      // The operator's written reward failed: say why (the message names its line).
      if (e instanceof UserRewardFailed) return reply.code(500).send({ error: e.message });
      throw e;
    }
  }

  /**
   * The component names a reply reports: the variant's; for a written reward the
   * names its code returned for any rollout of the request (0 where a group's code
   * returned other names).
   */
  const keysOf = (r: Rewarded[]): readonly string[] =>
    variant === "user"
      ? [...new Set(r.flatMap((x) => Object.keys(x.components)))]
      : COMPONENTS_OF[variant];

  app.post("/get_reward", (req, reply) =>
    serve(reply, req.body, readOpenRlhfRequest, (r) => {
      const extra: Record<string, number[]> = {};
      for (const k of keysOf(r)) extra[k] = r.map((x) => x.components[k] ?? 0);
      return {
        rewards: r.map((x) => x.total),
        scores: r.map((x) => (x.verifierPassed ? 1 : 0)),
        extra_logs: extra,
      };
    }),
  );

  app.post("/verl/compute_score", (req, reply) =>
    serve(reply, req.body, readVerlRequest, (r) => {
      const keys = keysOf(r);
      return {
        results: r.map((x) => {
          const row: Record<string, number> = { score: x.total };
          for (const k of keys) row[k] = x.components[k] ?? 0;
          return row;
        }),
      };
    }),
  );

  const stats = (): ServerStats => ({
    variant,
    ...counts,
    queue: queue.state(),
    assembly: assembler?.state() ?? null,
    judge: options.judge?.stats?.() ?? null,
  });

  app.get("/health", async () => ({
    ok: true,
    variant,
    judge: JUDGE_OF[variant],
    groupSize: assembler ? assemblyLimits.groupSize : 0,
  }));
  app.get("/stats", async () => stats());

  return {
    app,
    async listen(host, port) {
      await app.listen({ host, port });
      const addr = app.server.address();
      const bound = typeof addr === "object" && addr ? addr.port : port;
      const shownHost = host.includes(":") ? `[${host}]` : host;
      return `http://${shownHost}:${bound}`;
    },
    stats,
    async close() {
      closing = true;
      const idle = setInterval(() => app.server.closeIdleConnections(), 50);
      try {
        const closed = app.close();
        assembler?.flush(); // waiting groups are judged as they stand, so their requests drain
        await closed;
      } finally {
        clearInterval(idle);
        options.judge?.abort?.();
      }
    },
  };
}
