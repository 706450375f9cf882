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
 */
import { answersEquivalent, metricRecords, oscr, paperMetrics, parseTrace } from "../rewards/index";
import { strictFormatOk } from "../rewards/structreward";
import type { TaskPrompt } from "../tasks/types";
import type { EvalMetricKey } from "../settings/metric-table";

/**
 * Eval metrics, all in [0, 1] (incR's denominator excludes N/A): one number
 * per eval key of the metric table (../settings/metric-table.ts), which holds each
 * one's formula and source; `oscr` only where it was measured.
 */
export type EvalMetrics = Record<Exclude<EvalMetricKey, "oscr">, number> & { oscr?: number };

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
 * Metrics of `texts[i]` answering `prompts[i]`; `reask` gives OSCR's second pass.
 * @throws Error when the arrays differ in length.
 */
export function evalMetrics(
  prompts: readonly TaskPrompt[],
  texts: readonly string[],
  reask?: Reasked,
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
  texts.forEach((text, i) => {
    const parsed = parseTrace({ text });
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
  return {
    ...(reask && pairs.length > 0 ? { oscr: oscr({ pairs }) } : {}),
    acc: paper.acc,
    rcAcc: paper.rcAcc,
    incR: paper.incR,
    cbir: paper.cbir,
    cacr: paper.cacr,
    formatRate: formatted / n,
    stepAcc: readSteps === 0 ? 0 : readRight / readSteps,
    hintFollow: wrongHints === 0 ? 0 : followed / wrongHints,
  };
}
