/**
 * The one harness every benchmark under scripts/bench/ uses: its flags (one
 * table per benchmark, parsed and explained by --help through
 * src/lib/cli-flags.ts, errors that name the flag), its timings (timing.ts:
 * warm-up runs, then timed repeats, summarized as median and spread), its
 * progress lines (stderr) and its result: one JSON line per environment on
 * stdout at the end, or one `{"error": …}` line and exit code 1.
 *
 *   const flags = parseBenchFlags(process.argv.slice(2), {
 *     steps: { kind: "int", min: 5, max: 50, default: 5, help: "timed RL steps" },
 *   });
 *   runBench("bench-rl", async (log) => ({ step_ms: … }));
 *
 * Figures, not tests: a benchmark asserts no time.
 */
import { basename } from "node:path";
import { readCliFlags } from "../../src/lib/cli-flags";
import type { FlagSpec, FlagValues } from "../../src/lib/cli-table";

export { median, round, summarize, timeRuns, type Timing } from "./timing";

/**
 * Parses a benchmark's flags against its table `spec` and fills in the
 * defaults; `--help` prints the table and exits 0. Linear in the arguments.
 * @throws Error naming the flag (src/lib/cli-flags.ts parseCli).
 */
export function parseBenchFlags<T extends Readonly<Record<string, FlagSpec>>>(
  argv: readonly string[],
  spec: T,
): FlagValues<T> {
  const name = basename(process.argv[1] ?? "bench", ".ts");
  const table = {
    command: `npm run bench:${name} --`,
    summary: `The ${name} benchmark: figures on stdout as JSON lines (docs/benchmarks.md).`,
    flags: spec,
  };
  return readCliFlags(table, argv).flags;
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
