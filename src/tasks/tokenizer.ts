/**
 * Word-level tokenizer with a fixed vocabulary (docs/design.md "The tiny VLM").
 *
 * Text form. Tokens are separated by single spaces, except that nothing
 * separates `\boxed{` from the token after it, and nothing separates `}`, `:`
 * or `?` from the token before it. So `Step 1: 3 + 4 = \boxed{7}` is
 * `Step` `1` `:` `3` `+` `4` `=` `\boxed{` `7` `}`.
 *
 * Numbers: every integer NUMBER_MIN..NUMBER_MAX (−40..99) is one token;
 * negative numbers are their own words (`-3` is one token), distinct from the
 * minus operator `-`, which always stands between spaces (`3 - 4 = \boxed{-1}`).
 * A `-` directly followed by digits is read as a negative number.
 *
 * `encode` accepts any whitespace between tokens (it splits on whitespace and
 * at the glue points); `decode` writes the canonical spacing, so
 * `decode(encode(t)) === t` for every canonical text (all task texts are),
 * and `encode(decode(ids))` equals `ids` for every id sequence.
 */
import { NUMBER_MAX, NUMBER_MIN, promptText } from "./format";
import type { TaskPrompt } from "./types";

/** Special tokens. PAD is id 0 (lab choice). */
const PAD = "<pad>";
const BOS = "<bos>";
const EOS = "<eos>";
/** Separates the prompt from the response in the model's input. */
const SEP = "<sep>";

const SPECIALS = [PAD, BOS, EOS, SEP];
const STRUCTURE = [
  "<think>",
  "</think>",
  "<answer>",
  "</answer>",
  "\\boxed{",
  "}",
  "Step",
  ":",
  "=",
  "+",
  "-",
  "*",
  "?",
];
const LETTERS = ["A", "B", "C", "D", "E"];
/** Task words (lab choice: every word a task text can contain). */
const WORDS = [
  // questions
  "What",
  "How",
  "is",
  "the",
  "of",
  "sum",
  "product",
  "largest",
  "two",
  "three",
  "many",
  "tall",
  "plus",
  "minus",
  "times",
  // digits
  "first",
  "second",
  "third",
  "digit",
  "digits",
  "max",
  // shapes
  "shapes",
  "squares",
  "circles",
  "triangles",
  "red",
  "green",
  "blue",
  "yellow",
  // bars
  "bar",
  "tallest",
  "shortest",
  // judgments (StructReward recycling, docs/reward-spec.md §3)
  "Correct",
  "Incorrect",
];
const NUMBERS = Array.from({ length: NUMBER_MAX - NUMBER_MIN + 1 }, (_, i) =>
  String(NUMBER_MIN + i),
);

/** The vocabulary, id = index. */
export const VOCAB: readonly string[] = Object.freeze([
  ...SPECIALS,
  ...STRUCTURE,
  ...LETTERS,
  ...WORDS,
  ...NUMBERS,
]);
/** Number of tokens. */
export const vocabSize = VOCAB.length;

const ID = new Map<string, number>(VOCAB.map((w, i) => [w, i]));
if (ID.size !== VOCAB.length) throw new Error("tokenizer: duplicate vocabulary entry");

/** Token id of a vocabulary word; throws naming the word if it is not in the vocabulary. */
function tokenId(word: string): number {
  const id = ID.get(word);
  if (id === undefined)
    throw new Error(`tokenizer: word ${JSON.stringify(word)} is not in the vocabulary`);
  return id;
}

export const PAD_ID = tokenId(PAD);
export const BOS_ID = tokenId(BOS);
export const EOS_ID = tokenId(EOS);
export const SEP_ID = tokenId(SEP);
/** `</think>`: the end of the reasoning block (ACRE's re-ask forces the response up to it). */
export const THINK_END_ID = tokenId("</think>");

/** Longest prompt the model reads: BOS + question + options + SEP (lab choice; every task prompt fits, a test checks). */
export const MAX_PROMPT_TOKENS = 40;
/** Longest response target: sftTarget + EOS (lab choice; every task target fits, a test checks). */
export const MAX_RESPONSE_TOKENS = 64;

const GLUE_AFTER = new Set(["\\boxed{"]);
const GLUE_BEFORE = new Set(["}", ":", "?"]);
const PIECE =
  /<pad>|<bos>|<eos>|<sep>|<\/?think>|<\/?answer>|\\boxed\{|-?\d+|[A-Za-z]+|[^\sA-Za-z\d]/g;

/** Splits text into vocabulary words (no id lookup). */
export function tokenizeWords(text: string): string[] {
  return text.match(PIECE) ?? [];
}

/**
 * Text → token ids. Throws an Error naming the first word that is not in the
 * vocabulary (e.g. `word "banana" is not in the vocabulary`).
 */
export function encode(text: string): number[] {
  return tokenizeWords(text).map(tokenId);
}

/** Token ids → canonical text (special tokens are written as `<pad>`, `<eos>`, …). Throws on an id outside 0..vocabSize−1. */
export function decode(ids: ArrayLike<number>): string {
  let out = "";
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const w = VOCAB[id];
    if (w === undefined || !Number.isInteger(id))
      throw new Error(`tokenizer: id ${id} is not in 0..${vocabSize - 1}`);
    if (i > 0 && !GLUE_AFTER.has(VOCAB[ids[i - 1]]) && !GLUE_BEFORE.has(w)) out += " ";
    out += w;
  }
  return out;
}

/**
 * Decodes a sampled response: stops at the first EOS, drops PAD, BOS and SEP.
 * This is the text the rewards score.
 */
export function decodeResponse(ids: ArrayLike<number>): string {
  const kept: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (ids[i] === EOS_ID) break;
    if (ids[i] !== PAD_ID && ids[i] !== BOS_ID && ids[i] !== SEP_ID) kept.push(ids[i]);
  }
  return decode(kept);
}

/** Token sequences of one prompt for the model. */
export interface ModelTokens {
  /** BOS, question, rendered options, SEP. Length ≤ MAX_PROMPT_TOKENS. */
  prompt: number[];
  /** sftTarget then EOS. Length ≤ MAX_RESPONSE_TOKENS. */
  target: number[];
}

/**
 * Builds the model's text input (`<bos> question options <sep>`) and the
 * response target (`sftTarget <eos>`) for a prompt. Throws if either is
 * longer than MAX_PROMPT_TOKENS / MAX_RESPONSE_TOKENS or contains an unknown
 * word.
 */
export function buildModelTokens(
  prompt: Pick<TaskPrompt, "id" | "question" | "options" | "sftTarget">,
): ModelTokens {
  const p = [BOS_ID, ...encode(promptText(prompt)), SEP_ID];
  const t = [...encode(prompt.sftTarget), EOS_ID];
  if (p.length > MAX_PROMPT_TOKENS)
    throw new Error(
      `buildModelTokens: prompt ${prompt.id} has ${p.length} tokens > MAX_PROMPT_TOKENS ${MAX_PROMPT_TOKENS}`,
    );
  if (t.length > MAX_RESPONSE_TOKENS)
    throw new Error(
      `buildModelTokens: target of ${prompt.id} has ${t.length} tokens > MAX_RESPONSE_TOKENS ${MAX_RESPONSE_TOKENS}`,
    );
  return { prompt: p, target: t };
}
