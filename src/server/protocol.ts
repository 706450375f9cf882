/**
 * The reward server's request bodies, read as untrusted input: OpenRLHF's
 * remote reward protocol (`POST /get_reward`, `{"query", "prompts",
 * "labels"}`) and the batch shape of verl's batch reward manager
 * (`POST /verl/compute_score`, `{"solution_strs", "ground_truths", …}`).
 *
 * Every body is decoded as UTF-8, parsed as JSON, checked for keys that reach
 * a prototype, then checked by a zod schema with stated bounds; every error
 * is a BadRequest whose message starts with the field (`query[3]: …`). Each
 * step is linear in the body's size.
 */
import { z } from "zod";
import { assertNoForbiddenKeys } from "../lib/untrusted";
import { decodeUtf8, isWellFormedText, jsonPathAt } from "./utf8";

/** Size bounds of one request (lab choices, stated in docs/reward-server.md; a config file can change them). */
export interface ServerLimits {
  /** Bytes of one request body. */
  maxBodyBytes: number;
  /** Rollouts in one request. */
  maxRollouts: number;
  /** Characters of one text (a query, a prompt, a response). */
  maxTextChars: number;
  /** Characters of one label (its answer, a step, an option). */
  maxLabelChars: number;
  /** Reference steps in one label. */
  maxLabelSteps: number;
  /** Rollouts in one group that a groupwise judge ranks (GRR). */
  maxGroupSize: number;
}

/**
 * Default bounds (lab choices): 64 MiB and 16,384 rollouts hold one OpenRLHF
 * batch of 2,048 prompts × 8 samples with 1,000-token prompts and 2,000-token
 * responses; 200,000 characters is past any response budget (the trace
 * parser itself reads 1,000,000); a group of 64 is the lab's MAX_GROUP_SIZE.
 */
export const DEFAULT_LIMITS: Readonly<ServerLimits> = {
  maxBodyBytes: 64 * 1024 * 1024,
  maxRollouts: 16_384,
  maxTextChars: 200_000,
  maxLabelChars: 10_000,
  maxLabelSteps: 256,
  maxGroupSize: 64,
};

/** A request the server refuses: HTTP 400, `message` names the field first. */
export class BadRequest extends Error {
  readonly statusCode = 400;
}

/** The ground truth of one rollout, read from its label. */
export interface GoldLabel {
  /** Answer content (or the option letter when `options` is given and no `letter`). */
  answer: string;
  /** Reference step values, in order; empty when the label gives none. */
  steps: string[];
  /** Option letter → content, or null for an open question. */
  options: Record<string, string> | null;
  /** The correct option letter, or null. */
  letter: string | null;
  /** Canonical form: two rollouts of one prompt must have equal keys. */
  key: string;
}

/** One rollout of a request, as the scorer needs it. */
export interface RolloutInput {
  /** The generated response alone (without the prompt). */
  response: string;
  /** The question the judge sees (the prompt text; "" when not sent). */
  question: string;
  /** Rollouts with the same key form one group (GRR ranks within it). */
  groupKey: string;
  label: GoldLabel;
}

function fieldName(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out === "" ? "body" : out;
}

function firstIssue(error: z.ZodError, prefix = ""): string {
  const issue = error.issues[0];
  const name = fieldName(issue.path);
  const where = prefix === "" ? name : name === "body" ? prefix : `${prefix}.${name}`;
  return `${where}: ${issue.message}`;
}

/**
 * Decodes and parses a request body: UTF-8 (the first invalid byte named by
 * its offset and its field), JSON, no key that reaches a prototype.
 * @throws BadRequest naming `body` or the field.
 */
