/**
 * A written reward ("Your reward"): the inputs the lab hands the code for one
 * group, and how its result becomes the group's rewards (docs/reward-spec.md
 * §8). The code runs in the sandbox of ./sandbox.ts.
 *
 * The code defines `function reward(group)`; `group` is
 *   { prompt: { question, options, answer: { letter, content }, referenceSteps: [{ text, value }] },
 *     rollouts: [{ text, steps: [{ index, boxed, text }], stepCount, finalAnswer, letter,
 *                  answerTruncated, formatOk, strictFormat, correct, matchedSteps, reasoned,
 *                  consistent }] }
 * where `correct` is the lab's verifier (1 when the final answer is the
 * ground truth, GRR eq. 1), `strictFormat` StructReward's format check,
 * `matchedSteps` the generated steps matched to reference steps and
 * `consistent` whether the final answer is the trace's last local result
 * (docs/reward-spec.md §0, §3). It returns either an array of G numbers (the
 * rewards) or an object of named arrays of G numbers (components), which the
 * lab sums with the weights of a top-level `weights` object the code may
 * define (a component without a weight counts once) and logs one by one.
 */
import type { TaskPrompt } from "../tasks/types";
import { lastLocalResult } from "./consistency";
import { answersEquivalent } from "./equivalence";
import type { GroupScore } from "./rollout";
import { runSandboxed, SANDBOX_LIMITS, type SandboxEngine, type SandboxLimits } from "./sandbox";
import { matchSteps, referenceValues } from "./step-matching";
import { strictFormatOk } from "./structreward";
import { parseTrace } from "./trace";
import { goldOf, verifyParsed } from "./verifier";

/** A written reward's code before the user writes one: RLVR in the editor's terms (examples/rewards/rlvr.js). */
export const USER_REWARD_DEFAULT_CODE = `// R = r_ver: 1 when the final answer passes the lab's verifier.
function reward(group) {
  return group.rollouts.map((r) => r.correct);
}
`;
/** Longest code a written reward may have, characters (lab choice: 64 kB fits any reward here and a URL). */
export const USER_REWARD_MAX_CHARS = 64_000;

/** A written reward's failure on one group: the step is not applied, nothing else is lost. */
class UserRewardError extends Error {}

/** The option letter a final answer names: itself when it is a letter of the options, else the letter whose content it is; null otherwise. */
function letterOf(
  answer: string | null,
  options: Record<string, string> | undefined,
): string | null {
  if (answer === null || !options) return null;
  const a = answer.trim();
  if (Object.hasOwn(options, a)) return a;
  for (const [letter, content] of Object.entries(options))
    if (answersEquivalent({ predicted: a, gold: content })) return letter;
  return null;
}

/** What the code gets for one group (see the file comment). Linear in the texts' length. */
export function userRewardInput(prompt: TaskPrompt, texts: readonly string[]) {
  const gold = goldOf(prompt);
  const reference = referenceValues(prompt.referenceSteps);
  return {
    prompt: {
      question: prompt.question,
      options: prompt.options,
      answer: { letter: prompt.answer.letter, content: prompt.answer.content },
      referenceSteps: prompt.referenceSteps.map((s) => ({ text: s.text, value: s.value })),
    },
    rollouts: texts.map((text) => {
      const parsed = parseTrace({ text });
      const answer = parsed.answerTruncated ? null : parsed.finalAnswer;
      const reasoned = lastLocalResult(parsed);
      return {
        text,
        steps: parsed.steps.map((s) => ({ index: s.index, boxed: s.boxed, text: s.text })),
        stepCount: parsed.stepCount,
        finalAnswer: parsed.finalAnswer,
        letter: letterOf(answer, gold.options),
        answerTruncated: parsed.answerTruncated,
        formatOk: parsed.formatOk,
        strictFormat: strictFormatOk(parsed) ? 1 : 0,
        correct: verifyParsed(parsed, gold).rVer,
        matchedSteps: matchSteps(
          parsed.steps.map((s) => s.boxed),
          reference,
        ).count,
        reasoned,
        consistent:
          answer !== null &&
          reasoned !== null &&
          answersEquivalent({ predicted: answer, gold: reasoned, options: gold.options })
            ? 1
            : 0,
      };
    }),
  };
}

