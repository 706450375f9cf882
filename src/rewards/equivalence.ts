/**
 * Answer equivalence `≡` (docs/reward-spec.md §0; test/fixtures/README.md, contract
 * `answersEquivalent` rules 1–19): normalisation, lists and sets, math by
 * float64 evaluation at seeded points, lexical comparison, option letters.
 */
import { collectVariables, evaluateMath, parseMath, type MathNode } from "./math-eval";

/** Relative tolerance of numeric equality (docs/reward-spec.md §0, rule 13). */
const RELATIVE_TOLERANCE = 1e-6;
/** Absolute tolerance, used only when one side is exactly 0 (rule 13). */
const ZERO_TOLERANCE = 1e-12;
/** Number of seeded variable points (rule 15: at least five). Lab choice. */
const VARIABLE_POINTS = 6;
/**
 * Longest answer (characters, each side) that is read (lab choice: an
 * extracted answer is a number, a short expression or a few words; math
 * evaluation already stops at MAX_MATH_LENGTH 2,000). A longer side is
 * equivalent only to the identical string.
 */
export const MAX_ANSWER_CHARS = 10_000;

const UNWRAP_COMMANDS = new Set(["text", "textbf", "mathrm", "mbox"]);

// Units after a number (rule 4, lab choice). Multi-letter units may touch the number.
const MULTI_LETTER_UNITS =
  "cm|mm|km|nm|kg|mg|ml|cl|min|mins|minutes?|hours?|hrs?|seconds?|secs?|days?|weeks?|months?|years?|" +
  "units?|square units|sq units|degrees?|deg|dollars?|cents?|euros?|pounds?|lbs?|meters?|metres?|" +
  "centimeters?|centimetres?|millimeters?|kilometers?|inches|inch|feet|foot|ft|miles?|yards?|" +
  "grams?|kilograms?|liters?|litres?|radians?|rad|items?|pieces?|objects?|people|persons?";
const TRAILING_MULTI_UNIT = new RegExp(
  `(\\d)\\s*(?:${MULTI_LETTER_UNITS})(?:\\^\\{?[23]\\}?)?$`,
  "i",
);
// One-letter units only after a space: `7 m` is 7, `7m` stays a product.
const TRAILING_SINGLE_UNIT = /(\d)\s+[mgshL](?:\^\{?[23]\}?)?$/;
const THOUSANDS = /(?<![\d,.])-?\d{1,3}(?:,\d{3})+(?![\d,])/g;
// Unambiguous: the fraction part can only start at the dot (`\d+\.?\d*` split a digit run in n ways).
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** Characters trimmed from both ends of a lexical form (rule 16). */
const LEXICAL_TRIM = new Set([..." .,;:!?'\"`\u201c\u201d\u2018\u2019"]);

/** Unwraps `\text{..}`-like commands with one brace walk (linear). */
function unwrapTextCommands(s: string): string {
  let out = "";
  const keep: boolean[] = []; // per open brace: emit its closing brace?
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") {
      let j = i + 1;
      while (j < s.length && /[A-Za-z]/.test(s[j])) j++;
      const name = s.slice(i + 1, j);
      if (j > i + 1 && UNWRAP_COMMANDS.has(name)) {
        let k = j;
        while (k < s.length && s[k] === " ") k++;
        if (s[k] === "{") {
          keep.push(false);
          i = k;
          continue;
        }
      }
      if (j === i + 1 && i + 1 < s.length) {
        out += c + s[i + 1]; // escaped char such as `\{`
        i++;
        continue;
      }
      out += s.slice(i, j);
      i = j - 1;
      continue;
    }
    if (c === "{") {
      keep.push(true);
      out += c;
    } else if (c === "}") {
      const k = keep.length > 0 ? keep.pop()! : true;
      if (k) out += c;
    } else out += c;
  }
  return out;
}

