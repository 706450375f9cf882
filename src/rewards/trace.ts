/**
 * Parsing a rollout in the lab's response format (docs/reward-spec.md §0; cases
 * README, contract `parseTrace`). Linear time: tags and step markers are
 * found with simple global regex scans, never with backtracking patterns.
 */
import { readLastBox } from "./boxed";

export interface TraceStep {
  /** N as written in `Step N:` (not renumbered). */
  index: number;
  /** Last box in the step, or null. */
  boxed: string | null;
  /** The step's text (after the marker, trimmed). */
  text: string;
}

/** Where `finalAnswer` was read from. */
export type AnswerSource = "answer-tag" | "boxed" | "answer-line" | "last-number" | "none";

export interface ParsedTrace {
  thinkBlocks: string[];
  thinkClosed: boolean;
  steps: TraceStep[];
  stepCount: number;
  finalAnswer: string | null;
  formatOk: boolean;
  /** Lab extension: how the answer was found. */
  answerSource: AnswerSource;
  /**
   * Lab extension: the answer was cut off (open think block, unclosed
   * `<answer>`, or the last box of the answer region unclosed). Such an
   * answer is N/A for the verifier and the metrics (docs/reward-spec.md §0).
   */
  answerTruncated: boolean;
  /**
   * Lab extension: MAX_TRACE_CHARS when the text was longer and only that
   * many characters were read (the answer then counts as cut off); else null.
   */
  cappedAt: number | null;
}

/**
 * Characters of a rollout that parseTrace reads (lab choice: the lab's
 * responses are at most 64 tokens; the contract's pathological inputs of
 * 100,000 tags or 20,000 steps are under 1,000,000). A longer text is read up
 * to the cap as if it had been cut off there: no final answer, format not ok.
 */
export const MAX_TRACE_CHARS = 1_000_000;

const THINK_TAG = /<\/?think>/g;
const STEP_MARKER = /(?<![A-Za-z])Step\s*(\d{1,9})\s*:/g;
const ANSWER_OPEN = "<answer>";
const ANSWER_CLOSE = "</answer>";
const ANSWER_LINE = /(?:final\s+answer|answer)\s*[:：]/gi;
const LAST_NUMBER = /-?\d(?:[\d,.]*\d)?/g;

/**
 * `parseTrace({text, fallbackLastNumber = false})`: think blocks, steps, final
 * answer and basic format validity of a rollout. Source: test/fixtures/README.md,
 * contract parseTrace 1–10. Never throws (non-string text reads as "").
 * Reads at most MAX_TRACE_CHARS characters (`cappedAt` says when).
 */
export function parseTrace({
  text,
  fallbackLastNumber = false,
}: {
  text: string;
  fallbackLastNumber?: boolean;
}): ParsedTrace {
  const whole = typeof text === "string" ? text : "";
  const capped = whole.length > MAX_TRACE_CHARS;
  const src = capped ? whole.slice(0, MAX_TRACE_CHARS) : whole;
  const blocks: string[] = [];
  let open = false;
  let blockStart = 0;
  let lastCloseEnd = -1; // end of the previous `</think>`, -1 when none yet
  let tagError = false;
  THINK_TAG.lastIndex = 0;
  for (let m = THINK_TAG.exec(src); m !== null; m = THINK_TAG.exec(src)) {
    if (m[0] === "<think>") {
      if (open)
        tagError = true; // nested opener inside an open block
      else {
        open = true;
        blockStart = m.index + m[0].length;
      }
    } else {
      if (open) {
        blocks.push(src.slice(blockStart, m.index));
        open = false;
      } else if (lastCloseEnd < 0) {
        blocks.push(src.slice(0, m.index)); // prefilled `<think>` in the prompt
      } else {
        blocks.push(src.slice(lastCloseEnd, m.index)); // stray closer
        tagError = true;
      }
      lastCloseEnd = m.index + m[0].length;
    }
  }
  if (open) blocks.push(src.slice(blockStart));

  const steps: TraceStep[] = [];
  for (const block of blocks) collectSteps(block, steps);

  let finalAnswer: string | null = null;
  let answerSource: AnswerSource = "none";
  let answerClosed = true;
  let answerTruncated = open || capped;
  if (!open && !capped) {
    const region = lastCloseEnd < 0 ? src : src.slice(lastCloseEnd);
    const read = readAnswer(region, fallbackLastNumber);
    finalAnswer = read.answer;
    answerSource = read.source;
    answerClosed = read.answerClosed;
    answerTruncated = read.truncated;
  }
  const trimmedBlocks = blocks.map((b) => b.trim());
  const thinkClosed = blocks.length > 0 && !open;
  const formatOk =
    blocks.length === 1 && thinkClosed && !tagError && finalAnswer !== null && answerClosed;
  return {
    thinkBlocks: trimmedBlocks,
    thinkClosed,
    steps,
    stepCount: steps.length,
    finalAnswer,
    formatOk,
    answerSource,
    answerTruncated,
    cappedAt: capped ? MAX_TRACE_CHARS : null,
  };
}

