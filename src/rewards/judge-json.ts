/**
 * Robust reading of LLM-judge replies (docs/reward-spec.md §2 "Robust judge
 * parsing"; test/fixtures/README.md, contract `parseJudgeRanking`). Strict JSON first,
 * then balanced spans, then salvage of closed entries. Never throws on text.
 *
 * Linear time on any reply: a reply is read up to MAX_JUDGE_REPLY_CHARS
 * characters (the result's `cappedAt` says when the cap cut it), and every
 * regex here is unambiguous (no two quantifiers can share a character).
 */

/**
 * Characters of a judge reply that are read (lab choice: about 50,000 tokens,
 * beyond any judge's reply budget; a ranking of 64 candidates with reasons
 * is under 20,000). Longer replies are read up to this length, as if the
 * judge had been cut off there, and the result's `cappedAt` names the cap.
 */
export const MAX_JUDGE_REPLY_CHARS = 200_000;

/**
 * Largest `numCandidates` of parseJudgeRanking (lab choice: 16 × the lab's
 * largest group, MAX_GROUP_SIZE 64 of src/settings/experiment.ts). The result holds
 * one rank per candidate, so the bound keeps its size in check.
 */
export const MAX_JUDGE_CANDIDATES = 1024;

export interface JudgeRanking {
  /** At least one rank was read. */
  ok: boolean;
  /** No candidate is missing. */
  complete: boolean;
  /** ranks[i] = rank of candidate i + 1 (1 = best, ties kept), or null. */
  ranks: (number | null)[];
  /** 1-based candidates without a rank, ascending. */
  missing: number[];
  /** Indices given more than once (first valid entry wins). */
  duplicates: number[];
  /** Indices outside 1..numCandidates, in order of appearance. */
  invalid: number[];
  /** Lab extension: "strict" | "span" | "salvage" | "none". */
  source: "strict" | "span" | "salvage" | "none";
  /** Lab extension: MAX_JUDGE_REPLY_CHARS when the reply was longer and only that many characters were read; else null. */
  cappedAt: number | null;
}

interface Span {
  start: number;
  end: number; // inclusive
  children: Span[];
}

// Caps keep hostile replies linear-ish: total characters handed to JSON.parse.
const PARSE_BUDGET_FACTOR = 8;

function tryJson(s: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

function tryJsonLenient(s: string): { ok: true; value: unknown } | { ok: false } {
  const strict = tryJson(s);
  if (strict.ok) return strict;
  if (!/,\s*[}\]]/.test(s)) return strict;
  return tryJson(s.replace(/,\s*([}\]])/g, "$1"));
}

/** Balanced `{..}` / `[..]` spans, tracking JSON strings inside spans. */
function findSpans(text: string): Span[] {
  const roots: Span[] = [];
  const stack: { span: Span; close: string }[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && stack.length > 0) inString = true;
    else if (c === "{" || c === "[")
      stack.push({ span: { start: i, end: -1, children: [] }, close: c === "{" ? "}" : "]" });
    else if ((c === "}" || c === "]") && stack.length > 0) {
      if (stack[stack.length - 1].close !== c) {
        // Mismatched closer: the spans opened so far cannot be JSON; drop them.
        stack.length = 0;
        continue;
      }
      const { span } = stack.pop()!;
      span.end = i;
      if (stack.length > 0) stack[stack.length - 1].span.children.push(span);
      else roots.push(span);
    }
  }
  // Spans still open at the end (truncation) keep their closed children.
  for (const open of stack) {
    if (open.span.children.length > 0) roots.push(...open.span.children);
  }
  roots.sort((a, b) => a.start - b.start);
  return roots;
}

