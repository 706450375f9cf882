/**
 * A CLI's flag table as text: the `--help` answer (one line per flag: its
 * meaning, default and range) and the Markdown table of docs/cli.md. Both
 * come from the table alone, so neither can drift from what the parser
 * checks (src/lib/cli-flags.ts).
 */
import { argOf, type CliTable, defaultText, rangeText, usageLine } from "./cli-table";

/** `--name ARG` of a flag. */
const flagName = (name: string, arg: string) => `--${name}${arg ? ` ${arg}` : ""}`;

/**
 * The `--help` answer: usage line, summary, positionals, then one line per
 * flag "  --name ARG  meaning. Default: D. Range: R." and the help flag.
 */
export function helpText(table: CliTable): string {
  const lines = [`usage: ${usageLine(table)}`, "", table.summary, ""];
  const pos = table.positionals ?? [];
  const flags = Object.entries(table.flags).map(([name, s]) => ({
    left: flagName(name, argOf(s)),
    right: `${s.help}. Default: ${defaultText(s)}.${rangeText(s) ? ` Range: ${rangeText(s)}.` : ""}`,
  }));
  const rows = [
    ...pos.map((p) => ({
      left: p.many ? `${p.name} …` : p.name,
      right: `${p.help}. ${p.required ? "Required." : `Default: ${p.defaultText ?? "none"}.`}`,
    })),
    ...flags,
    { left: "-h, --help", right: "print this help and exit" },
  ];
  const width = Math.max(...rows.map((r) => r.left.length));
  if (pos.length) lines.push("arguments:");
  rows.forEach((r, i) => {
    if (i === pos.length) lines.push("flags:");
    lines.push(`  ${r.left.padEnd(width)}  ${r.right}`);
  });
  return `${lines.join("\n")}\n`;
}

/** `|` and newlines would break a Markdown table cell. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/**
 * The Markdown reference of one CLI: a heading with the command, the
 * summary, then a table of its positionals and flags (flag, meaning,
 * default, range).
 */
export function markdownOfTable(table: CliTable): string {
  const out = [`### \`${table.command.replace(/ --$/, "")}\``, "", table.summary, ""];
  out.push("| argument | meaning | default | range |", "| --- | --- | --- | --- |");
  for (const p of table.positionals ?? [])
    out.push(
      `| \`${p.many ? `${p.name} …` : p.name}\` | ${cell(p.help)} | ${p.required ? "required" : cell(p.defaultText ?? "none")} | |`,
    );
  for (const [name, s] of Object.entries(table.flags))
    out.push(
      `| \`${cell(flagName(name, argOf(s)))}\` | ${cell(s.help)} | ${cell(defaultText(s))} | ${cell(rangeText(s))} |`,
    );
  return `${out.join("\n")}\n`;
}