function collectSteps(block: string, out: TraceStep[]): void {
  const marks: { index: number; start: number; bodyStart: number }[] = [];
  STEP_MARKER.lastIndex = 0;
  for (let m = STEP_MARKER.exec(block); m !== null; m = STEP_MARKER.exec(block)) {
    marks.push({ index: Number(m[1]), start: m.index, bodyStart: m.index + m[0].length });
  }
  for (let k = 0; k < marks.length; k++) {
    const end = k + 1 < marks.length ? marks[k + 1].start : block.length;
    const body = block.slice(marks[k].bodyStart, end);
    out.push({ index: marks[k].index, boxed: readLastBox(body).content, text: body.trim() });
  }
}

interface AnswerRead {
  answer: string | null;
  source: AnswerSource;
  answerClosed: boolean;
  truncated: boolean;
}

function readAnswer(region: string, fallbackLastNumber: boolean): AnswerRead {
  const tagAt = region.lastIndexOf(ANSWER_OPEN);
  if (tagAt >= 0) {
    const contentStart = tagAt + ANSWER_OPEN.length;
    const closeAt = region.indexOf(ANSWER_CLOSE, contentStart);
    const closed = closeAt >= 0;
    const content = region.slice(contentStart, closed ? closeAt : region.length);
    const box = readLastBox(content);
    if (box.content !== null) {
      return {
        answer: box.content,
        source: "answer-tag",
        answerClosed: closed,
        truncated: !closed,
      };
    }
    const trimmed = content.trim();
    return {
      answer: trimmed.length > 0 ? trimmed : null,
      source: trimmed.length > 0 ? "answer-tag" : "none",
      answerClosed: closed,
      truncated: !closed || box.status === "unclosed",
    };
  }
  const box = readLastBox(region);
  if (box.content !== null)
    return { answer: box.content, source: "boxed", answerClosed: true, truncated: false };
  const truncated = box.status === "unclosed";
  const line = readAnswerLine(region);
  if (line !== null) return { answer: line, source: "answer-line", answerClosed: true, truncated };
  if (fallbackLastNumber) {
    let last: string | null = null;
    LAST_NUMBER.lastIndex = 0;
    for (let m = LAST_NUMBER.exec(region); m !== null; m = LAST_NUMBER.exec(region)) last = m[0];
    if (last !== null)
      return { answer: last, source: "last-number", answerClosed: true, truncated };
  }
  return { answer: null, source: "none", answerClosed: true, truncated };
}

function readAnswerLine(region: string): string | null {
  let lastEnd = -1;
  ANSWER_LINE.lastIndex = 0;
  for (let m = ANSWER_LINE.exec(region); m !== null; m = ANSWER_LINE.exec(region)) {
    lastEnd = m.index + m[0].length;
  }
  if (lastEnd < 0) return null;
  let end = region.indexOf("\n", lastEnd);
  if (end < 0) end = region.length;
  const cleaned = region
    .slice(lastEnd, end)
    .replace(/\*\*|__/g, "")
    .replace(/\$([^$]*)\$/g, "$1")
    .trim();
  return cleaned.length > 0 ? cleaned : null;
}
