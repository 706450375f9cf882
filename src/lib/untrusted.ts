/**
 * Reading records the lab did not write itself (a link's hash, a saved run,
 * a checkpoint's metadata): keys that reach an object's prototype are
 * refused, and parsed objects have no prototype, so a record cannot change
 * `Object.prototype` or a built-in constructor, whatever code reads it later.
 */

/** Keys refused in every untrusted record: they reach a prototype or a constructor. */
const FORBIDDEN_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

/** True when `key` is one of FORBIDDEN_KEYS. */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.includes(key);
}

/** Why a key of FORBIDDEN_KEYS is refused (for messages). */
export const FORBIDDEN_REASON =
  "it could reach Object.prototype or a constructor and so change every object of the page";

/** The message for a refused key, naming where it was found. */
function forbiddenKeyMessage(key: string, where: string): string {
  return `${where} uses the key '${key}', which is refused: ${FORBIDDEN_REASON}`;
}

/**
 * JSON.parse for untrusted text: every object comes out with a null
 * prototype, and a key in FORBIDDEN_KEYS at any depth is an error.
 * @param what names the record in the error ("checkpoint metadata").
 * @throws SyntaxError for invalid JSON; Error naming the refused key and `what`.
 */
export function parseUntrustedJson(text: string, what: string): unknown {
  return JSON.parse(text, (key, value) => {
    if (isForbiddenKey(key)) throw new Error(forbiddenKeyMessage(key, what));
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const out = Object.create(null) as Record<string, unknown>;
      for (const k of Object.keys(value)) out[k] = (value as Record<string, unknown>)[k];
      return out;
    }
    return value;
  });
}

/**
 * Checks a structured value (e.g. a record read back from IndexedDB) for
 * keys in FORBIDDEN_KEYS, depth first, up to `maxDepth` levels (deeper is an
 * error too: no lab record nests that far).
 * @throws Error naming the path of the first refused key, e.g. `metrics.byVariant.__proto__`.
 */
export function assertNoForbiddenKeys(value: unknown, what: string, maxDepth = 32): void {
  const walk = (v: unknown, path: string, depth: number): void => {
    if (v === null || typeof v !== "object") return;
    if (depth > maxDepth)
      throw new Error(`${what} nests deeper than ${maxDepth} levels at ${path}`);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], `${path}[${i}]`, depth + 1);
      return;
    }
    if (ArrayBuffer.isView(v)) return;
    for (const k of Object.keys(v)) {
      const at = path ? `${path}.${k}` : k;
      if (isForbiddenKey(k)) throw new Error(forbiddenKeyMessage(k, `${what} (at ${at})`));
      walk((v as Record<string, unknown>)[k], at, depth + 1);
    }
  };
  walk(value, "", 0);
}
