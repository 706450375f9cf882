/**
 * Reading `\boxed{...}` / `\fbox{...}` answers (test/fixtures/README.md, contract
 * `extractBoxed`). Linear time: one regex scan to find the last command, one
 * brace walk from there.
 */

/** Outcome of reading the last box of a text. */
type BoxStatus = "none" | "ok" | "empty" | "unclosed";

export interface BoxRead {
  /** Trimmed raw content, or null (no box, empty box, unclosed box). */
  content: string | null;
  status: BoxStatus;
}

// The command name must not be followed by another letter (`\boxedx` is not a box).
const BOX_COMMAND = /\\(?:boxed|fbox)(?![A-Za-z])/g;

/**
 * Reads the last `\boxed`/`\fbox` of `text` and says why it gave nothing when
 * it gives nothing. Never throws. Used by the parsers that must tell a
 * truncated answer (`unclosed`) apart from a missing one (`none`).
 */
export function readLastBox(text: string): BoxRead {
  if (typeof text !== "string" || text.length === 0) return { content: null, status: "none" };
  let last = -1;
  let lastEnd = -1;
  BOX_COMMAND.lastIndex = 0;
  for (let m = BOX_COMMAND.exec(text); m !== null; m = BOX_COMMAND.exec(text)) {
    last = m.index;
    lastEnd = m.index + m[0].length;
  }
  if (last < 0) return { content: null, status: "none" };
  let i = lastEnd;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (i >= text.length) return { content: null, status: "unclosed" };
  if (text[i] === "{") return readBraceGroup(text, i);
  if (i === lastEnd) {
    // `\boxed` directly followed by a non-letter, non-brace: not a box argument.
    return { content: null, status: "none" };
  }
  // Brace-less form `\boxed X`: up to the next `$`, else to the end of the line.
  let end = i;
  while (end < text.length && text[end] !== "$" && text[end] !== "\n" && text[end] !== "\r") end++;
  return finish(text.slice(i, end));
}

function readBraceGroup(text: string, open: number): BoxRead {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i++; // escaped character (`\{`, `\}`) is literal text, kept in the result
      continue;
    }
    if (ch === "{") depth++;
    else if (ch === "}") {
      depth--;
      if (depth === 0) return finish(text.slice(open + 1, i));
    }
  }
  return { content: null, status: "unclosed" };
}

function finish(raw: string): BoxRead {
  const content = raw.trim();
  return content.length === 0 ? { content: null, status: "empty" } : { content, status: "ok" };
}

/**
 * `extractBoxed({text})`: the trimmed raw content of the LAST `\boxed`/`\fbox`
 * in `text` (by start position), or null when there is none, it is empty, or
 * it was never closed (no fallback to an earlier box). Source: test/fixtures/README.md,
 * contract extractBoxed 1–6. Never throws; linear time.
 */
export function extractBoxed({ text }: { text: string }): string | null {
  return readLastBox(text).content;
}
