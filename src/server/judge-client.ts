/**
 * An LLM judge behind an OpenAI-compatible chat completions endpoint
 * (`POST {url}/chat/completions`: vLLM, SGLang, TGI, llama.cpp, OpenAI and
 * the like), for pointwise GR and GRR on real rollouts. The lab's page keeps
 * its rubric auditor (src/rewards/auditor-judge.ts); this client is for the
 * reward server only.
 *
 * Each call: at most `concurrency` calls in flight; each attempt has its own
 * timeout; a timeout, a network error, HTTP 408/429/5xx or a reply the lab's
 * parser cannot read is retried with exponential backoff and jitter (a
 * `Retry-After` header is honoured up to the backoff cap); other HTTP errors
 * (401, 404, …) are not retried. A call that never gets a readable reply
 * returns its last reply (or ""), which the reward scorer counts as a judge
 * failure (r_aux = 0), and the client counts it in `stats().failed`. The API
 * key is sent only in the Authorization header: no message, log line or
 * stats field holds it.
 */
import { parseJudgeRanking, parseJudgeScore } from "../rewards/index";
import type { TaskPrompt } from "../tasks/types";
import {
  DEFAULT_MAX_CANDIDATE_CHARS,
  groupwiseMessages,
  pointwiseMessages,
  type ChatMessage,
} from "./judge-prompts";

/** Settings of the judge client (lab choices for every default). */
export interface JudgeClientOptions {
  /** Base URL of the API, e.g. `http://127.0.0.1:8000/v1` (or the full `…/chat/completions`). */
  url: string;
  model: string;
  /** Bearer token; omitted from the request when empty. */
  apiKey?: string;
  /** Time limit of one attempt, in milliseconds (default 60,000). */
  timeoutMs?: number;
  /** Attempts per call, the first included (default 4). */
  maxAttempts?: number;
  /** Backoff before the second attempt, in milliseconds; doubles each retry (default 500). */
  backoffMs?: number;
  /** Largest backoff, in milliseconds (default 10,000). */
  maxBackoffMs?: number;
  /** Calls in flight at once (default 16). */
  concurrency?: number;
  /** Sampling temperature sent to the judge (default 0). */
  temperature?: number;
  /** `max_tokens` of a reply (default 2,048). */
  maxTokens?: number;
  /** Characters of one response shown to the judge (default DEFAULT_MAX_CANDIDATE_CHARS). */
  maxCandidateChars?: number;
  /** Bytes of one HTTP reply that are read (default 4 MiB). */
  maxReplyBytes?: number;
  /** For tests: the random source of the jitter (default Math.random). */
  random?: () => number;
}

/** Counters of the judge client since it was made. */
export interface JudgeStats {
  /** Judge calls asked for (one per rollout for pointwise GR, one per group for GRR). */
  calls: number;
  /** HTTP attempts, retries included. */
  attempts: number;
  /** Attempts after the first. */
  retries: number;
  /** Calls that got a readable reply. */
  succeeded: number;
  /** Calls that got none after every attempt (the scorer gives r_aux = 0 and counts a judge failure). */
  failed: number;
  /** Attempts cut by the time limit. */
  timeouts: number;
  /** Attempts answered with an HTTP error status. */
  httpErrors: number;
  /** Attempts that failed to connect or to read the reply. */
  networkErrors: number;
  /** Replies (HTTP 200) that the parser could not read, even repaired. */
  unparseable: number;
  /** Readable replies that needed repair (prose, code fences, trailing commas, truncation …). */
  repaired: number;
  /** The last attempt's error, without any secret (e.g. "HTTP 503", "timeout after 60000 ms"), or null. */
  lastError: string | null;
}

/** A judge whose calls are asynchronous: what the reward server scores with. */
export interface AsyncJudge {
  /** The reply to one pointwise call on `text`. Never rejects (a failed call gives its last reply or ""). */
  pointwise(args: { prompt: TaskPrompt; text: string }): Promise<string>;
  /** The reply to one groupwise call over `texts` (1-based in that order). Never rejects. */
  groupwise(args: { prompt: TaskPrompt; texts: readonly string[] }): Promise<string>;
}

