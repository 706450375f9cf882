/**
 * Held-out evaluation metrics from the eval responses (greedy, or sampled at
 * Experiment.evalTemperature; CPU, runs in the trainer
 * worker or the CLI, never on the page's thread).
 *
 *   acc, incR, cbir, rcAcc, cacr  GRR §4.1 / ACRE (docs/reward-spec.md §2, §5) via paperMetrics
 *   formatRate                     fraction with StructReward's strict R_fmt = 1 (docs/reward-spec.md §3)
 *   stepAcc                        fraction of the reference *reading* steps (every
 *                                  step but the final compute step: for digits, reading
 *                                  each digit) whose same-numbered generated step has
 *                                  the true value in its box (lab choice)
 *   oscr                           ACRE eq. 2 over the multiple-choice prompts, from the
 *                                  re-asked answers (`reask`); absent without a second
 *                                  pass or without multiple-choice prompts (nothing to
 *                                  measure, so no chart of zeros on open-ended runs)
 *   hintFollow                     among prompts whose question leaks a wrong answer
 *                                  hint (TaskConfig.hintRate), the fraction whose final
 *                                  answer is that hint: how often the policy takes the
 *                                  shortcut instead of its own steps (lab choice; 0 when
 *                                  no prompt has a wrong hint)
 *   luckyGuess, wrca               wrong reasoning with a correct answer (ACRE §1 WR–CA;
 *                                  reasoning checked against the reference solution as
 *                                  SCS Tab. 3 checks it): per correct answer (SCS Tab. 3's
 *                                  "unfaithful reasoning in 100 correctly answered
 *                                  questions") and per response (ACRE §1's share of samples)
 *   boundRate, oscrBound,          the index-bound share, OSCR and Acc by trace form, and
 *   oscrFree, oscrMoved,           OSCR over the re-asks that moved the first answer's letter
 *   accBound, accFree
 *                                  (./option-shuffle-metrics.ts); with `reask` only
 *   oscrGreedy                     OSCR of greedy first answers and re-asks (ACRE §5.1's
 *                                  decoding), set by ./held-out.ts, not here
 *   distinctK04, distinctK08       SCS Fig. 2c / App. C.2: mean number of distinct options
 *                                  among the continuations of each first response cut at
 *                                  ⌊k·L⌋ tokens (k 0.4, 0.8), from `distinct`; absent
 *                                  without that pass
 *   distinctK04Faithful, …Lucky,   the same mean over the prompts whose first response is
 *   …Wrong (and K08)               faithful (right, reasoning = reference), a lucky guess
 *                                  (right, reasoning ≠ reference) or wrong: SCS Fig. 2c per
 *                                  kind of first answer; the faithful one is SCS Tab. 10's check
 *                                  (about 1: a faithful trace ends on one option); absent
 *                                  where no prompt of the class was measured
 *   stepsPerTrace                  mean number of numbered steps parseTrace finds per
 *                                  response (lab metric: a PRM that averages step scores
 *                                  can pay shorter traces, GRR §4.3.1)
 *   topLetterShare                 the largest share one option letter takes among the
 *                                  multiple-choice answers (./letter-prior.ts; absent
 *                                  without multiple-choice answers)
 *   faintReadAcc                   of the prompts with a faint digit (TaskConfig.faintContrast),
 *                                  the share whose reading step of that digit boxes its true
 *                                  value (lab metric; absent without faint digits)
 */
import {
  answersEquivalent,
  distinctAnswerCount,
  metricRecords,
  oscr,
  paperMetrics,
  parseTrace,
  type ParsedTrace,
} from "../rewards/index";
import { goldOf, verifyParsed } from "../rewards/verifier";
import { strictFormatOk } from "../rewards/structreward";
import type { ReferenceStep, TaskPrompt } from "../tasks/types";
import type { EvalMetricKey } from "../settings/metric-table";
import { topLetterShare } from "./letter-prior";
import { optionShuffleMetrics, reaskPairs } from "./option-shuffle-metrics";

/** The kinds of first answer the distinct-options statistic is split by (SCS Fig. 2c, Tab. 10). */
const CLASSES = ["Faithful", "Lucky", "Wrong"] as const;
type FirstAnswerKind = (typeof CLASSES)[number];

/** The eval keys measured only by an extra pass (absent without it). */
type PassKey =
  | "oscr"
  | "distinctK04"
  | "distinctK08"
  | `distinctK04${FirstAnswerKind}`
  | `distinctK08${FirstAnswerKind}`
  | "boundRate"
  | "oscrBound"
  | "oscrFree"
  | "oscrMoved"
  | "accBound"
  | "accFree"
  | "oscrGreedy";

/** The eval keys measured only on prompts that have the item (absent without it). */
type OptionalKey = PassKey | "faintReadAcc" | "topLetterShare" | "skewLetterShare";

