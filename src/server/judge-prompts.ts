/**
 * What the LLM judge is told, for pointwise GR and GRR (docs/reward-spec.md
 * §2). Adapted from the judge instructions of the GRR paper (App. B.1 for the
 * pointwise judge, App. C for the groupwise one) as the reward spec states
 * them, with these changes (lab choices, listed in docs/reward-server.md):
 * - text only: "the given/visual facts" become the facts given in the
 *   question, since the server sees no image;
 * - the reference answer, and the reference steps when the label gives
 *   them, are shown to both judges (the paper's groupwise judge sees the
 *   reference answer);
 * - the groupwise judge is told that every candidate reached the reference
 *   answer (GRR ranks only verifier-passed rollouts) and to ignore length and
 *   position;
 * - each candidate is cut at `maxCandidateChars` characters and wrapped in
 *   `<candidate index="k">` tags, so that a candidate cannot pose as another.
 * The replies are read by the lab's robust parsers (src/rewards/judge-json.ts).
 */
import type { TaskPrompt } from "../tasks/types";

/** One chat message of an OpenAI-compatible chat completion request. */
export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

/** Pointwise judge instructions (GRR App. B.1, adapted; anchored levels of docs/reward-spec.md §2). */
export const POINTWISE_INSTRUCTIONS = `You grade the reasoning of one response to a question. Whether its final answer is correct has been checked separately; judge how well the reasoning supports it.

Judge:
- coherence: each step follows from the ones before it;
- use of the facts given in the question (and of the reference steps, when given);
- calculation quality: every computation is right;
- completeness: no step that the answer depends on is skipped;
- honesty: uncertainty is stated, not covered with invented facts.

Use one of these anchored scores:
1.0 = clear, coherent and sound throughout;
0.8 = sound, with minor slips that do not change the result;
0.5 = partially valid, with visible gaps;
0.2 = largely flawed: the answer does not follow from the steps;
0.0 = reasoning missing or nonsense.

Reply with one JSON object and nothing else:
{"reasoning_feedback": "<one or two sentences>", "judge_score": <1.0, 0.8, 0.5, 0.2 or 0.0>}`;

/** Groupwise judge instructions (GRR App. C, adapted: tie-aware tiers, lower rank = better). */
export const GROUPWISE_INSTRUCTIONS = `You compare several candidate solutions to the same question. Every candidate reached the reference answer, so rank them by the quality of their reasoning, not by their answer.

For each candidate, judge:
- agreement with the reference: its steps lead to the reference answer (and match the reference steps, when given);
- errors: wrong calculations, misread or invented facts;
- gaps: skipped or unjustified steps;
- consistency: the final answer follows from the candidate's own last step.

Rank with ties: rank 1 is the best; candidates of the same quality share a rank; a worse candidate gets a larger rank. Do not prefer a candidate for its length or its position. Rank every candidate exactly once, by its index.

Reply with one JSON object and nothing else:
{"solutions": [{"index": 1, "rank": 1, "justification": "<one sentence>", "agreement_with_reference": "agrees" | "partly" | "disagrees", "errors": ["<error>", ...]}, ...]}`;

/** Characters of one response shown to the judge (lab choice: about 3,000 tokens). */
export const DEFAULT_MAX_CANDIDATE_CHARS = 12_000;

function referenceBlock(prompt: TaskPrompt): string {
  const content = prompt.answer.content;
  const letter = prompt.answer.letter;
  const lines = [`Reference answer: ${letter ? `(${letter}) ` : ""}${content}`];
  if (prompt.options) {
    const opts = Object.entries(prompt.options).map(([k, v]) => `(${k}) ${v}`);
    lines.push(`Options: ${opts.join("  ")}`);
  }
  if (prompt.referenceSteps.length > 0) {
    const steps = prompt.referenceSteps.map((s, i) => `${i + 1}. ${s.value}`);
    lines.push(`Reference steps (true intermediate results, in order): ${steps.join("; ")}`);
  }
  return lines.join("\n");
}

function shown(text: string, maxChars: number): string {
  // A candidate cannot close its own tag early.
  const safe = text
    .replaceAll("</candidate", "<\\/candidate")
    .replaceAll("</response", "<\\/response");
  return safe.length > maxChars
    ? `${safe.slice(0, maxChars)}\n[... cut at ${maxChars} characters]`
    : safe;
}

/**
 * Messages of one pointwise judge call: the instructions, then the question,
 * the reference and the response (cut at `maxChars` characters).
 */
export function pointwiseMessages(
  prompt: TaskPrompt,
  response: string,
  maxChars = DEFAULT_MAX_CANDIDATE_CHARS,
): ChatMessage[] {
  const user = [
    `Question:\n${prompt.question || "(not given)"}`,
    referenceBlock(prompt),
    `Response:\n<response>\n${shown(response, maxChars)}\n</response>`,
  ].join("\n\n");
  return [
    { role: "system", content: POINTWISE_INSTRUCTIONS },
    { role: "user", content: user },
  ];
}

/**
 * Messages of one groupwise judge call over `candidates` (1-based indices in
 * the order given), each cut at `maxChars` characters.
 */
export function groupwiseMessages(
  prompt: TaskPrompt,
  candidates: readonly string[],
  maxChars = DEFAULT_MAX_CANDIDATE_CHARS,
): ChatMessage[] {
  const blocks = candidates.map(
    (c, k) => `<candidate index="${k + 1}">\n${shown(c, maxChars)}\n</candidate>`,
  );
  const user = [
    `Question:\n${prompt.question || "(not given)"}`,
    referenceBlock(prompt),
    `${candidates.length} candidates:`,
    blocks.join("\n\n"),
  ].join("\n\n");
  return [
    { role: "system", content: GROUPWISE_INSTRUCTIONS },
    { role: "user", content: user },
  ];
}