/** Parsed JSON values of the outermost spans that parse, in text order. */
function parsedSpans(text: string): unknown[] {
  const values: unknown[] = [];
  let budget = PARSE_BUDGET_FACTOR * text.length + 1000;
  const visit = (span: Span): void => {
    if (budget <= 0) return;
    const slice = text.slice(span.start, span.end + 1);
    budget -= slice.length;
    const parsed = tryJsonLenient(slice);
    if (parsed.ok) values.push(parsed.value);
    else for (const child of span.children) visit(child);
  };
  for (const root of findSpans(text)) visit(root);
  return values;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isEntryArray(v: unknown): v is unknown[] {
  return (
    Array.isArray(v) && v.length > 0 && v.some((e) => isObject(e) && ("index" in e || "rank" in e))
  );
}

/** The last object with a `solutions` key (searching nested values), else null. */
function lastSolutions(values: unknown[]): unknown[] | null {
  let found: unknown[] | null = null;
  const walk = (v: unknown, depth: number): void => {
    if (depth > 50) return;
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (isObject(v)) {
      for (const key of Object.keys(v)) if (key !== "solutions") walk(v[key], depth + 1);
      if ("solutions" in v && Array.isArray(v.solutions)) found = v.solutions;
    }
  };
  for (const v of values) walk(v, 0);
  return found;
}

/** Salvage of a truncated reply: fully closed entry objects after the last `"solutions"`. */
function salvageEntries(text: string): unknown[] | null {
  const at = text.lastIndexOf('"solutions"');
  if (at < 0) return null;
  const open = text.indexOf("[", at);
  if (open < 0) return null;
  const entries: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      if (depth === 0 && c === "{") start = i;
      depth++;
    } else if (c === "}" || c === "]") {
      depth--;
      if (depth < 0) break; // end of the solutions array
      if (depth === 0 && c === "}" && start >= 0) {
        const parsed = tryJsonLenient(text.slice(start, i + 1));
        if (parsed.ok) entries.push(parsed.value);
        start = -1;
      }
    }
  }
  return entries;
}