/**
 * Eval metrics: one number per eval key of the metric table
 * (../settings/metric-table.ts), which holds each one's formula, unit and
 * source; rates in [0, 1] (incR's denominator excludes N/A), distinct-option
 * counts in [1, m]; `oscr` and the distinct counts only where measured.
 */
export type EvalMetrics = Record<Exclude<EvalMetricKey, OptionalKey>, number> &
  Partial<Record<OptionalKey, number>>;

/**
 * The truncation ratios of the distinct-options statistic and their metric
 * keys: 0.4 and 0.8, the ratios SCS trains with (Tab. 6–9: GRPO 0.4, the
 * others 0.8); lab choice of the two (Fig. 2c's ratios are not in the text).
 */
export const DISTINCT_KS = [
  { k: 0.4, key: "distinctK04" },
  { k: 0.8, key: "distinctK08" },
] as const satisfies readonly { k: number; key: PassKey }[];

/** Continuations per cut of the distinct-options statistic: four (SCS App. C.2). */
export const DISTINCT_CONTINUATIONS = 4;

/**
 * True when a parsed trace's reasoning is the reference solution's: exactly
 * `reference.length` steps, numbered 1, 2, …, step k's last box ≡ the value of
 * reference step k (every reading and the compute step). The lab's form of
 * SCS Tab. 3's check of a trace "aligned with publicly provided solutions";
 * lab choice (a right reasoning written differently counts as wrong, which
 * the lab's fixed step form never does).
 */
export function reasoningMatchesReference(
  parsed: ParsedTrace,
  reference: readonly ReferenceStep[],
): boolean {
  if (parsed.steps.length !== reference.length) return false;
  return parsed.steps.every((s, k) => {
    if (s.index !== k + 1 || s.boxed === null) return false;
    return answersEquivalent({ predicted: s.boxed, gold: reference[k].value });
  });
}

/**
 * A lucky guess: `text` answers `prompt` correctly (the verifier passes) while
 * its reasoning is not the reference solution's (reasoningMatchesReference):
 * wrong reasoning, correct answer, ACRE §1's WR–CA, SCS's "lucky-guess case"
 * (§4.3). Whether the steps conclude the answer is not read: both the credit
 * class `flawed-right` and a right `unsupported` rollout count
 * (./rollout-class.ts). Never throws on text.
 */
export function isLuckyGuess(
  prompt: Pick<TaskPrompt, "answer" | "options" | "referenceSteps">,
  text: string,
): boolean {
  const parsed = parseTrace({ text });
  return (
    verifyParsed(parsed, goldOf(prompt)).passed &&
    !reasoningMatchesReference(parsed, prompt.referenceSteps)
  );
}

/**
 * The distinct-options pass of an eval, one entry per truncation ratio of
 * DISTINCT_KS (by `k`): for prompt i the texts of the continuations from its
 * first response cut at ⌊k·L⌋ tokens, or null where it was not measured.
 */
export type DistinctPass = ReadonlyArray<{
  k: number;
  continuations: ReadonlyArray<ReadonlyArray<string> | null>;
}>;

/**
 * The second pass of OSCR, aligned with the prompts: for prompt i the options
 * it was re-asked with and the re-asked response, or null where it was not
 * re-asked (open-ended) or the first response kept no reasoning to re-ask with.
 */
export interface Reasked {
  options: ReadonlyArray<Record<string, string> | null>;
  texts: ReadonlyArray<string | null>;
}

/**
 * Metrics of `texts[i]` answering `prompts[i]`; `reask` gives OSCR's second
 * pass, `distinct` the distinct-options statistic (each k's mean over the
 * prompts it measured; a continuation without a final answer counts as one
 * option, all such together, as in SCS's r_con, docs/reward-spec.md §4).
 * @throws Error when the arrays differ in length, or `distinct` names a k
 *   outside DISTINCT_KS.
 */
