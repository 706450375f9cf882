/**
 * Self-Consistency Sampling (docs/reward-spec.md §4): the consistency reward over m
 * continuations of a truncated, image-perturbed rollout, and the expected
 * number of distinct answers of an unreliable trace (SCS App. B.2).
 */
import type { TaskPrompt } from "../tasks/types";
import { answersEquivalent } from "./equivalence";
import { requireNonNegative, type GroupScore, type RolloutScore } from "./rollout";
import { parseTrace } from "./trace";
import { goldOf, verifyParsed } from "./verifier";

export type ScsForm = "paper" | "released";

/** Released code's constants: r_con = 0.3·(5 − |𝒜|) (docs/reward-spec.md §4). */
export const SCS_RELEASED = { scale: 0.3, base: 5, formatWeight: 0.5 } as const;

/** Noise σ range of the released code, on pixels in [0, 1] (docs/reward-spec.md §4). */
export const SCS_NOISE_RANGE = { min: 0.01, max: 0.4 } as const;

/** Distinct elements of `answers` by `≡`; every unparseable answer together counts as one (lab choice, docs/reward-spec.md §4). */
export function distinctAnswerCount(
  answers: ReadonlyArray<string | null | undefined>,
  options?: Record<string, string> | null,
): number {
  const reps: string[] = [];
  let sawNone = false;
  for (const a of answers) {
    if (typeof a !== "string" || a.trim() === "") {
      sawNone = true;
      continue;
    }
    if (
      !reps.some((r) => answersEquivalent({ predicted: a, gold: r, options: options ?? undefined }))
    )
      reps.push(a);
  }
  return reps.length + (sawNone ? 1 : 0);
}

/**
 * Released code's answer: the first capital letter of the answer region, else
 * null. The released code reads the region inside `<answer>…</answer>` and
 * falls back to the whole text; the lab's responses put their answer in the
 * final `\boxed{…}` after `</think>`, so the region here is the answer
 * parseTrace finds (an `<answer>` tag, else the final box; docs/reward-spec.md
 * §4). A whole-text fallback would read the `S` of `<think> Step 1: …` in every
 * lab trace. A cut-off or missing answer → null.
 */
export function releasedAnswer(text: string | null | undefined): string | null {
  if (typeof text !== "string") return null;
  const parsed = parseTrace({ text });
  if (parsed.answerTruncated || parsed.finalAnswer === null) return null;
  const m = /[A-Z]/.exec(parsed.finalAnswer);
  return m ? m[0] : null;
}

/**
 * `scsConsistency({answers, c = 1, form = "paper", options?})`.
 * - paper: r_con = c·(N − |𝒜|)/N with N = m = answers.length (lab choice:
 *   the paper's N and m both name the resample count), ∈ [0, c(m−1)/m];
 *   `answers` are extracted answers (null = unparseable), distinct by `≡`.
 * - released: 0.3·(5 − |𝒜|), answers = releasedAnswer of each continuation
 *   text (authors' released code; 4 continuations).
 * Empty answers → 0. Throws an Error naming `c` or `form` when invalid.
 */
export function scsConsistency({
  answers,
  c = 1,
  form = "paper",
  options,
}: {
  answers: ReadonlyArray<string | null | undefined>;
  c?: number;
  form?: ScsForm;
  options?: Record<string, string> | null;
}): number {
  requireNonNegative(c, "c");
  if (form !== "paper" && form !== "released")
    throw new Error(`scsConsistency: unknown form ${JSON.stringify(form)}`);
  if (!Array.isArray(answers)) throw new Error("scsConsistency: answers must be an array");
  if (answers.length === 0) return 0;
  if (form === "released") {
    const letters = answers.map((a) => releasedAnswer(a ?? null));
    const distinct = new Set(letters.map((l) => l ?? "\u0000none")).size;
    return SCS_RELEASED.scale * (SCS_RELEASED.base - distinct);
  }
  const m = answers.length;
  return (c * (m - distinctAnswerCount(answers, options))) / m;
}

