/**
 * The one harness every benchmark under scripts/bench/ uses: its flags
 * (checked, with errors that name the flag), its timings (warm-up runs, then
 * timed repeats, summarized as median and spread), its progress lines
 * (stderr) and its result: one JSON line per environment on stdout at the
 * end, or one `{"error": …}` line and exit code 1.
 *
 *   const flags = parseBenchFlags(process.argv.slice(2), {
 *     steps: { kind: "int", min: 5, max: 50, default: 5, help: "timed RL steps" },
 *   });
 *   runBench("bench-rl", async (log) => ({ step_ms: … }));
 *
 * The timing half (summarize, timeRuns, median, round) has no Node import, so
 * the Chromium worker of bench:engine uses it too. Figures, not tests: a
 * benchmark asserts no time.
 */

/** A summary of repeated timings, in the unit of the samples (ms unless a key says otherwise). */
export interface Timing {
  /** The median (mean of the middle two for an even count). */
  median: number;
  min: number;
  max: number;
  /** max − min: the spread of the timed runs. */
  spread: number;
  /** How many timed runs (warm-ups excluded). */
  runs: number;
}

/**
 * Median of `xs` (the mean of the middle two for an even count).
 * @throws Error on an empty list.
 */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error("median of no samples");
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Median, min, max, spread and count of timed runs.
 * @throws Error on an empty list.
 */
export function summarize(samples: readonly number[]): Timing {
  const med = median(samples);
  const min = Math.min(...samples);
  const max = Math.max(...samples);
  return { median: med, min, max, spread: max - min, runs: samples.length };
}

/** `x` rounded to `digits` decimals (a number, for the JSON line). */
export const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

/** How a timed part runs. */
export interface TimeOptions {
  /** Untimed calls before the timed ones (pipeline builds, caches). Default 1. */
  warmup?: number;
  /** Timed calls (at least 1). */
  repeats: number;
  /** Where the per-run times go (a progress line each); default: nowhere. */
  log?: (msg: string) => void;
}

/**
 * Calls `fn` `warmup` times untimed, then `repeats` times timed with
 * performance.now() (wall clock, ms; `fn` must await the work it starts).
 * @throws Error when repeats < 1, or what `fn` throws.
 */
export async function timeRuns(
  label: string,
  opts: TimeOptions,
  fn: (run: number) => Promise<unknown>,
): Promise<Timing> {
  const { warmup = 1, repeats, log } = opts;
  if (!Number.isInteger(repeats) || repeats < 1)
    throw new Error(`${label}: repeats must be an integer ≥ 1, got ${repeats}`);
  for (let w = 0; w < warmup; w++) {
    const t0 = performance.now();
    await fn(-1 - w);
    log?.(`${label}: warm-up ${(performance.now() - t0).toFixed(1)} ms`);
  }
  const ms: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    await fn(r);
    ms.push(performance.now() - t0);
  }
  log?.(`${label}: ${ms.map((x) => x.toFixed(1)).join(", ")} ms`);
  return summarize(ms);
}

/** One flag of a benchmark. `help` is shown in errors and in --help. */
export type FlagSpec =
  | { kind: "int"; min: number; max: number; default: number; help: string }
  | {
      kind: "number";
      /** Exclusive lower bound. */
      above: number;
      /** Inclusive upper bound. */
      max: number;
      default: number;
      help: string;
    }
  | { kind: "enum"; of: readonly string[]; default: string; help: string }
  | { kind: "list"; of: readonly string[]; default: readonly string[]; help: string }
  | { kind: "string"; default?: string; help: string }
  | { kind: "bool"; help: string };

type FlagValue<S extends FlagSpec> = S extends { kind: "int" | "number" }
  ? number
  : S extends { kind: "enum" }
    ? string
    : S extends { kind: "list" }
      ? string[]
      : S extends { kind: "bool" }
        ? boolean
        : S extends { kind: "string"; default: string }
          ? string
          : string | undefined;

/** The parsed flags: every flag of the spec, its default filled in. */
export type BenchFlags<T extends Record<string, FlagSpec>> = { [K in keyof T]: FlagValue<T[K]> };