export function readJsonBody(body: unknown): unknown {
  if (!(body instanceof Uint8Array) || body.length === 0)
    throw new BadRequest("body: missing (send a JSON object with Content-Type: application/json)");
  const decoded = decodeUtf8(body);
  if (!decoded.ok) {
    let field = "";
    try {
      JSON.parse(decoded.lenient);
      field = jsonPathAt(decoded.lenient, decoded.charIndex);
    } catch {
      // not JSON even with the bytes replaced: name the body only
    }
    throw new BadRequest(
      `${field === "" ? "body" : field}: not valid UTF-8 (byte ${decoded.byteOffset} of the body)`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(decoded.text);
  } catch (e) {
    throw new BadRequest(`body: not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  try {
    assertNoForbiddenKeys(value, "body");
  } catch (e) {
    throw new BadRequest(e instanceof Error ? e.message : String(e));
  }
  return value;
}

/**
 * Schemas built once per limits object (zod compiles a schema on first use:
 * building one per request or per label would cost more than the check).
 */
function cached<T>(make: (limits: ServerLimits) => T): (limits: ServerLimits) => T {
  const memo = new WeakMap<ServerLimits, T>();
  return (limits) => {
    let s = memo.get(limits);
    if (s === undefined) {
      s = make(limits);
      memo.set(limits, s);
    }
    return s;
  };
}

function textSchema(limits: ServerLimits, what = "maxTextChars") {
  const max = what === "maxTextChars" ? limits.maxTextChars : limits.maxLabelChars;
  return z
    .string()
    .max(max, `longer than ${max} characters (limits.${what})`)
    .refine(isWellFormedText, "not valid UTF-8 text (a lone UTF-16 surrogate, e.g. \\ud800)");
}

function rolloutArray<T extends z.ZodType>(item: T, limits: ServerLimits) {
  return z
    .array(item)
    .max(limits.maxRollouts, `more than ${limits.maxRollouts} rollouts (limits.maxRollouts)`);
}

const labelObjectSchema = cached((limits: ServerLimits) => {
  const text = textSchema(limits, "maxLabelChars");
  const scalar = z.union([text, z.number().finite()]).transform(String);
  return z.strictObject({
    answer: scalar,
    steps: z
      .array(scalar)
      .max(limits.maxLabelSteps, `more than ${limits.maxLabelSteps} steps (limits.maxLabelSteps)`)
      .optional(),
    options: z
      .record(z.string().min(1).max(16), text)
      .refine((o) => Object.keys(o).length <= 64, "more than 64 options")
      .optional(),
    letter: z.string().min(1).max(16).optional(),
  });
});

/**
 * One label: a plain answer (string or number), an object `{answer, steps?,
 * options?, letter?}`, or that object as a JSON string (OpenRLHF's
 * label column is often a string). With `options`, the gold is
 * `letter`, else `answer` when it is one of the letters.
 * @throws BadRequest naming `field`.
 */
export function readLabel(raw: unknown, field: string, limits: ServerLimits): GoldLabel {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.length > limits.maxLabelChars)
      throw new BadRequest(
        `${field}: longer than ${limits.maxLabelChars} characters (limits.maxLabelChars)`,
      );
    if (!isWellFormedText(raw))
      throw new BadRequest(`${field}: not valid UTF-8 text (a lone UTF-16 surrogate)`);
    const t = raw.trim();
    value = t;
    if (t.startsWith("{")) {
      try {
        value = JSON.parse(t);
      } catch {
        value = t; // an answer such as `{1, 2}`: plain text
      }
      if (value !== null && typeof value === "object") {
        try {
          assertNoForbiddenKeys(value, field);
        } catch (e) {
          throw new BadRequest(e instanceof Error ? e.message : String(e));
        }
      }
    }
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new BadRequest(`${field}: must be a finite number`);
    value = String(value);
  }
  if (typeof value === "string") {
    return { answer: value, steps: [], options: null, letter: null, key: JSON.stringify([value]) };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BadRequest(
      `${field}: must be the answer (a string or number) or an object {answer, steps?, options?, letter?}`,
    );
  }
  const r = labelObjectSchema(limits).safeParse(value);
  if (!r.success) throw new BadRequest(firstIssue(r.error, field));
  const { answer, steps = [], options, letter } = r.data;
  const opts = options && Object.keys(options).length > 0 ? { ...options } : null;
  let gold: string | null = null;
  if (opts) {
    if (letter !== undefined) {
      if (!Object.hasOwn(opts, letter))
        throw new BadRequest(`${field}.letter: '${letter}' is not one of the options' letters`);
      gold = letter;
    } else if (Object.hasOwn(opts, answer)) gold = answer;
  } else if (letter !== undefined) {
    throw new BadRequest(`${field}.letter: given without options`);
  }
  const key = JSON.stringify([answer, steps, opts, gold]);
  return { answer, steps, options: opts, letter: gold, key };
}

function sameLength(name: string, got: readonly unknown[] | undefined, n: number, of: string) {
  if (got !== undefined && got.length !== n)
    throw new BadRequest(
      `${name}: has ${got.length} entries but ${of} has ${n} (one per rollout, in the same order)`,
    );
}

/** Rollouts that share `groupKey` must share their label. Linear time (one map). */
function checkGroups(
  rollouts: readonly RolloutInput[],
  labelName: string,
  keyField: (i: number) => string,
) {
  const first = new Map<string, number>();
  rollouts.forEach((r, i) => {
    const j = first.get(r.groupKey);
    if (j === undefined) first.set(r.groupKey, i);
    else if (rollouts[j].label.key !== r.label.key)
      throw new BadRequest(
        `${labelName}[${i}]: differs from ${labelName}[${j}], the label of the same group (${keyField(j)})`,
      );
  });
}

/**
 * Image and video placeholder tokens of the open VLM families (Qwen2-VL and
 * Qwen2.5-VL, LLaVA, InternVL, Llama 3.2 Vision, Gemma 3; lab choice of list).
 * A chat template writes one where the processor later expands it into one
 * per image patch, so a query decoded from token ids with special tokens kept
 * can repeat a placeholder that the prompt string holds once.
 */
const PLACEHOLDER_TOKENS = [
  "<|image_pad|>",
  "<|video_pad|>",
  "<IMG_CONTEXT>",
  "<image_soft_token>",
  "<|image|>",
  "<image>",
] as const;

function placeholderAt(text: string, at: number): string | null {
  if (text.charCodeAt(at) !== 60) return null; // "<"
  for (const t of PLACEHOLDER_TOKENS) if (text.startsWith(t, at)) return t;
  return null;
}

/**
 * The response in an OpenRLHF query: what follows the prompt. The prompt
 * matches the query's start character for character, except that a run of
 * one image placeholder token in the prompt (PLACEHOLDER_TOKENS) matches a
 * run of one or more of the same token in the query (the processor's
 * expansion). Linear in the two lengths.
 * @returns the text after the prompt, or null when the query does not start
 *   with the prompt in that sense.
 */
export function responseAfterPrompt(query: string, prompt: string): string | null {
  if (query.startsWith(prompt)) return query.slice(prompt.length);
  let i = 0;
  let j = 0;
  while (i < prompt.length) {
    const token = placeholderAt(prompt, i);
    if (token !== null) {
      if (!query.startsWith(token, j)) return null;
      while (prompt.startsWith(token, i)) i += token.length;
      while (query.startsWith(token, j)) j += token.length;
    } else {
      if (prompt.charCodeAt(i) !== query.charCodeAt(j)) return null;
      i++;
      j++;
    }
  }
  return query.slice(j);
}

/**
 * True when a group key names a group beyond one request (a prompt or a group
 * id), false for a rollout sent without either (its group is itself).
 */
export function isSharedGroupKey(groupKey: string): boolean {
  return !groupKey.startsWith("i:");
}

const openRlhfSchema = cached((limits: ServerLimits) => {
  const text = textSchema(limits);
  return z.object({
    query: rolloutArray(text, limits),
    prompts: rolloutArray(text, limits).optional(),
    labels: rolloutArray(z.unknown(), limits).optional(),
  });
});

/**
 * Reads OpenRLHF's `/get_reward` body `{"query": [prompt + response, …],
 * "prompts": [prompt, …], "labels": [label, …]}` (other keys are ignored).
 * The response is `query[i]` after its leading `prompts[i]` (responseAfterPrompt:
 * a VLM query's expanded image placeholders match the prompt's one; the whole
 * query when it does not start with the prompt); rollouts with equal prompts form a
 * group; without `prompts` each rollout is its own group.
 * @throws BadRequest naming the field (wrong type, wrong length, over a limit,
 *   a missing label, two labels for one prompt).
 */
export function readOpenRlhfRequest(value: unknown, limits: ServerLimits): RolloutInput[] {
  const r = openRlhfSchema(limits).safeParse(value);
  if (!r.success) throw new BadRequest(firstIssue(r.error));
  const { query, prompts, labels } = r.data;
  sameLength("prompts", prompts, query.length, "query");
  if (labels === undefined)
    throw new BadRequest(
      "labels: required, one per rollout (the answer the verifier checks; set OpenRLHF's --data.label_key, --label_key before 2026-04)",
    );
  sameLength("labels", labels, query.length, "query");
  const rollouts = query.map((q, i): RolloutInput => {
    const prompt = prompts?.[i];
    const response = prompt !== undefined ? (responseAfterPrompt(q, prompt) ?? q) : q;
    return {
      response,
      question: prompt ?? "",
      groupKey: prompt !== undefined ? `p:${prompt}` : `i:${i}`,
      label: readLabel(labels[i], `labels[${i}]`, limits),
    };
  });
  checkGroups(rollouts, "labels", (j) => `prompts[${j}]`);
  return rollouts;
}

const verlSchema = cached((limits: ServerLimits) => {
  const text = textSchema(limits);
  const id = z.union([z.string().max(1000, "longer than 1000 characters"), z.number(), z.null()]);
  return z.object({
    solution_strs: rolloutArray(text, limits),
    ground_truths: rolloutArray(z.unknown(), limits),
    prompts: rolloutArray(text, limits).optional(),
    group_ids: rolloutArray(id, limits).optional(),
    data_sources: rolloutArray(z.unknown(), limits).optional(),
  });
});

/**
 * Reads the verl batch body `{"solution_strs", "ground_truths", "group_ids"?,
 * "prompts"?}` (the arguments of verl's batch `compute_score`, plus the
 * group of each rollout: verl's batch manager does not pass prompts, so the
 * client sends a group id per rollout, e.g. the dataset row's index). Rollouts
 * with equal `group_ids` form a group; a null or missing id, its own group.
 * @throws BadRequest naming the field.
 */
export function readVerlRequest(value: unknown, limits: ServerLimits): RolloutInput[] {
  const r = verlSchema(limits).safeParse(value);
  if (!r.success) throw new BadRequest(firstIssue(r.error));
  const { solution_strs: texts, ground_truths: truths, prompts, group_ids: ids } = r.data;
  sameLength("ground_truths", truths, texts.length, "solution_strs");
  sameLength("prompts", prompts, texts.length, "solution_strs");
  sameLength("group_ids", ids, texts.length, "solution_strs");
  const rollouts = texts.map((response, i): RolloutInput => {
    const id = ids?.[i];
    return {
      response,
      question: prompts?.[i] ?? "",
      groupKey: id === undefined || id === null ? `i:${i}` : `g:${typeof id}:${String(id)}`,
      label: readLabel(truths[i], `ground_truths[${i}]`, limits),
    };
  });
  checkGroups(rollouts, "ground_truths", (j) => `group_ids[${j}]`);
  return rollouts;
}