/**
 * `expectedDistinctAnswers({numOptions, p, trials})`: E[S] = 1 − (1−p)^M +
 * (N−1)[1 − (1 − (1−p)/(N−1))^M] (SCS App. B.2), N options, correct with
 * probability p, M trials. N = 1 reduces to 1 − (1−p)^M. Throws an Error
 * naming the field for N not an integer ≥ 1, p outside [0, 1], M not an
 * integer ≥ 0.
 */
export function expectedDistinctAnswers({
  numOptions,
  p,
  trials,
}: {
  numOptions: number;
  p: number;
  trials: number;
}): number {
  if (!Number.isInteger(numOptions) || numOptions < 1)
    throw new Error("expectedDistinctAnswers: numOptions must be an integer >= 1");
  if (typeof p !== "number" || !(p >= 0 && p <= 1))
    throw new Error("expectedDistinctAnswers: p must be in [0, 1]");
  if (!Number.isInteger(trials) || trials < 0)
    throw new Error("expectedDistinctAnswers: trials must be an integer >= 0");
  const correct = 1 - (1 - p) ** trials;
  if (numOptions === 1) return correct;
  const q = (1 - p) / (numOptions - 1);
  return correct + (numOptions - 1) * (1 - (1 - q) ** trials);
}

/**
 * Variant scorer: r = r_fmt + r_acc + r_con (paper) or 0.5·r_fmt + r_acc +
 * r_con (released), docs/reward-spec.md §4. `continuations[i]` are the m texts
 * continued from rollout i's truncated prefix under perturbed images.
 */
export function scoreSCS(
  prompt: TaskPrompt,
  texts: readonly string[],
  continuations: ReadonlyArray<readonly string[]>,
  options: { c?: number; form?: ScsForm } = {},
): GroupScore {
  const form = options.form ?? "paper";
  if (continuations.length !== texts.length)
    throw new Error("scoreSCS: continuations must have one list per rollout");
  const gold = goldOf(prompt);
  const rollouts = texts.map((text, i): RolloutScore => {
    const parsed = parseTrace({ text });
    const ver = verifyParsed(parsed, gold);
    const rFmt = parsed.formatOk && !parsed.answerTruncated ? 1 : 0;
    const answers =
      form === "released"
        ? continuations[i].slice()
        : continuations[i].map((t) => {
            const p = parseTrace({ text: t });
            return p.answerTruncated ? null : p.finalAnswer;
          });
    const rCon = scsConsistency({ answers, c: options.c ?? 1, form, options: gold.options });
    const fmtWeight = form === "released" ? SCS_RELEASED.formatWeight : 1;
    return {
      total: fmtWeight * rFmt + ver.rVer + rCon,
      components: { rFmt, rAcc: ver.rVer, rCon },
      verifierPassed: ver.passed,
      answer: ver.answer,
    };
  });
  return { rollouts, judgeCalls: 0, judgeFailures: 0 };
}

/**
 * SCS's outcome-only baseline: r = r_fmt + r_acc (SCS §4.1: "the traditional
 * outcome reward-based protocol (applying accuracy reward and format
 * reward)"), the paper form's total without r_con, so that the comparison
 * with scoreSCS isolates r_con. r_fmt as in scoreSCS: 1 for a well-formed
 * trace whose answer is not cut off.
 */
export function scoreSCSBaseline(prompt: TaskPrompt, texts: readonly string[]): GroupScore {
  const gold = goldOf(prompt);
  const rollouts = texts.map((text): RolloutScore => {
    const parsed = parseTrace({ text });
    const ver = verifyParsed(parsed, gold);
    const rFmt = parsed.formatOk && !parsed.answerTruncated ? 1 : 0;
    return {
      total: rFmt + ver.rVer,
      components: { rFmt, rAcc: ver.rVer },
      verifierPassed: ver.passed,
      answer: ver.answer,
    };
  });
  return { rollouts, judgeCalls: 0, judgeFailures: 0 };
}

/** Keeps the first floor(k·|τ|) space-separated tokens of a response (SCS truncation, k fixed). */
export function truncateResponse({ text, k }: { text: string; k: number }): string {
  if (!(k >= 0 && k <= 1)) throw new Error("truncateResponse: k must be in [0, 1]");
  const tokens = text.split(/\s+/).filter((t) => t.length > 0);
  return tokens.slice(0, Math.floor(k * tokens.length)).join(" ");
}