/** Normalisation rules 1–4, applied to both sides. */
export function normalizeAnswer(raw: string): string {
  let s = raw.trim().replace(/[\u2212\u2013\u2014]/g, "-");
  s = s.replace(/\\\$/g, "").replace(/\$/g, "").replace(/\*\*/g, "");
  s = s.replace(/\\left(?![A-Za-z])/g, "").replace(/\\right(?![A-Za-z])/g, "");
  s = s.replace(/\\[dt]frac(?![A-Za-z])/g, "\\frac");
  if (s.includes("\\")) s = unwrapTextCommands(s);
  s = s
    .replace(/\^\s*\{\s*\\circ\s*\}/g, "")
    .replace(/\^\s*\\circ(?![A-Za-z])/g, "")
    .replace(/°/g, "");
  s = s.replace(/\\%/g, "%");
  s = s
    .replace(/\\[,;!:]|\\ |~/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  s = s.replace(TRAILING_MULTI_UNIT, "$1").replace(TRAILING_SINGLE_UNIT, "$1");
  return s.trim();
}

/** Lexical form (rule 16). */
function lexicalForm(s: string): string {
  let t = s.toLowerCase().replace(/\s+/g, " ").trim();
  // Punctuation and spaces off both ends, by index: a `[…]+$` regex retries
  // from every position of a long punctuation run (quadratic).
  let start = 0;
  let end = t.length;
  while (start < end && LEXICAL_TRIM.has(t[start])) start++;
  while (end > start && LEXICAL_TRIM.has(t[end - 1])) end--;
  t = t.slice(start, end);
  const words = t.split(" ");
  const kept = words.filter((w) => w !== "a" && w !== "an" && w !== "the");
  if (kept.length > 0) t = kept.join(" ");
  if (t === "yes") t = "true";
  if (t === "no") t = "false";
  return t;
}

type ListKind = "(" | "[" | "()" | "[]" | "(]" | "[)" | "set";
interface ListValue {
  kind: ListKind;
  items: string[];
}

/** Splits at top-level commas; brackets of any kind (and `\{ \}`) nest. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\" && (s[i + 1] === "{" || s[i + 1] === "}")) {
      depth += s[i + 1] === "{" ? 1 : -1;
      i++;
    } else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === "," && depth === 0) {
      parts.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(s.slice(start).trim());
  return parts;
}

/** True when the bracket opened at 0 closes exactly at the last character. */
function whollyEnclosed(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0 && i !== s.length - 1) return false;
      if (depth < 0) return false;
    }
  }
  return depth === 0;
}

/** Rule 7: tuple, set, or null for a single value. */
function readList(s: string): ListValue | null {
  if (s.startsWith("\\{") && s.endsWith("\\}") && s.length >= 4) {
    const inner = s.slice(2, -2);
    const items = inner.trim() === "" ? [] : splitTopLevel(inner);
    return { kind: "set", items };
  }
  const first = s[0];
  const last = s[s.length - 1];
  if ((first === "(" || first === "[") && (last === ")" || last === "]") && whollyEnclosed(s)) {
    const items = splitTopLevel(s.slice(1, -1));
    if (items.length >= 2) return { kind: (first + last) as ListKind, items };
    return null;
  }
  const items = splitTopLevel(s);
  return items.length >= 2 ? { kind: "()", items } : null;
}

function numbersClose(a: number, b: number): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  if (a === 0 || b === 0) return Math.abs(a - b) <= ZERO_TOLERANCE;
  return Math.abs(a - b) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

/** Seeded points: each variable uniform in [0.5, 3.5] (rule 15). */
function variablePoints(names: string[]): Record<string, number>[] {
  let state = 0x9e3779b9;
  const next = () => {
    // mulberry32: fixed seed, so the same inputs always give the same verdict
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const points: Record<string, number>[] = [];
  for (let p = 0; p < VARIABLE_POINTS; p++) {
    const env: Record<string, number> = {};
    for (const n of names) env[n] = 0.5 + 3 * next();
    points.push(env);
  }
  return points;
}

interface MathSide {
  node: MathNode;
  percent: boolean;
}

function readMathSide(s: string): MathSide | null {
  const percent = s.endsWith("%");
  const body = percent ? s.slice(0, -1).trim() : s;
  const node = parseMath(body);
  return node === null ? null : { node, percent };
}

function mathEqual(a: MathSide, b: MathSide): boolean {
  const names = [...collectVariables(b.node, collectVariables(a.node, new Set()))].sort();
  const envs = names.length === 0 ? [{}] : variablePoints(names);
  // Rule 14: with exactly one `%`, that side may be read as x or x/100.
  const scales: [number, number][] =
    a.percent !== b.percent
      ? a.percent
        ? [
            [1, 1],
            [0.01, 1],
          ]
        : [
            [1, 1],
            [1, 0.01],
          ]
      : [[1, 1]];
  return scales.some(([sa, sb]) =>
    envs.every((env) =>
      numbersClose(evaluateMath(a.node, env) * sa, evaluateMath(b.node, env) * sb),
    ),
  );
}

function singleEqual(a: string, b: string): boolean {
  if (a.length > 0 && a === b) return true;
  if (PLAIN_NUMBER.test(a) && PLAIN_NUMBER.test(b)) return numbersClose(Number(a), Number(b));
  const ma = readMathSide(a);
  const mb = ma === null ? null : readMathSide(b);
  if (ma !== null && mb !== null && mathEqual(ma, mb)) return true;
  const la = lexicalForm(a);
  return la.length > 0 && la === lexicalForm(b);
}

/**
 * Item comparisons one answersEquivalent call may make (lab choice): lists
 * and sets compare item by item, and a set's unmatched items pairwise, which
 * grows with the square of their count. Past the budget the answers are not
 * equivalent.
 */
const MAX_ITEM_COMPARISONS = 10_000;

/** What is left of MAX_ITEM_COMPARISONS in one answersEquivalent call. */
interface Work {
  left: number;
}

function plainEqual(a: string, b: string, work: Work, depth = 0): boolean {
  if (a.length > 0 && a === b) return true;
  if (depth > 20 || --work.left < 0) return false;
  const ca = a.includes(",") ? a.replace(THOUSANDS, (m) => m.replace(/,/g, "")) : a;
  const cb = b.includes(",") ? b.replace(THOUSANDS, (m) => m.replace(/,/g, "")) : b;
  const la = ca.length > 0 ? readList(ca) : null;
  const lb = cb.length > 0 ? readList(cb) : null;
  if (la === null && lb === null) return singleEqual(ca, cb);
  if (la === null || lb === null) return false;
  if (la.kind !== lb.kind || la.items.length !== lb.items.length) return false;
  if (la.kind !== "set")
    return la.items.every((x, i) => plainEqual(x, lb.items[i], work, depth + 1));
  // Identical items pair off first (one pass); only the rest are matched pairwise.
  const unmatched = new Map<string, number>();
  for (const y of lb.items) unmatched.set(y, (unmatched.get(y) ?? 0) + 1);
  const restA: string[] = [];
  for (const x of la.items) {
    const n = x.length > 0 ? (unmatched.get(x) ?? 0) : 0;
    if (n > 0) unmatched.set(x, n - 1);
    else restA.push(x);
  }
  const restB = lb.items.filter((y) => {
    const n = unmatched.get(y) ?? 0;
    if (n === 0) return false;
    unmatched.set(y, n - 1);
    return true;
  });
  const used = new Array<boolean>(restB.length).fill(false);
  return restA.every((x) => {
    const j = restB.findIndex((y, k) => !used[k] && plainEqual(x, y, work, depth + 1));
    if (j < 0) return false;
    used[j] = true;
    return true;
  });
}

const LETTER_ANSWER = /^(?:\(([A-Za-z])\)|([A-Za-z])(?=$|[.):]))[.):]?\s*(.*)$/s;

