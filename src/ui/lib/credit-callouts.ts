/**
 * The guided view's sentences about what each variant pays for, read off the
 * credit values of the run's training rows (`credit/<class>/advantage`,
 * src/settings/credit-table.ts): for each kind of answer a paper's reward
 * is built to pay less than a faithful right answer (a right answer from
 * flawed steps: ACRE WR–CA, StructReward's rule term, GRR's PRM arm; an answer
 * its own steps do not support: GRR, and SCS's lucky guess when it is
 * right; an answer copied from a letter in the trace: ACRE), how the mean
 * advantage of that kind compares with that of faithful right answers under
 * each variant, e.g. "RLVR pays a right answer from flawed steps about as
 * much as a faithful right answer (mean advantage +0.41 vs +0.43); SCS pays
 * it less (−0.12 vs +0.38)".
 *
 * The rule (lab choice, 2026-12-06 09:52 UTC, fixed before it was computed
 * on any run): per variant, each class's mean advantage is pooled over all
 * its rollouts so far (every step and seed: ./credit-data.ts pooledCredit);
 * a variant is named only when both classes occurred; "less" when the
 * class's mean is more than PAY_MARGIN below the faithful right answers',
 * "more" when more than PAY_MARGIN above, else "about as much as". A
 * sentence needs at least one variant with both classes. Pure: tested on
 * recorded rows (test/ui/credit-callouts.test.ts).
 */
import type { MetricRow } from "../../run/run-types";
import { variantLabel } from "../../settings/variant-meta";
import { pooledCredit } from "./credit-data";

/** Differences of mean advantage within this (advantage units) read as "about as much" (lab choice). */
const PAY_MARGIN = 0.1;

/** The rule in words, for the guided view's "how the callouts are made". */
export const CREDIT_RULE_TEXT = `What each variant pays for: per variant, the mean advantage of a right answer from flawed steps, of an answer its own steps do not support and of an answer copied from an option letter, each over all its training rollouts so far, against that of faithful right answers; "less" or "more" when they differ by more than ${PAY_MARGIN}, else "about as much"; a variant is named only when both kinds occurred.`;

/** The class every sentence compares with. */
const REFERENCE = "faithful-right";

/** The kinds of answer the sentences are about, and how a sentence names them. */
const COMPARED: readonly { cls: string; noun: string }[] = [
  { cls: "flawed-right", noun: "a right answer from flawed steps" },
  { cls: "unsupported", noun: "an answer its own steps do not support" },
  { cls: "index-bound", noun: "an answer copied from an option letter in its trace" },
];

/** How a variant pays a class against faithful right answers. */
export type PayVerdict = "less" | "about as much as" | "more";

/** One variant's figures in a sentence. */
interface PayFigure {
  variant: string;
  /** Mean advantage of the compared class, pooled over the run's rollouts. */
  cls: number;
  /** Mean advantage of faithful right answers, pooled likewise. */
  reference: number;
  verdict: PayVerdict;
}

/** One sentence: a class compared with faithful right answers under each variant that had both. */
export interface CreditCallout {
  id: string;
  cls: string;
  figures: PayFigure[];
  /** Last training step the figures include. */
  step: number;
  text: string;
}

const LONG: Record<PayVerdict, string> = {
  less: "less than",
  "about as much as": "about as much as",
  more: "more than",
};
const SHORT: Record<PayVerdict, string> = {
  less: "less",
  "about as much as": "about as much",
  more: "more",
};

const signed = (v: number) => `${v > 0 ? "+" : v < 0 ? "−" : ""}${Math.abs(v).toFixed(2)}`;

/** The verdict of a class's mean advantage against the reference class's (see the module comment). */
export function payVerdict(cls: number, reference: number): PayVerdict {
  const d = cls - reference;
  return d < -PAY_MARGIN ? "less" : d > PAY_MARGIN ? "more" : "about as much as";
}

/**
 * The sentences for a run, in the order of COMPARED; none for a class no
 * variant had together with faithful right answers.
 * @param trainRows each variant's training rows (any seeds), in the run's variant order.
 */
export function computeCreditCallouts(
  trainRows: Readonly<Record<string, readonly MetricRow[]>>,
): CreditCallout[] {
  const out: CreditCallout[] = [];
  let step = 0;
  for (const rows of Object.values(trainRows))
    for (const r of rows) if (r.kind === "train") step = Math.max(step, r.step);
  for (const { cls, noun } of COMPARED) {
    const figures: PayFigure[] = [];
    for (const [variant, rows] of Object.entries(trainRows)) {
      const a = pooledCredit(rows, cls, "advantage");
      const b = pooledCredit(rows, REFERENCE, "advantage");
      if (!a || !b) continue;
      figures.push({
        variant,
        cls: a.value,
        reference: b.value,
        verdict: payVerdict(a.value, b.value),
      });
    }
    if (figures.length === 0) continue;
    const clauses = figures.map((f, i) => {
      const fig = `(${i === 0 ? "mean advantage " : ""}${signed(f.cls)} vs ${signed(f.reference)})`;
      return i === 0
        ? `${variantLabel(f.variant)} pays ${noun} ${LONG[f.verdict]} a faithful right answer ${fig}`
        : `${variantLabel(f.variant)} pays it ${SHORT[f.verdict]} ${fig}`;
    });
    out.push({
      id: `pays:${cls}`,
      cls,
      figures,
      step,
      text: `${clauses.join("; ")}, ${step === 1 ? "at step 1" : `over steps 1–${step}`}.`,
    });
  }
  return out;
}