/** A number of the result, or an error naming where it sits and what it is. */
function finite(v: unknown, where: string): number {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  const what =
    v === "NaN" || v === "Infinity" || v === "-Infinity"
      ? v
      : v === null
        ? "null"
        : typeof v === "string"
          ? `the string ${JSON.stringify(v.slice(0, 40))}`
          : typeof v;
  throw new UserRewardError(`${where} is ${what}, not a finite number`);
}

/** The code's top-level `weights` (read with the result), checked. */
function weightOf(weights: unknown, name: string): number {
  if (weights === null || weights === undefined) return 1;
  if (typeof weights !== "object" || Array.isArray(weights))
    throw new UserRewardError("`weights` must be an object of numbers, one per component");
  const w = (weights as Record<string, unknown>)[name];
  return w === undefined ? 1 : finite(w, `weights.${name}`);
}

/**
 * Turns the code's result into the group's scores. `correct` of each rollout
 * gives `verifierPassed` and its final answer `answer` (the inspector's),
 * whatever the code rewards.
 * @throws UserRewardError naming the problem: not an array or object of
 *   arrays, a wrong length (it names both lengths), a value that is not a
 *   finite number (it names the rollout and the value, e.g. NaN), more than
 *   16 components.
 */
function userGroupScore(
  result: unknown,
  weights: unknown,
  input: ReturnType<typeof userRewardInput>,
): GroupScore {
  const G = input.rollouts.length;
  const column = (v: unknown, what: string): number[] => {
    if (!Array.isArray(v))
      throw new UserRewardError(
        `${what} must be an array of ${G} numbers (one per rollout), got ${v === null ? "null" : typeof v}`,
      );
    if (v.length !== G)
      throw new UserRewardError(`${what} has ${v.length} values for the group's ${G} rollouts`);
    return v.map((x, i) => finite(x, `${what}[${i}] (rollout ${i})`));
  };
  let totals: number[];
  let components: Record<string, number>[];
  if (Array.isArray(result)) {
    totals = column(result, "the reward");
    components = totals.map((t) => ({ reward: t }));
  } else if (result !== null && typeof result === "object") {
    const names = Object.keys(result);
    if (names.length === 0)
      throw new UserRewardError("the reward returned an object with no components");
    if (names.length > 16)
      throw new UserRewardError(
        `the reward returned ${names.length} components; at most 16 are logged`,
      );
    const cols = names.map((n) => column((result as Record<string, unknown>)[n], `component ${n}`));
    const ws = names.map((n) => weightOf(weights, n));
    totals = Array.from({ length: G }, (_, i) => {
      let t = ws[0] * cols[0][i];
      for (let k = 1; k < names.length; k++) t += ws[k] * cols[k][i];
      return t;
    });
    components = totals.map((_, i) => Object.fromEntries(names.map((n, k) => [n, cols[k][i]])));
  } else {
    throw new UserRewardError(
      `the reward must return an array of ${G} numbers or an object of named arrays, got ${result === null ? "null" : typeof result}`,
    );
  }
  return {
    rollouts: input.rollouts.map((r, i) => ({
      total: totals[i],
      components: components[i],
      verifierPassed: r.correct === 1,
      answer: r.finalAnswer,
    })),
    judgeCalls: 0,
    judgeFailures: 0,
  };
}

/**
 * Scores one group with a written reward in the sandbox.
 * @throws UserRewardError with the sandbox's message (naming the line where
 *   it can) or the result's problem (userGroupScore).
 */
export function scoreUserReward(
  engine: SandboxEngine,
  code: string,
  prompt: TaskPrompt,
  texts: readonly string[],
  limits: SandboxLimits = SANDBOX_LIMITS,
): GroupScore {
  const input = userRewardInput(prompt, texts);
  const run = runSandboxed(engine, code, input, limits, "weights");
  if (!run.ok) throw new UserRewardError(`your reward: ${run.message}`);
  const { result, also } = run.value as { result: unknown; also: unknown };
  try {
    return userGroupScore(result, also, input);
  } catch (e) {
    throw new UserRewardError(`your reward: ${(e as Error).message}`);
  }
}
