/**
 * A CLI's flag table and its words: each flag's type, meaning, default and
 * range or allowed values, positional arguments, and how a flag's default,
 * range and usage read. The parser (cli-flags.ts) and the help and docs
 * (cli-help.ts) both read a table through these.
 */

/** What every flag of a table has. */
interface FlagBase {
  /** The meaning, shown in --help, the docs and the errors. */
  help: string;
  /** The value's placeholder in usage lines (N, FILE, DIR, …). */
  arg?: string;
  /** The default as words, where it is not one fixed value (e.g. "the preset's"). */
  defaultText?: string;
  /** The range as words, where another schema checks it (e.g. the experiment's). */
  range?: string;
  /** The experiment field the flag sets (dot-joined), so that schema errors name the flag. */
  field?: string;
}

/** One flag of a CLI. */
export type FlagSpec = FlagBase &
  (
    | { kind: "int"; min: number; max: number; default?: number }
    | {
        kind: "number";
        /** Inclusive lower bound. */
        min?: number;
        /** Exclusive lower bound. */
        above?: number;
        /** Inclusive upper bound. */
        max?: number;
        default?: number;
      }
    | { kind: "enum"; of: readonly string[]; default?: string; required?: boolean }
    /** A comma-separated list of allowed values. */
    | { kind: "list"; of: readonly string[]; default: readonly string[] }
    | { kind: "string"; default?: string; required?: boolean }
    | { kind: "bool" }
    /** A string flag that may be given several times (values in order). */
    | { kind: "repeat" }
  );

/** A positional argument of a CLI. */
interface PositionalSpec {
  name: string;
  help: string;
  /** Given at least once. */
  required?: boolean;
  /** May be given several times (only the last positional). */
  many?: boolean;
  defaultText?: string;
}

/** A CLI: its command, what it does, its flags and its positional arguments. */
export interface CliTable {
  /** How it is started, e.g. "npm run lab --". */
  command: string;
  /** One sentence: what it does. */
  summary: string;
  flags: Readonly<Record<string, FlagSpec>>;
  positionals?: readonly PositionalSpec[];
}

type FlagValue<S extends FlagSpec> = S extends { kind: "bool" }
  ? boolean
  : S extends { kind: "list" | "repeat" }
    ? string[]
    : S extends { kind: "int" | "number" }
      ? S extends { default: number }
        ? number
        : number | undefined
      : S extends { default: string } | { required: true }
        ? string
        : string | undefined;

/** The parsed flags of a table: every flag, its default filled in. */
export type FlagValues<F extends Readonly<Record<string, FlagSpec>>> = {
  [K in keyof F]: FlagValue<F[K]>;
};

/** `[--name ARG]` per flag, then the positionals: the usage line. */
export function usageLine(table: CliTable): string {
  const flags = Object.entries(table.flags).map(([name, s]) => {
    const arg = argOf(s);
    const text = `--${name}${arg ? ` ${arg}` : ""}`;
    return "required" in s && s.required ? text : `[${text}]`;
  });
  const pos = (table.positionals ?? []).map((p) => {
    const text = p.many ? `${p.name} …` : p.name;
    return p.required ? text : `[${text}]`;
  });
  return [table.command, ...pos, ...flags].join(" ");
}

/** The value placeholder of a flag ("" for a boolean). */
export function argOf(s: FlagSpec): string {
  if (s.arg !== undefined) return s.arg;
  switch (s.kind) {
    case "bool":
      return "";
    case "enum":
      return s.of.join("|");
    case "list":
      return s.of.join(",");
    case "int":
    case "number":
      return "N";
    default:
      return "TEXT";
  }
}

/** The default of a flag in words, as --help and the docs show it. */
export function defaultText(s: FlagSpec): string {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.kind === "bool") return "off";
  if (s.kind === "repeat") return "none";
  if (s.kind === "list") return s.default.join(",");
  if ("required" in s && s.required) return "required";
  return s.default === undefined ? "none" : String(s.default);
}

/** The range or the allowed values of a flag in words ("" where any text goes). */
export function rangeText(s: FlagSpec): string {
  if (s.range !== undefined) return s.range;
  switch (s.kind) {
    case "int":
      return `integer in [${s.min}, ${s.max}]`;
    case "number": {
      const lo = s.above !== undefined ? `(${s.above}` : s.min !== undefined ? `[${s.min}` : "(-∞";
      const hi = s.max !== undefined ? `${s.max}]` : "∞)";
      return `number in ${lo}, ${hi}`;
    }
    case "enum":
      return `one of ${s.of.join(", ")}`;
    case "list":
      return `comma-separated, each one of ${s.of.join(", ")}`;
    case "bool":
      return "";
    default:
      return "";
  }
}
