/**
 * The command-line flags of a CLI, from one table: each flag's type, meaning,
 * default and range or allowed values. Node's `util.parseArgs` splits the
 * arguments; this module checks each value once, against the table, with
 * errors that name the flag and its range, and answers `--help` / `-h` with
 * the table (src/lib/cli-help.ts). `--name=value` works as well as
 * `--name value`.
 *
 *   const { flags } = readCliFlags(LAB_FLAGS);   // exits 0 after printing --help
 */
import { parseArgs } from "node:util";
import { helpText } from "./cli-help";
import { type CliTable, type FlagSpec, type FlagValues, rangeText, usageLine } from "./cli-table";

/** What a command line gives. */
export interface ParsedCli<F extends Readonly<Record<string, FlagSpec>>> {
  flags: FlagValues<F>;
  /** The flags given on the command line (names without `--`), in order. */
  given: string[];
  positionals: string[];
}

/** `--name`s of a table, for the unknown-flag error. */
const known = (table: CliTable) =>
  `${Object.keys(table.flags)
    .map((k) => `--${k}`)
    .join(" ")} (--help explains each)`;

/**
 * Parses `argv` against `table` and fills in the defaults. Linear in the
 * arguments. Returns "help" when `--help` or `-h` is among them.
 * @throws Error naming the flag: an unknown flag (with the known ones), a
 *   missing value, a value of the wrong type, out of range or not one of the
 *   choices, a flag given twice, a missing required flag; or an argument the
 *   table has no positional for, or a missing positional.
 */
export function parseCli<F extends Readonly<Record<string, FlagSpec>>>(
  argv: readonly string[],
  table: CliTable & { flags: F },
): ParsedCli<F> | "help" {
  if (wantsHelp(argv)) return "help";
  const options: Record<string, { type: "string" | "boolean"; multiple: true }> = {};
  for (const [name, s] of Object.entries(table.flags))
    options[name] = { type: s.kind === "bool" ? "boolean" : "string", multiple: true };
  // strict: false so that the errors below name the flag in this table's words.
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const raw = new Map<string, string[]>();
  const positionals: string[] = [];
  for (const t of tokens) {
    if (t.kind === "positional") {
      positionals.push(t.value);
      continue;
    }
    if (t.kind === "option-terminator") continue;
    const s = Object.hasOwn(table.flags, t.name) ? table.flags[t.name] : undefined;
    if (!s) throw new Error(`unknown option ${t.rawName}; known: ${known(table)}`);
    const name = t.name;
    if (raw.has(name) && s.kind !== "repeat") throw new Error(`--${name} is given twice`);
    if (s.kind === "bool") {
      if (t.value !== undefined) throw new Error(`--${name} takes no value (${s.help})`);
      raw.set(name, ["true"]);
      continue;
    }
    // A value that is itself a flag means the value was left out.
    if (t.value === undefined || (t.inlineValue !== true && t.value.startsWith("--")))
      throw new Error(`--${name} needs a value (${s.help})`);
    raw.set(name, [...(raw.get(name) ?? []), t.value]);
  }
  checkPositionals(table, positionals);
  const flags: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(table.flags)) {
    const values = raw.get(name);
    if (values === undefined) {
      if ("required" in s && s.required)
        throw new Error(
          `--${name} is required${s.kind === "enum" ? `; known: ${s.of.join(", ")}` : ` (${s.help})`}`,
        );
      flags[name] = defaultOf(s);
    } else if (s.kind === "bool") flags[name] = true;
    else flags[name] = s.kind === "repeat" ? values : readValue(name, s, values[0]);
  }
  return { flags: flags as FlagValues<F>, given: [...raw.keys()], positionals };
}

function checkPositionals(table: CliTable, got: readonly string[]): void {
  const specs = table.positionals ?? [];
  const many = specs.at(-1)?.many === true;
  if (!many && got.length > specs.length)
    throw new Error(
      `unexpected argument '${got[specs.length]}': ${specs.length === 0 ? "this command takes flags only" : `it takes ${specs.map((p) => p.name).join(" ")}`}; usage: ${usageLine(table)}`,
    );
  const missing = specs.find((p, i) => p.required && got.length <= i);
  if (missing)
    throw new Error(`${missing.name} is missing (${missing.help}); usage: ${usageLine(table)}`);
}

function defaultOf(s: FlagSpec): unknown {
  if (s.kind === "bool") return false;
  if (s.kind === "repeat") return [];
  if (s.kind === "list") return [...s.default];
  return s.default;
}

/** One flag's value, checked against its type and range (the one check of the flag). */
function readValue(name: string, s: FlagSpec, text: string): unknown {
  const why = s.help;
  switch (s.kind) {
    case "int": {
      const n = Number(text);
      if (!/^-?\d+$/.test(text) || n < s.min || n > s.max)
        throw new Error(
          `--${name} must be an integer in [${s.min}, ${s.max}] (${why}), got '${text}'`,
        );
      return n;
    }
    case "number": {
      const n = Number(text);
      const ok =
        text.trim() !== "" &&
        Number.isFinite(n) &&
        (s.above === undefined || n > s.above) &&
        (s.min === undefined || n >= s.min) &&
        (s.max === undefined || n <= s.max);
      if (!ok) throw new Error(`--${name} must be a ${rangeText(s)} (${why}), got '${text}'`);
      return n;
    }
    case "enum":
      if (!s.of.includes(text))
        throw new Error(`--${name} must be one of ${s.of.join(", ")} (${why}), got '${text}'`);
      return text;
    case "list": {
      const parts = text.split(",");
      for (const p of parts)
        if (!s.of.includes(p))
          throw new Error(`--${name} takes ${s.of.join(" and/or ")} (${why}), got '${p}'`);
      return parts;
    }
    default:
      return text;
  }
}

/**
 * The flags of the command line of this process (or `argv`); on `--help` or
 * `-h` prints the table's help on stdout and exits 0.
 * @throws Error as parseCli.
 */
export function readCliFlags<F extends Readonly<Record<string, FlagSpec>>>(
  table: CliTable & { flags: F },
  argv: readonly string[] = process.argv.slice(2),
): ParsedCli<F> {
  const parsed = parseCli(argv, table);
  if (parsed === "help") return exitWithHelp(table);
  return parsed;
}

/** Whether the command line asks for help (`--help` or `-h`). */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes("--help") || argv.includes("-h");
}

/** Prints the table's --help answer on stdout and exits 0. */
export function exitWithHelp(table: CliTable): never {
  process.stdout.write(helpText(table));
  process.exit(0);
}
