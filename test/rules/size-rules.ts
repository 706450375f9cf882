/**
 * The size limits of docs/design.md ("File size"), read from the doc's
 * `<!-- sizes -->` list, and the check of a tree against them. A line is
 * one newline, as `wc -l` counts.
 */

/** One limit: the files a pattern names stay under `limit` lines. */
export interface SizeRule {
  /** A path from the repository root; a `**` folder stands for any folders, `*` for any part of a name. */
  pattern: string;
  limit: number;
}

const LIST = /<!-- sizes: lines a file stays under -->\n([\s\S]*?)<!-- \/sizes -->/;

/**
 * The rules of the doc's list: one item per line, `` - `PATTERN`[, `PATTERN`…]: N ``.
 * @throws Error naming the doc when the list is missing, empty, or an item
 *   does not read as patterns and a positive whole number.
 */
export function parseSizeRules(doc: string, name = "docs/design.md"): SizeRule[] {
  const m = doc.match(LIST);
  if (!m) throw new Error(`${name}: no '<!-- sizes: lines a file stays under -->' list`);
  const rules: SizeRule[] = [];
  for (const line of m[1].split("\n")) {
    if (!line.startsWith("- ")) continue;
    const item = line.match(/^- ((?:`[^`]+`(?:, )?)+): (\d+)$/);
    if (!item || Number(item[2]) <= 0)
      throw new Error(`${name}: size item '${line}' is not "- \`PATTERN\`: LINES"`);
    for (const p of item[1].matchAll(/`([^`]+)`/g))
      rules.push({ pattern: p[1], limit: Number(item[2]) });
  }
  if (rules.length === 0) throw new Error(`${name}: the sizes list has no item`);
  return rules;
}

function patternRegex(pattern: string): RegExp {
  const body = pattern
    .split(/(\*\*\/|\*)/)
    .map((part) =>
      part === "**/"
        ? "(?:[^/]+/)*"
        : part === "*"
          ? "[^/]*"
          : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${body}$`);
}

/**
 * The limit of `path`: a rule naming the file exactly wins over a pattern
 * with wildcards, and of several patterns the last in the list.
 * @returns null when no rule names the file.
 */
export function limitOf(rules: readonly SizeRule[], path: string): number | null {
  const exact = rules.find((r) => !r.pattern.includes("*") && r.pattern === path);
  if (exact) return exact.limit;
  const matching = rules.filter(
    (r) => r.pattern.includes("*") && patternRegex(r.pattern).test(path),
  );
  return matching.length ? matching[matching.length - 1].limit : null;
}

/** Lines of a text as `wc -l` counts them (its newlines). */
export function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * The files over their limit, one message each: "PATH: N lines, the limit is
 * under L (docs/design.md, File size)". Files no rule names are not checked.
 */
export function oversized(
  rules: readonly SizeRule[],
  files: ReadonlyMap<string, number>,
): string[] {
  const out: string[] = [];
  for (const [path, lines] of files) {
    const limit = limitOf(rules, path);
    if (limit !== null && lines >= limit)
      out.push(`${path}: ${lines} lines, the limit is under ${limit} (docs/design.md, File size)`);
  }
  return out;
}