/** The flags of `spec` as the usage line shows them. */
export function usage(spec: Record<string, FlagSpec>): string {
  return Object.entries(spec)
    .map(([name, s]) => {
      const arg =
        s.kind === "bool"
          ? ""
          : s.kind === "enum"
            ? ` ${s.of.join("|")}`
            : s.kind === "list"
              ? ` ${s.of.join(",")}`
              : s.kind === "string"
                ? " TEXT"
                : " N";
      return `[--${name}${arg}]`;
    })
    .join(" ");
}

/**
 * Parses `--name value` / `--flag` arguments against `spec` and fills in the
 * defaults. Linear in the arguments.
 * @throws Error naming the flag: an unknown flag (with the known ones), a
 *   missing value, a value out of range or not one of the choices, a flag
 *   given twice, or an argument that is not a flag.
 */
export function parseBenchFlags<T extends Record<string, FlagSpec>>(
  argv: readonly string[],
  spec: T,
): BenchFlags<T> {
  const given = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--"))
      throw new Error(`unexpected argument '${a}': flags are ${usage(spec)}`);
    const name = a.slice(2);
    const s = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!s) throw new Error(`unknown flag --${name}; the flags are ${usage(spec)}`);
    if (given.has(name)) throw new Error(`--${name} is given twice`);
    if (s.kind === "bool") {
      given.set(name, true);
      continue;
    }
    const v = argv[i + 1];
    if (v === undefined || v.startsWith("--"))
      throw new Error(`--${name} needs a value (${s.help})`);
    given.set(name, v);
    i++;
  }
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(spec)) {
    const raw = given.get(name);
    out[name] = raw === undefined ? defaultOf(s) : readFlag(name, s, raw);
  }
  return out as BenchFlags<T>;
}

function defaultOf(s: FlagSpec): unknown {
  if (s.kind === "bool") return false;
  if (s.kind === "list") return [...s.default];
  return s.default;
}

function readFlag(name: string, s: FlagSpec, raw: string | true): unknown {
  const text = String(raw);
  switch (s.kind) {
    case "bool":
      return true;
    case "int": {
      const n = Number(text);
      if (!/^-?\d+$/.test(text) || n < s.min || n > s.max)
        throw new Error(
          `--${name} must be an integer in [${s.min}, ${s.max}] (${s.help}), got '${text}'`,
        );
      return n;
    }
    case "number": {
      const n = Number(text);
      if (text.trim() === "" || !Number.isFinite(n) || !(n > s.above) || n > s.max)
        throw new Error(
          `--${name} must be a number in (${s.above}, ${s.max}] (${s.help}), got '${text}'`,
        );
      return n;
    }
    case "enum":
      if (!s.of.includes(text))
        throw new Error(`--${name} takes ${s.of.join(" or ")} (${s.help}), got '${text}'`);
      return text;
    case "list": {
      const parts = text.split(",");
      for (const p of parts)
        if (!s.of.includes(p))
          throw new Error(`--${name} takes ${s.of.join(" and/or ")} (${s.help}), got '${p}'`);
      return parts;
    }
    case "string":
      return text;
  }
}

/** Writes a progress line to stderr, prefixed with the benchmark's name. */
export type BenchLog = (msg: string) => void;

/**
 * Runs a benchmark: `main` gets the progress log and returns its result, one
 * line or one per environment; each goes to stdout as one JSON line, then the
 * process exits 0 (Dawn's GPU object would keep it alive). A failure prints
 * one `{"error": message}` line and exits 1.
 */
export function runBench(
  name: string,
  main: (log: BenchLog) => Promise<Record<string, unknown> | Record<string, unknown>[]>,
): void {
  const log: BenchLog = (msg) => process.stderr.write(`[${name}] ${msg}\n`);
  main(log).then(
    (result) => {
      for (const line of Array.isArray(result) ? result : [result])
        process.stdout.write(`${JSON.stringify(line)}\n`);
      process.exit(0);
    },
    (e: unknown) => {
      process.stdout.write(`${JSON.stringify({ error: (e as Error).message ?? String(e) })}\n`);
      process.exit(1);
    },
  );
}
