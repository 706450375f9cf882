/**
 * Requests as the training engines send them, over digit-sum prompts in the
 * lab's response format (docs/reward-spec.md §0), for the reward server's
 * tests and `npm run bench:serve`.
 */
import { mulberry32, type Rng } from "../../src/rewards/index";

/** One prompt of a request: its text, its label and its rollouts' responses. */
export interface PromptCase {
  prompt: string;
  /** `{answer, steps}` (or a plain answer when `steps` is false). */
  label: { answer: string; steps?: string[] };
  responses: string[];
}

const KINDS = ["good", "good-short", "wrong-step", "wrong-answer", "inconsistent", "unformatted"];

/** A response of a given kind to the digit-sum question over `digits`. */
export function response(digits: readonly number[], kind: string): string {
  const sum = digits.reduce((a, b) => a + b, 0);
  const reads = digits.map((d, i) => `Step ${i + 1}: digit ${i + 1} = \\boxed{${d}}`);
  const add = `Step ${digits.length + 1}: ${digits.join(" + ")} = \\boxed{${sum}}`;
  switch (kind) {
    case "good":
      return `<think> ${reads.join(" ")} ${add} </think> \\boxed{${sum}}`;
    case "good-short":
      return `<think> Step 1: ${digits.join(" + ")} = \\boxed{${sum}} </think> \\boxed{${sum}}`;
    case "wrong-step":
      return `<think> Step 1: digit 1 = \\boxed{${digits[0] + 1}} ${reads.slice(1).join(" ")} ${add} </think> \\boxed{${sum}}`;
    case "wrong-answer":
      return `<think> ${reads.join(" ")} Step ${digits.length + 1}: ${digits.join(" + ")} = \\boxed{${sum + 1}} </think> \\boxed{${sum + 1}}`;
    case "inconsistent":
      return `<think> ${reads.join(" ")} Step ${digits.length + 1}: ${digits.join(" + ")} = \\boxed{${sum + 2}} </think> \\boxed{${sum}}`;
    default:
      return `The sum is ${sum}. Answer: ${sum}`;
  }
}

/**
 * `prompts` digit-sum prompts with `perPrompt` rollouts each, of mixed
 * quality (seeded). `steps` false leaves the reference steps out of labels.
 */
export function makeCases(
  prompts: number,
  perPrompt: number,
  seed = 1,
  steps = true,
): PromptCase[] {
  const rng = mulberry32(seed);
  return Array.from({ length: prompts }, (_, p) => {
    const digits = [1 + Math.floor(rng() * 9), Math.floor(rng() * 10), Math.floor(rng() * 10)];
    const sum = digits.reduce((a, b) => a + b, 0);
    const prompt = `<|user|> Image ${p}: what is the sum of the digits? <|assistant|> `;
    const responses = Array.from({ length: perPrompt }, (_, k) =>
      response(digits, KINDS[k < 2 ? 0 : Math.floor(rng() * KINDS.length)]),
    );
    const label = steps
      ? { answer: String(sum), steps: [...digits.map(String), String(sum)] }
      : { answer: String(sum) };
    return { prompt, label, responses };
  });
}

/** The rollouts of `cases` in one flat list, optionally shuffled. */
export function flatten(
  cases: readonly PromptCase[],
  rng?: Rng,
): { prompt: string; response: string; label: PromptCase["label"] }[] {
  const flat = cases.flatMap((c) =>
    c.responses.map((response) => ({ prompt: c.prompt, response, label: c.label })),
  );
  if (rng) {
    for (let i = flat.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [flat[i], flat[j]] = [flat[j], flat[i]];
    }
  }
  return flat;
}

/**
 * The body OpenRLHF posts to its remote reward URL (`{"query": queries,
 * "prompts": prompts, "labels": labels}`, query = prompt + response as
 * decoded, labels = the dataset's label column, here a JSON string): whole
 * batches before its streaming-sampling rework, one rollout per request since.
 */
export function openRlhfBody(flat: ReturnType<typeof flatten>) {
  return {
    query: flat.map((r) => r.prompt + r.response),
    prompts: flat.map((r) => r.prompt),
    labels: flat.map((r) => JSON.stringify(r.label)),
  };
}

/** POSTs JSON (or raw bytes) and returns status, headers and the parsed reply. */
export async function post(
  url: string,
  body: unknown,
  raw = false,
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: raw ? Buffer.from(body as Uint8Array) : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text };
  }
  return { status: res.status, headers: res.headers, json };
}