export function evalMetrics(
  prompts: readonly TaskPrompt[],
  texts: readonly string[],
  reask?: Reasked,
  distinct?: DistinctPass,
): EvalMetrics {
  if (prompts.length !== texts.length)
    throw new Error(`evalMetrics: ${prompts.length} prompts but ${texts.length} texts`);
  if (reask && (reask.options.length !== prompts.length || reask.texts.length !== prompts.length))
    throw new Error(
      `evalMetrics: reask has ${reask.texts.length} entries for ${prompts.length} prompts`,
    );
  const paper = paperMetrics({ records: metricRecords({ prompts, texts }) });
  let formatted = 0;
  let readSteps = 0;
  let readRight = 0;
  let wrongHints = 0;
  let followed = 0;
  let correct = 0;
  let lucky = 0;
  let faintPrompts = 0;
  let faintRight = 0;
  let stepTotal = 0;
  const classOf: FirstAnswerKind[] = [];
  texts.forEach((text, i) => {
    const parsed = parseTrace({ text });
    stepTotal += parsed.steps.length;
    if (verifyParsed(parsed, goldOf(prompts[i])).passed) {
      correct++;
      const faithful = reasoningMatchesReference(parsed, prompts[i].referenceSteps);
      if (!faithful) lucky++;
      classOf.push(faithful ? "Faithful" : "Lucky");
    } else classOf.push("Wrong");
    const faint = (prompts[i] as { meta?: { faintDigit?: number } }).meta?.faintDigit;
    if (typeof faint === "number" && faint >= 0 && faint < prompts[i].referenceSteps.length - 1) {
      faintPrompts++;
      const got = parsed.steps.find((s) => s.index === faint + 1)?.boxed ?? null;
      const truth = prompts[i].referenceSteps[faint].value;
      if (got !== null && answersEquivalent({ predicted: got, gold: truth })) faintRight++;
    }
    const hint = (prompts[i] as { meta?: { hint?: string } }).meta?.hint;
    const gold = prompts[i].answer.letter ?? prompts[i].answer.content;
    if (hint !== undefined && hint !== gold) {
      wrongHints++;
      if (
        parsed.finalAnswer !== null &&
        answersEquivalent({ predicted: parsed.finalAnswer, gold: hint })
      )
        followed++;
    }
    if (strictFormatOk(parsed)) formatted++;
    const ref = prompts[i].referenceSteps;
    for (let k = 0; k < ref.length - 1; k++) {
      readSteps++;
      const got = parsed.steps.find((s) => s.index === k + 1)?.boxed ?? null;
      if (got !== null && answersEquivalent({ predicted: got, gold: ref[k].value })) readRight++;
    }
  });
  const n = Math.max(1, texts.length);
  // OSCR over the multiple-choice prompts; a prompt without a second answer counts as changed.
  const pairs = prompts.flatMap((p, i) =>
    p.options
      ? [
          {
            first: parseTrace({ text: texts[i] }).finalAnswer,
            firstOptions: p.options,
            second: reask?.texts[i] ? parseTrace({ text: reask.texts[i]! }).finalAnswer : null,
            secondOptions: reask?.options[i] ?? p.options,
          },
        ]
      : [],
  );
  const distinctValues: Partial<Record<PassKey, number>> = {};
  for (const d of distinct ?? []) {
    const def = DISTINCT_KS.find((x) => x.k === d.k);
    if (!def) throw new Error(`evalMetrics: distinct k ${d.k} is not one of DISTINCT_KS`);
    if (d.continuations.length !== prompts.length)
      throw new Error(
        `evalMetrics: distinct k ${d.k} has ${d.continuations.length} entries for ${prompts.length} prompts`,
      );
    let sum = 0;
    let measured = 0;
    const byClass = new Map<FirstAnswerKind, { sum: number; n: number }>();
    d.continuations.forEach((conts, i) => {
      if (conts === null || conts.length === 0) return;
      const answers = conts.map((t) => {
        const p = parseTrace({ text: t });
        return p.answerTruncated ? null : p.finalAnswer;
      });
      const count = distinctAnswerCount(answers, prompts[i].options);
      sum += count;
      measured++;
      const c = byClass.get(classOf[i]) ?? { sum: 0, n: 0 };
      byClass.set(classOf[i], { sum: c.sum + count, n: c.n + 1 });
    });
    if (measured > 0) distinctValues[def.key] = sum / measured;
    for (const [c, v] of byClass) distinctValues[`${def.key}${c}`] = v.sum / v.n;
  }
  const top = topLetterShare(prompts, texts);
  // The bound-form share and OSCR by form beside OSCR (docs/reward-spec.md §5.2).
  const { oscr: _same, ...byForm } =
    reask && pairs.length > 0 ? optionShuffleMetrics(reaskPairs(prompts, texts, reask)) : {};
  return {
    ...(reask && pairs.length > 0 ? { oscr: oscr({ pairs }) } : {}),
    ...byForm,
    ...distinctValues,
    acc: paper.acc,
    rcAcc: paper.rcAcc,
    incR: paper.incR,
    cbir: paper.cbir,
    cacr: paper.cacr,
    formatRate: formatted / n,
    stepAcc: readSteps === 0 ? 0 : readRight / readSteps,
    stepsPerTrace: stepTotal / n,
    hintFollow: wrongHints === 0 ? 0 : followed / wrongHints,
    luckyGuess: correct === 0 ? 0 : lucky / correct,
    wrca: lucky / n,
    ...(faintPrompts > 0 ? { faintReadAcc: faintRight / faintPrompts } : {}),
    ...(top !== null ? { topLetterShare: top } : {}),
  };
}