interface LetterAnswer {
  key: string;
  content: string;
}

/** Rule 17: an option letter, optionally with content. Null when not a letter answer. */
function readLetterAnswer(s: string, options: Record<string, string>): LetterAnswer | null {
  const m = LETTER_ANSWER.exec(s);
  if (!m) return null;
  const letter = (m[1] ?? m[2]).toUpperCase();
  const key = Object.keys(options).find((k) => k.trim().toUpperCase() === letter);
  if (key === undefined) return null;
  return { key, content: m[3].trim() };
}

/**
 * `answersEquivalent({predicted, gold, options?})`: true when two extracted
 * answers mean the same (numeric within relative 1e-6, symbolic by seeded
 * evaluation, lexical, option letters ↔ contents). Source: docs/reward-spec.md §0 and
 * test/fixtures/README.md, contract answersEquivalent 1–19. Never throws: unreadable or
 * non-string input is simply not equivalent. Runs in well under 100 ms: a side
 * longer than MAX_ANSWER_CHARS is not read and is equivalent only to the
 * identical string.
 */
export function answersEquivalent({
  predicted,
  gold,
  options,
}: {
  predicted: string | null | undefined;
  gold: string | null | undefined;
  options?: Record<string, string> | null;
}): boolean {
  try {
    if (typeof predicted === "number") predicted = String(predicted);
    if (typeof gold === "number") gold = String(gold);
    if (typeof predicted !== "string" || typeof gold !== "string") return false;
    if (predicted.length > MAX_ANSWER_CHARS || gold.length > MAX_ANSWER_CHARS)
      return predicted === gold && predicted.trim().length > 0;
    const p = normalizeAnswer(predicted);
    const g = normalizeAnswer(gold);
    if (p.length > 0 && p === g) return true;
    if (options && typeof options === "object" && Object.keys(options).length > 0) {
      const lp = readLetterAnswer(p, options);
      const lg = readLetterAnswer(g, options);
      if (lp !== null || lg !== null)
        return letterEqual(lp, lg, p, g, options, { left: MAX_ITEM_COMPARISONS });
    }
    return plainEqual(p, g, { left: MAX_ITEM_COMPARISONS });
  } catch {
    return false;
  }
}

function contentOf(l: LetterAnswer, options: Record<string, string>, work: Work): string | null {
  const optionContent = normalizeAnswer(String(options[l.key] ?? ""));
  // Rule 18: a letter with content must agree with its option (no hedges).
  if (l.content.length > 0 && !plainEqual(normalizeAnswer(l.content), optionContent, work))
    return null;
  return optionContent;
}

function letterEqual(
  lp: LetterAnswer | null,
  lg: LetterAnswer | null,
  p: string,
  g: string,
  options: Record<string, string>,
  work: Work,
): boolean {
  const cp = lp ? contentOf(lp, options, work) : p;
  const cg = lg ? contentOf(lg, options, work) : g;
  if (cp === null || cg === null) return false;
  if (lp && lg) return lp.key === lg.key; // rule 19: two letters, same letter
  return plainEqual(cp, cg, work);
}