/** Integer from an integer, integral float or numeric string (`" 3 "`, `"1.0"`); else null. */
export function readIntegerLike(v: unknown): number | null {
  if (typeof v === "number") return Number.isInteger(v) ? v : null;
  if (typeof v === "string") {
    const t = v.trim();
    if (!/^[+-]?\d+(?:\.0*)?$/.test(t)) return null;
    const n = Number(t);
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

function rankingFrom(
  entries: unknown[] | null,
  n: number,
  source: JudgeRanking["source"],
  cappedAt: number | null,
): JudgeRanking {
  const ranks: (number | null)[] = new Array(n).fill(null);
  const duplicates: number[] = [];
  const invalid: number[] = [];
  for (const e of entries ?? []) {
    if (!isObject(e)) continue;
    const index = readIntegerLike(e.index);
    const rank = readIntegerLike(e.rank);
    if (index === null || rank === null) continue; // unreadable entry (contract 5)
    if (index < 1 || index > n) {
      invalid.push(index);
      continue;
    }
    if (rank < 1) continue;
    if (ranks[index - 1] !== null) {
      if (!duplicates.includes(index)) duplicates.push(index);
      continue;
    }
    ranks[index - 1] = rank;
  }
  const missing: number[] = [];
  ranks.forEach((r, i) => {
    if (r === null) missing.push(i + 1);
  });
  const ok = ranks.some((r) => r !== null);
  return {
    ok,
    complete: missing.length === 0,
    ranks,
    missing,
    duplicates,
    invalid,
    source: ok ? source : "none",
    cappedAt,
  };
}

/** The reply as read: a string (non-strings read as ""), cut at MAX_JUDGE_REPLY_CHARS. */
function boundedReply(text: unknown): { src: string; cappedAt: number | null } {
  const s = typeof text === "string" ? text : "";
  return s.length > MAX_JUDGE_REPLY_CHARS
    ? { src: s.slice(0, MAX_JUDGE_REPLY_CHARS), cappedAt: MAX_JUDGE_REPLY_CHARS }
    : { src: s, cappedAt: null };
}

/**
 * `parseJudgeRanking({text, numCandidates})`: the groupwise judge's tie-aware
 * ranks, repaired from code fences, prose, trailing commas, numeric strings,
 * truncation; reports missing, duplicate and invalid indices. Source: cases
 * README, contract parseJudgeRanking 1–10; docs/reward-spec.md §2. Never throws on
 * `text`; reads at most MAX_JUDGE_REPLY_CHARS of it (`cappedAt` says when).
 * @throws Error naming `numCandidates` when it is not an integer in
 *   [0, MAX_JUDGE_CANDIDATES].
 */
export function parseJudgeRanking({
  text,
  numCandidates,
}: {
  text: string;
  numCandidates: number;
}): JudgeRanking {
  if (
    !Number.isInteger(numCandidates) ||
    numCandidates < 0 ||
    numCandidates > MAX_JUDGE_CANDIDATES
  ) {
    throw new Error(
      `parseJudgeRanking: numCandidates must be an integer in [0, ${MAX_JUDGE_CANDIDATES}] (MAX_JUDGE_CANDIDATES), got ${String(numCandidates)}`,
    );
  }
  const { src, cappedAt } = boundedReply(text);
  const n = numCandidates;
  const strict = tryJson(src);
  if (strict.ok) {
    const sol = lastSolutions([strict.value]);
    if (sol) return rankingFrom(sol, n, "strict", cappedAt);
    if (isEntryArray(strict.value)) return rankingFrom(strict.value, n, "strict", cappedAt);
  }
  const values = parsedSpans(src);
  const sol = lastSolutions(values);
  if (sol) return rankingFrom(sol, n, "span", cappedAt);
  for (let i = values.length - 1; i >= 0; i--) {
    if (isEntryArray(values[i])) return rankingFrom(values[i] as unknown[], n, "span", cappedAt);
  }
  return rankingFrom(salvageEntries(src), n, "salvage", cappedAt);
}

export interface JudgeScore {
  ok: boolean;
  /** judge_score clamped to [0, 1], or null. */
  score: number | null;
  feedback: string | null;
  /** MAX_JUDGE_REPLY_CHARS when the reply was longer and only that many characters were read; else null. */
  cappedAt: number | null;
}

// `judge_score: x` anywhere (last resort). Unambiguous: the spaces before and
// after the optional quote are separate runs, so no two quantifiers compete.
const SCORE_FIELD = /"?judge_score"?\s*:\s*(?:"\s*)?(-?\d+(?:\.\d+)?|\.\d+)/i;

/**
 * Reads a pointwise judge reply `{"reasoning_feedback": str, "judge_score":
 * float}` (GRR eq. 4, App. B.1) with the same repairs as the ranking parser,
 * then a last-resort `"judge_score": x` scan. Scores are clamped to [0, 1];
 * unreadable → ok false (the caller gives r_gr = 0 and counts a judge
 * failure, docs/reward-spec.md §2). Reads at most MAX_JUDGE_REPLY_CHARS of
 * the reply (`cappedAt` says when). Never throws.
 */
export function parseJudgeScore({ text }: { text: string }): JudgeScore {
  const { src, cappedAt } = boundedReply(text);
  const strict = tryJson(src);
  const values = strict.ok ? [strict.value] : parsedSpans(src);
  for (let i = values.length - 1; i >= 0; i--) {
    const v = values[i];
    if (!isObject(v) || !("judge_score" in v)) continue;
    const s = readScore(v.judge_score);
    if (s !== null) {
      const fb = typeof v.reasoning_feedback === "string" ? v.reasoning_feedback : null;
      return { ok: true, score: s, feedback: fb, cappedAt };
    }
  }
  const m = SCORE_FIELD.exec(src);
  if (m) {
    const s = readScore(m[1]);
    if (s !== null) return { ok: true, score: s, feedback: null, cappedAt };
  }
  return { ok: false, score: null, feedback: null, cappedAt };
}

function readScore(v: unknown): number | null {
  const n =
    typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v.trim()) : NaN;
  if (!Number.isFinite(n)) return null;
  return Math.min(1, Math.max(0, n));
}