type Attempt =
  | { kind: "reply"; content: string }
  | { kind: "retry"; error: string; retryAfterMs?: number }
  | { kind: "fatal"; error: string };

/** A counting semaphore (FIFO). */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(n: number) {
    this.free = n;
  }
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

function positiveInt(v: number | undefined, fallback: number, field: string): number {
  const x = v ?? fallback;
  if (!Number.isInteger(x) || x < 1) throw new Error(`${field} must be an integer >= 1 (got ${x})`);
  return x;
}

function nonNegative(v: number | undefined, fallback: number, field: string): number {
  const x = v ?? fallback;
  if (!Number.isFinite(x) || x < 0)
    throw new Error(`${field} must be a finite number >= 0 (got ${x})`);
  return x;
}

/** The endpoint of `url`: `…/chat/completions` appended unless it is there. */
function endpointOf(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error("judge url: not a URL (set REWARD_JUDGE_URL, e.g. http://127.0.0.1:8000/v1)");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new Error(`judge url: must be http or https (got ${u.protocol})`);
  if (!u.pathname.endsWith("/chat/completions"))
    u.pathname = `${u.pathname.replace(/\/+$/, "")}/chat/completions`;
  return u;
}

/** `url` without credentials or query (for messages: a key may sit in either). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(not a URL)";
  }
}

/** Seconds or an HTTP date of a Retry-After header, in milliseconds, or undefined. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const s = Number(header);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const t = Date.parse(header);
  return Number.isFinite(t) ? Math.max(0, t - Date.now()) : undefined;
}

async function readCapped(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`reply larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The reply text of a chat completion (`choices[0].message.content`), or null. */
function contentOf(envelope: unknown): string | null {
  if (envelope === null || typeof envelope !== "object") return null;
  const choices = (envelope as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const message = (choices[0] as { message?: unknown } | null)?.message;
  const content = (message as { content?: unknown } | null | undefined)?.content;
  return typeof content === "string" ? content : null;
}

function isStrictJsonWith(text: string, key: string): boolean {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === "object" && !Array.isArray(v) && key in v;
  } catch {
    return false;
  }
}

/** What a reply is worth: readable by the lab's parser, and whether it needed repair. */
interface ReplyCheck {
  ok: boolean;
  repaired: boolean;
}

/**
 * Makes an OpenAI-compatible judge client (see the module comment for its
 * retries, timeouts and counters).
 * @throws Error naming the setting for a bad URL, an empty model or a bad number.
 */
