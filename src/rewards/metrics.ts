/**
 * The papers' evaluation metrics: Acc, IncR, CBIR, RC-Acc (GRR §4.1,
 * docs/reward-spec.md §2), CACR and OSCR (ACRE, docs/reward-spec.md §5).
 */
import type { TaskPrompt } from "../tasks/types";
import {
  judgeParsedConsistency,
  type ConsistencyJudgment,
  type ConsistencyOptions,
} from "./consistency";
import { answersEquivalent } from "./equivalence";
import { parseTrace } from "./trace";
import { goldOf, verifyParsed } from "./verifier";

export interface MetricRecord {
  /** Final answer verified correct. */
  correct: boolean;
  judgment: ConsistencyJudgment;
}

export interface PaperMetrics {
  /** correct / all (GRR §4.1). */
  acc: number;
  /** inconsistent / (all − N/A) (GRR §4.1; 0 when every response is N/A). */
  incR: number;
  /** (correct ∧ inconsistent) / all (GRR §4.1). */
  cbir: number;
  /** Acc − CBIR, the primary metric (GRR §4.1). */
  rcAcc: number;
  /** consistent / all, N/A counts as not consistent (ACRE, docs/reward-spec.md §5). */
  cacr: number;
}

/**
 * `paperMetrics({records})`: fractions in [0, 1] over the records. An empty
 * list gives all zeros (lab choice: no NaN in charts). Throws when a record's
 * judgment is not "consistent" | "inconsistent" | "na".
 */
export function paperMetrics({ records }: { records: ReadonlyArray<MetricRecord> }): PaperMetrics {
  const n = records.length;
  let correct = 0;
  let inconsistent = 0;
  let na = 0;
  let consistent = 0;
  let correctInconsistent = 0;
  for (const r of records) {
    if (r.judgment !== "consistent" && r.judgment !== "inconsistent" && r.judgment !== "na") {
      throw new Error(
        `paperMetrics: records[].judgment must be consistent|inconsistent|na (got ${String(r.judgment)})`,
      );
    }
    if (r.correct) correct++;
    if (r.judgment === "inconsistent") {
      inconsistent++;
      if (r.correct) correctInconsistent++;
    } else if (r.judgment === "na") na++;
    else consistent++;
  }
  if (n === 0) return { acc: 0, incR: 0, cbir: 0, rcAcc: 0, cacr: 0 };
  const acc = correct / n;
  const cbir = correctInconsistent / n;
  return {
    acc,
    incR: n - na > 0 ? inconsistent / (n - na) : 0,
    cbir,
    rcAcc: acc - cbir,
    cacr: consistent / n,
  };
}

/**
 * `metricRecords({prompts, texts})`: one record per (prompt, response) pair,
 * `texts[i]` answering `prompts[i]`. A cut-off answer is N/A and not correct.
 */
export function metricRecords({
  prompts,
  texts,
  consistency,
}: {
  prompts: ReadonlyArray<Pick<TaskPrompt, "answer" | "options">>;
  texts: ReadonlyArray<string>;
  consistency?: Omit<ConsistencyOptions, "options">;
}): MetricRecord[] {
  if (prompts.length !== texts.length)
    throw new Error("metricRecords: prompts and texts must have the same length");
  return texts.map((text, i) => {
    const parsed = parseTrace({ text });
    const gold = goldOf(prompts[i]);
    return {
      correct: verifyParsed(parsed, gold).passed,
      judgment: judgeParsedConsistency(parsed, { ...consistency, options: gold.options }).judgment,
    };
  });
}

/**
 * `oscr({pairs})`: fraction of responses whose second-pass answer (shuffled
 * options, same trace) equals the first by option content (ACRE,
 * docs/reward-spec.md §5). Each pair gives the answers and the option maps they refer
 * to; a null answer never matches. Empty → 0.
 */
export function oscr({
  pairs,
}: {
  pairs: ReadonlyArray<{
    first: string | null;
    second: string | null;
    firstOptions?: Record<string, string> | null;
    secondOptions?: Record<string, string> | null;
  }>;
}): number {
  if (pairs.length === 0) return 0;
  let same = 0;
  for (const p of pairs) {
    const a = contentAnswer(p.first, p.firstOptions);
    const b = contentAnswer(p.second, p.secondOptions ?? p.firstOptions);
    if (a !== null && b !== null && answersEquivalent({ predicted: a, gold: b })) same++;
  }
  return same / pairs.length;
}

// A lone option letter, trimmed: `B`, `(B)`, `B.`, `B )`. Unambiguous on trimmed
// text (one run of spaces, between the letter and its mark), so linear.
const LONE_LETTER = /^\(?([A-Za-z])\)?(?:\s*[.):])?$/;

/**
 * A letter answer replaced by its option content (so shuffled letters
 * compare by content); any other answer unchanged. Linear time; never throws.
 */
export function contentAnswer(
  answer: string | null,
  options: Record<string, string> | null | undefined,
): string | null {
  if (answer === null) return null;
  if (!options) return answer;
  const m = LONE_LETTER.exec(answer.replace(/\\text\{([^{}]*)\}/g, "$1").trim());
  if (m) {
    const key = Object.keys(options).find((k) => k.toUpperCase() === m[1].toUpperCase());
    if (key !== undefined) return options[key];
  }
  return answer;
}
