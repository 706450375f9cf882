/**
 * Runs one of the lab's CLIs the way `npm run` does, in a child process:
 * `node --import tsx --import ./scripts/register-raw.mjs src/cli/<script> …args`
 * from the repository root.
 *
 *   const r = runCli("lab", ["--preset", "smoke", "--steps", "3"], { timeout: 900_000 });
 *   expect(r.code, r.stderr).toBe(0);
 *   expect(r.lastJson.preset).toBe("smoke");
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

/** Repository root (two levels above test/support). */
const REPO_ROOT = resolve(import.meta.dirname, "../..");

/** Options of one CLI run. */
export interface CliOptions {
  /** Milliseconds before the child is killed (then `code` is null). Default 600,000. */
  timeout?: number;
  /** Environment of the child; default the test's own. */
  env?: NodeJS.ProcessEnv;
}

/** What a CLI run left behind. */
export interface CliResult {
  /** Exit status; null when the child was killed (timeout or signal). */
  code: number | null;
  /** The signal that killed the child, or null. */
  signal: NodeJS.Signals | null;
  /** Everything the child wrote to stdout / stderr (UTF-8). */
  stdout: string;
  stderr: string;
  /** Set when the child could not be started or ran past `timeout`. */
  error: Error | undefined;
  /** Wall-clock seconds of the run. */
  seconds: number;
  /**
   * The last non-empty stdout line parsed as JSON (the CLIs end with one JSON
   * line, the result or `{"error": …}`).
   * @throws Error naming the script, with the ends of stdout and stderr, when
   *   that line is missing or is not JSON.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a CLI's JSON line has no one type
  readonly lastJson: any;
}

/**
 * Runs `src/cli/<script>` (`"lab"` or `"lab.ts"`; a path with a `/`, such as
 * `"scripts/sampled-eval.ts"`, is taken from the repository root) with `args`
 * and waits for it.
 */
export function runCli(
  script: string,
  args: readonly string[] = [],
  opts: CliOptions = {},
): CliResult {
  const file = script.includes("/")
    ? script
    : `src/cli/${script.endsWith(".ts") ? script : `${script}.ts`}`;
  const t = performance.now();
  const res = spawnSync(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/register-raw.mjs", file, ...args],
    { cwd: REPO_ROOT, encoding: "utf8", timeout: opts.timeout ?? 600_000, env: opts.env },
  );
  const seconds = (performance.now() - t) / 1000;
  const stdout = res.stdout ?? "";
  const stderr = res.stderr ?? "";
  return {
    code: res.status,
    signal: res.signal,
    stdout,
    stderr,
    error: res.error,
    seconds,
    get lastJson() {
      const lines = stdout.trim().split("\n");
      const last = lines[lines.length - 1];
      try {
        return JSON.parse(last);
      } catch {
        throw new Error(
          `${file} did not end with a JSON line (exit ${res.status}, signal ${res.signal}); ` +
            `stdout ends: ${stdout.slice(-500)}; stderr ends: ${stderr.slice(-2000)}`,
        );
      }
    },
  };
}
