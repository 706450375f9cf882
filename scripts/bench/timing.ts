/**
 * The timing half of the benchmark harness: median and spread of repeated
 * timings, and the warm-up-then-timed loop. No Node import, so the Chromium
 * worker of bench:engine uses it too.
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
