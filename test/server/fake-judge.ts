/**
 * A stand-in for an OpenAI-compatible judge (`POST /v1/chat/completions`) on
 * 127.0.0.1, for the reward server's tests and benchmark: no network. By
 * default it answers like a deterministic judge that prefers more steps
 * (ranking and scores depend on each candidate's text only, so they do not
 * depend on the candidates' order). A script of modes makes the next replies
 * malformed, slow or failing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Judge } from "../../src/rewards/index";

/** What the stand-in does with one request. */
type FakeMode =
  | "valid"
  | "fenced" // the JSON inside a code fence with prose and a trailing comma: repairable
  | "garbage" // prose only: unrepairable
  | "no-content" // a chat completion without message content
  | "slow" // answers validly after `slowMs`
  | "http500"
  | "http429"
  | "http401";

/** Steps in a text: the stand-in's idea of quality. */
function quality(text: string): number {
  return (text.match(/Step \d+:/g) ?? []).length;
}

/** The stand-in's ranking reply over candidate texts (dense ranks, more steps = better, ties kept). */
function rankingReply(texts: readonly string[]): string {
  const levels = [...new Set(texts.map(quality))].sort((a, b) => b - a);
  return JSON.stringify({
    solutions: texts.map((t, k) => ({
      index: k + 1,
      rank: levels.indexOf(quality(t)) + 1,
      justification: `${quality(t)} steps`,
      agreement_with_reference: "agrees",
      errors: [],
    })),
  });
}

/** The stand-in's pointwise reply on one text. */
function scoreReply(text: string): string {
  const q = quality(text);
  const score = q >= 4 ? 1 : q === 3 ? 0.8 : q === 2 ? 0.5 : q === 1 ? 0.2 : 0;
  return JSON.stringify({ reasoning_feedback: `${q} steps`, judge_score: score });
}

/** The same judge as a synchronous library Judge (for the library's own results). */
export const syncFakeJudge: Judge = {
  pointwise: ({ text }) => scoreReply(text),
  groupwise: ({ texts }) => rankingReply(texts),
};

/** Candidate texts of a groupwise user message, or null for a pointwise one. */
function candidatesOf(user: string): string[] | null {
  const out: string[] = [];
  const re = /<candidate index="\d+">\n([\s\S]*?)\n<\/candidate>/g;
  for (let m = re.exec(user); m !== null; m = re.exec(user)) out.push(m[1]);
  return out.length > 0 ? out : null;
}

function responseOf(user: string): string {
  const m = /<response>\n([\s\S]*?)\n<\/response>/.exec(user);
  return m ? m[1] : "";
}

/** A running stand-in judge. */
export interface FakeJudge {
  /** Base URL, e.g. `http://127.0.0.1:40123/v1`. */
  url: string;
  /** Modes of the next requests, in order; once used up, "valid". */
  script(modes: FakeMode[]): void;
  /** Requests received: their headers and parsed bodies. */
  requests: {
    headers: IncomingMessage["headers"];
    body: { model: string; messages: { role: string; content: string }[] };
  }[];
  /** Delay of "slow" replies, in ms. */
  slowMs: number;
  /** Delay of every reply, in ms (the benchmark's judge latency). */
  latencyMs: number;
  /** Most requests open at once since start (or since it was last set to 0). */
  peakInFlight: number;
  close(): Promise<void>;
}

/** Starts the stand-in judge on 127.0.0.1 (a free port). */
export async function startFakeJudge(): Promise<FakeJudge> {
  const queue: FakeMode[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const fake: FakeJudge = {
    url: "",
    script: (modes) => queue.push(...modes),
    requests: [],
    slowMs: 2_000,
    latencyMs: 0,
    peakInFlight: 0,
    close: async () => {},
  };
  const later = (ms: number, f: () => void) => {
    if (ms <= 0) return f();
    const t = setTimeout(() => {
      timers.delete(t);
      f();
    }, ms);
    timers.add(t);
  };
  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const body = JSON.parse(raw) as FakeJudge["requests"][number]["body"];
    fake.requests.push({ headers: req.headers, body });
    const mode = queue.shift() ?? "valid";
    const user = body.messages.find((m) => m.role === "user")?.content ?? "";
    const cands = candidatesOf(user);
    const content = cands ? rankingReply(cands) : scoreReply(responseOf(user));
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(payload));
    };
    const completion = (text: string) => ({
      id: "fake",
      object: "chat.completion",
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    });
    later(fake.latencyMs, () => {
      switch (mode) {
        case "fenced":
          return send(
            200,
            completion(
              `Here is my ranking:\n\`\`\`json\n${content.replace(/}$/, ",}")}\n\`\`\`\nDone.`,
            ),
          );
        case "garbage":
          return send(200, completion("I cannot rank these solutions."));
        case "no-content":
          return send(200, { choices: [{ index: 0, message: { role: "assistant" } }] });
        case "slow":
          return later(fake.slowMs, () => send(200, completion(content)));
        case "http500":
          return send(500, { error: "overloaded" });
        case "http429":
          return send(429, { error: "rate limited" }, { "retry-after": "0" });
        case "http401":
          return send(401, { error: "bad key" });
        default:
          return send(200, completion(content));
      }
    });
  };
  let inFlight = 0;
  const server: Server = createServer((req, res) => {
    inFlight++;
    fake.peakInFlight = Math.max(fake.peakInFlight, inFlight);
    res.on("close", () => inFlight--);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
