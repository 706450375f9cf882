/**
 * Reading the option letter of a multiple-choice answer (test/fixtures/README.md,
 * contract `extractOptionLetter`). All patterns are anchored on fixed tokens
 * so the scan stays linear.
 */
import { readLastBox } from "./boxed";

// Cue word (not inside a longer word), optional `is` / `:`, wrappers, one letter.
const CUE =
  /(?<![A-Za-z])(?:final\s+answer|answer|choice|option)(?![A-Za-z])(?:\s*(?:is(?![A-Za-z])|[:：]))?[\s*$([{_]*([A-Za-z])(?![A-Za-z])/gi;
// After a cue letter: `/`, `,`, `or`, `and` followed by another letter = a hedge.
const HEDGE = /^[\s*$)\]}_]*(?:\/|,|\bor\b|\band\b)[\s*$([{_]*([A-Za-z])(?![A-Za-z])/i;
const BARE_LETTER = /(?<![A-Za-z])([A-Za-z])(?=[.):]|$)/g;
const PAREN_CAPITAL = /\(([A-Z])\)/g;
const STANDALONE_CAPITAL = /(?<![A-Za-z])([A-Z])(?![A-Za-z])/g;

/** Text between `\text{` and its closing brace is unwrapped (`\text{(B)}` → `(B)`). */
function unwrapText(s: string): string {
  return s.replace(/\\text\s*\{([^{}]*)\}/g, "$1");
}

function answerRegion(text: string): string {
  const close = text.lastIndexOf("</think>");
  let region = close >= 0 ? text.slice(close + "</think>".length) : text;
  const tag = region.lastIndexOf("<answer>");
  if (tag >= 0) {
    const start = tag + "<answer>".length;
    const end = region.indexOf("</answer>", start);
    region = region.slice(start, end >= 0 ? end : region.length);
  }
  const box = readLastBox(region);
  if (box.content !== null) region = unwrapText(box.content);
  return region.trim();
}

function lastMatch(re: RegExp, s: string, letters: string): string | null {
  let found: string | null = null;
  re.lastIndex = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const up = m[1].toUpperCase();
    if (letters.includes(up)) found = up;
  }
  return found;
}

/**
 * `extractOptionLetter({text, letters = "ABCDE"})`: the chosen option letter
 * (upper case, one of `letters`) or null. Source: test/fixtures/README.md, contract
 * extractOptionLetter 1–5. Never throws; a non-string text gives null.
 */
export function extractOptionLetter({
  text,
  letters = "ABCDE",
}: {
  text: string;
  letters?: string;
}): string | null {
  if (typeof text !== "string") return null;
  const allowed = String(letters ?? "ABCDE").toUpperCase();
  const region = answerRegion(text);

  // 1. Explicit cue: the rightmost one decides, with no fallback.
  let cue: RegExpExecArray | null = null;
  CUE.lastIndex = 0;
  for (let m = CUE.exec(region); m !== null; m = CUE.exec(region)) cue = m;
  if (cue !== null) {
    const letter = cue[1].toUpperCase();
    const hedge = HEDGE.exec(region.slice(cue.index + cue[0].length));
    if (hedge !== null && hedge[1].toUpperCase() !== letter) return null;
    return allowed.includes(letter) ? letter : null;
  }
  // 2. No cue: bare letter with `.`/`)`/`:` or at the end, then `(X)`, then a standalone capital.
  return (
    lastMatch(BARE_LETTER, region, allowed) ??
    lastMatch(PAREN_CAPITAL, region, allowed) ??
    lastMatch(STANDALONE_CAPITAL, region, allowed)
  );
}

/**
 * `isIndexBound({text, letters = "ABCD"})`: true when the reasoning (the text
 * before the first `</think>`) names an option letter, one of `letters` as a
 * standalone capital (`… 9 Correct … is A </think>`): the trace binds its
 * answer to a position, the "thus the answer is (C)" pattern of ACRE §3.3,
 * which a re-ask with the options shuffled copies. A text without `</think>`
 * is not bound (nothing a re-ask keeps). Linear; never throws.
 */
export function isIndexBound({
  text,
  letters = "ABCD",
}: {
  text: string;
  letters?: string;
}): boolean {
  if (typeof text !== "string") return false;
  const end = text.indexOf("</think>");
  if (end < 0) return false;
  return lastMatch(STANDALONE_CAPITAL, text.slice(0, end), String(letters).toUpperCase()) !== null;
}
