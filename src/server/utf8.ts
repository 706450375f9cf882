/**
 * Text checks of request bodies: bytes that are not UTF-8 (RFC 3629), and
 * strings that hold a lone UTF-16 surrogate (a `\uD800` escape in JSON: valid
 * bytes, but no UTF-8 text encodes it). Every function here is linear in its
 * input and never throws on it.
 */

const FATAL_UTF8 = new TextDecoder("utf-8", { fatal: true });
const LENIENT_UTF8 = new TextDecoder("utf-8");

/**
 * Byte offset of the first sequence of `bytes` that is not well-formed UTF-8
 * (RFC 3629 §4: no overlong forms, no surrogates, nothing above U+10FFFF),
 * or -1 when all of it is. Linear time.
 */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return i;
    if (i + need >= n) return i;
    const b1 = bytes[i + 1];
    if (b === 0xe0 && b1 < 0xa0) return i; // overlong
    if (b === 0xed && b1 > 0x9f) return i; // UTF-16 surrogate
    if (b === 0xf0 && b1 < 0x90) return i; // overlong
    if (b === 0xf4 && b1 > 0x8f) return i; // above U+10FFFF
    for (let k = 1; k <= need; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return -1;
}

/** A body decoded as UTF-8, or where it is not UTF-8. */
export type DecodedBody =
  | { ok: true; text: string }
  | {
      ok: false;
      /** Byte offset of the first invalid sequence. */
      byteOffset: number;
      /** The same bytes with each invalid sequence read as U+FFFD (for locating the field). */
      lenient: string;
      /** Index in `lenient` of the U+FFFD that stands for the first invalid sequence. */
      charIndex: number;
    };

/**
 * Decodes `bytes` as UTF-8 (a leading byte-order mark is dropped). A body
 * that is not UTF-8 is not decoded with replacement characters: the caller
 * gets where it broke. Linear time.
 */
export function decodeUtf8(bytes: Uint8Array): DecodedBody {
  try {
    return { ok: true, text: FATAL_UTF8.decode(bytes) };
  } catch {
    const byteOffset = Math.max(0, firstInvalidUtf8(bytes));
    const lenient = LENIENT_UTF8.decode(bytes);
    const charIndex = LENIENT_UTF8.decode(bytes.subarray(0, byteOffset)).length;
    return { ok: false, byteOffset, lenient, charIndex };
  }
}

// A high surrogate not followed by a low one, or a low one not preceded by a
// high one. Each alternative looks at one code unit and one neighbour: linear.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `s` has no lone UTF-16 surrogate, i.e. it can be written as UTF-8. Linear time. */
export function isWellFormedText(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

interface Frame {
  array: boolean;
  index: number;
  key: string | null;
  expectKey: boolean;
}

function pathOf(stack: readonly Frame[]): string {
  let out = "";
  for (const f of stack) {
    if (f.array) out += `[${f.index}]`;
    else if (f.key !== null) out += out === "" ? f.key : `.${f.key}`;
  }
  return out;
}

/**
 * The field of a JSON text that holds character `pos`, as `query[3]` or
 * `labels[0].answer` ("" for the top level; a key that holds `pos` is named
 * with " (a key)" after it). `text` must be valid JSON. One pass over the
 * text up to `pos`: linear time.
 */
export function jsonPathAt(text: string, pos: number): string {
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length && i <= pos) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const top = stack[stack.length - 1];
      const isKey = top !== undefined && !top.array && top.expectKey;
      let key: string | null = null;
      if (isKey) {
        try {
          key = String(JSON.parse(text.slice(i, j + 1)));
        } catch {
          key = text.slice(i + 1, j);
        }
      }
      if (pos >= i && pos <= j) {
        if (!isKey) return pathOf(stack);
        top.key = key;
        return `${pathOf(stack)} (a key)`;
      }
      if (isKey) {
        top.key = key;
        top.expectKey = false;
      }
      i = j + 1;
      continue;
    }
    if (c === "{") stack.push({ array: false, index: 0, key: null, expectKey: true });
    else if (c === "[") stack.push({ array: true, index: 0, key: null, expectKey: false });
    else if (c === "}" || c === "]") stack.pop();
    else if (c === ",") {
      const top = stack[stack.length - 1];
      if (top?.array) top.index++;
      else if (top) top.expectKey = true;
    }
    i++;
  }
  return pathOf(stack);
}