export function createJudgeClient(options: JudgeClientOptions): AsyncJudge & {
  stats(): JudgeStats;
  /** Aborts the attempts in flight (server shutdown); later calls fail at once. */
  abort(): void;
  /** `model at url` for the start-up line (no key, no query string). */
  describe(): string;
} {
  const endpoint = endpointOf(options.url);
  const model = options.model;
  if (typeof model !== "string" || model.trim() === "")
    throw new Error("judge model: empty (set REWARD_JUDGE_MODEL)");
  const timeoutMs = positiveInt(options.timeoutMs, 60_000, "judge.timeoutMs");
  const maxAttempts = positiveInt(options.maxAttempts, 4, "judge.maxAttempts");
  const backoffMs = nonNegative(options.backoffMs, 500, "judge.backoffMs");
  const maxBackoffMs = nonNegative(options.maxBackoffMs, 10_000, "judge.maxBackoffMs");
  const slots = new Slots(positiveInt(options.concurrency, 16, "judge.concurrency"));
  const temperature = nonNegative(options.temperature, 0, "judge.temperature");
  const maxTokens = positiveInt(options.maxTokens, 2048, "judge.maxTokens");
  const maxChars = positiveInt(
    options.maxCandidateChars,
    DEFAULT_MAX_CANDIDATE_CHARS,
    "judge.maxCandidateChars",
  );
  const maxReplyBytes = positiveInt(options.maxReplyBytes, 4 * 1024 * 1024, "judge.maxReplyBytes");
  const random = options.random ?? Math.random;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const shutdown = new AbortController();
  const stats: JudgeStats = {
    calls: 0,
    attempts: 0,
    retries: 0,
    succeeded: 0,
    failed: 0,
    timeouts: 0,
    httpErrors: 0,
    networkErrors: 0,
    unparseable: 0,
    repaired: 0,
    lastError: null,
  };

  async function attempt(messages: ChatMessage[]): Promise<Attempt> {
    const signal = AbortSignal.any([shutdown.signal, AbortSignal.timeout(timeoutMs)]);
    let res: Response;
    let body: string;
    try {
      res = await fetch(endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify({ model, messages, temperature, max_tokens: maxTokens }),
        signal,
      });
      body = await readCapped(res, maxReplyBytes);
    } catch (e) {
      if (shutdown.signal.aborted) return { kind: "fatal", error: "aborted: server shutting down" };
      if (signal.aborted) {
        stats.timeouts++;
        return { kind: "retry", error: `timeout after ${timeoutMs} ms` };
      }
      stats.networkErrors++;
      const cause = (e as { cause?: { code?: unknown } }).cause?.code;
      const what = typeof cause === "string" ? cause : e instanceof Error ? e.message : "error";
      return { kind: "retry", error: `network: ${what}` };
    }
    if (res.status !== 200) {
      stats.httpErrors++;
      const error = `HTTP ${res.status}`;
      if (res.status === 408 || res.status === 429 || res.status >= 500)
        return { kind: "retry", error, retryAfterMs: retryAfterMs(res.headers.get("retry-after")) };
      return { kind: "fatal", error };
    }
    let envelope: unknown;
    try {
      envelope = JSON.parse(body);
    } catch {
      envelope = null;
    }
    const content = contentOf(envelope);
    if (content === null) {
      stats.unparseable++;
      return { kind: "retry", error: "reply is not a chat completion with message content" };
    }
    return { kind: "reply", content };
  }

  function backoff(retry: number, hint: number | undefined): number {
    const base = Math.min(maxBackoffMs, backoffMs * 2 ** (retry - 1));
    const jittered = base * (0.5 + 0.5 * random());
    return Math.min(maxBackoffMs, Math.max(jittered, hint ?? 0));
  }

  async function call(messages: ChatMessage[], check: (reply: string) => ReplyCheck) {
    stats.calls++;
    await slots.acquire();
    try {
      let last = "";
      let hint: number | undefined;
      for (let k = 1; k <= maxAttempts; k++) {
        if (shutdown.signal.aborted) break;
        if (k > 1) {
          stats.retries++;
          await sleep(backoff(k - 1, hint), shutdown.signal);
        }
        stats.attempts++;
        const a = await attempt(messages);
        if (a.kind === "reply") {
          const c = check(a.content);
          if (c.ok) {
            if (c.repaired) stats.repaired++;
            stats.succeeded++;
            return a.content;
          }
          stats.unparseable++;
          stats.lastError = "reply not readable by the judge parser";
          last = a.content;
          hint = undefined;
          continue;
        }
        stats.lastError = a.error;
        if (a.kind === "fatal") break;
        hint = a.retryAfterMs;
      }
      stats.failed++;
      return last;
    } finally {
      slots.release();
    }
  }

  return {
    pointwise({ prompt, text }) {
      return call(pointwiseMessages(prompt, text, maxChars), (reply) => {
        const r = parseJudgeScore({ text: reply });
        return { ok: r.ok, repaired: r.ok && !isStrictJsonWith(reply, "judge_score") };
      });
    },
    groupwise({ prompt, texts }) {
      return call(groupwiseMessages(prompt, texts, maxChars), (reply) => {
        const r = parseJudgeRanking({ text: reply, numCandidates: texts.length });
        return { ok: r.ok, repaired: r.ok && (r.source !== "strict" || !r.complete) };
      });
    },
    stats: () => ({ ...stats }),
    abort: () => shutdown.abort(),
    describe: () => `${model} at ${redactUrl(endpoint.href)}`,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
