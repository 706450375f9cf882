/**
 * A sweep: a long experiment cut into units whose results are each a
 * function of the sweep's settings and the unit's id alone (a seed-variant
 * trained from the cold start, a seed's cold-start eval, a seed's
 * judge-stability study), run one after another. A store keeps each result
 * the moment its unit finishes (the CLIs: one atomic file per unit, see
 * src/cli/sweep-folder.ts), so a killed sweep loses at most the unit in
 * progress and a resumed one runs only the units it has not got. Progress
 * goes to `report`: which seed-variant of how many finished, and an
 * estimate of the time left.
 */

/** One unit of a sweep. */
export interface SweepUnit<T> {
  /** Unique in the sweep, file-name safe: [a-z0-9._-]. */
  id: string;
  /** "seed-variant": counted in the progress line; "seed": a per-seed unit (cold-start eval, stability). */
  kind: "seed-variant" | "seed";
  /** What the unit is, for the progress line ("default, seed 12, grr"). */
  label: string;
  /** Computes the unit's result (JSON-serializable). */
  run: () => Promise<T>;
}

/** Where a sweep's results are kept. */
export interface SweepStore<T> {
  /** The stored result of unit `id`, or undefined. @throws Error naming a stored result that cannot be read. */
  load(id: string): T | undefined;
  /** Keeps `value` as unit `id`'s result (atomically: whole or not at all). */
  save(id: string, value: T): void;
}

/** An in-memory store (a sweep without an output folder). */
export function memoryStore<T>(): SweepStore<T> {
  const m = new Map<string, T>();
  return { load: (id) => m.get(id), save: (id, v) => void m.set(id, v) };
}

/** Seconds as "40 s", "12 min", "3.5 h". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "unknown";
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/**
 * Hours one sitting of a sweep runs (the CLIs' --max-hours), unless the
 * caller says otherwise (lab choice: a day). A sweep stops cleanly before the
 * first unit that would not end within it; its folder is resumed later
 * (`--resume DIR`), on this machine or another.
 */
export const DEFAULT_MAX_HOURS = 24;

/** How a sweep's run ended: every unit done, or paused by its time budget with units left. */
export type SweepOutcome<T> =
  | { complete: true; results: Map<string, T> }
  | {
      complete: false;
      /** The results of every unit done so far (this sitting's and the store's). */
      results: Map<string, T>;
      /** Units done (all kinds) and units left. */
      done: number;
      left: number;
    };

/**
 * A sitting's budget from --max-hours, in seconds.
 * @throws Error naming --max-hours when it is not a number > 0.
 */
export function sittingSeconds(maxHours: number): number {
  if (!(Number.isFinite(maxHours) && maxHours > 0))
    throw new Error(`--max-hours must be a number > 0, got ${maxHours}`);
  return maxHours * 3600;
}

/** Estimated seconds of one unit of a kind before any has run here (e.g. from a cost probe). */
export type PriorCost = Partial<Record<SweepUnit<unknown>["kind"], number>>;

/**
 * Runs the units in order, each one not in `store` yet, saving each result
 * as it finishes. Reports on `report`: how many seed-variants were in the
 * store already, then after each seed-variant "seed-variant i of n (label)
 * done in X; about Y left", Y from the mean time of this run's units of
 * each kind (before one of a kind has finished: `prior`, else unknown).
 * With `maxSeconds` (a sitting's budget, counted from the call), a unit
 * starts only when the seconds spent plus its estimate (as Y's) fit in it;
 * the first that does not ends the sitting cleanly, between units (a unit
 * of unknown cost always starts, so a sitting never ends before its first unit).
 * @returns every unit's result by id, and whether units are left.
 * @throws the first unit's error (the results saved before it stay in the store).
 */
export async function runSweep<T>(
  units: readonly SweepUnit<T>[],
  store: SweepStore<T>,
  report: (line: string) => void,
  prior: PriorCost = {},
  maxSeconds = Number.POSITIVE_INFINITY,
): Promise<SweepOutcome<T>> {
  const began = performance.now();
  const ids = new Set<string>();
  for (const u of units) {
    if (!/^[a-z0-9._-]+$/.test(u.id)) throw new Error(`sweep: unit id '${u.id}' is not file-safe`);
    if (ids.has(u.id)) throw new Error(`sweep: unit id '${u.id}' appears twice`);
    ids.add(u.id);
  }
  const results = new Map<string, T>();
  for (const u of units) {
    const stored = store.load(u.id);
    if (stored !== undefined) results.set(u.id, stored);
  }
  const seedVariants = units.filter((u) => u.kind === "seed-variant");
  const n = seedVariants.length;
  let done = seedVariants.filter((u) => results.has(u.id)).length;
  if (results.size > 0)
    report(
      n > 0
        ? `[sweep] ${done} of ${n} seed-variants (and ${results.size - done} other units) were done already; going on with the rest`
        : `[sweep] ${results.size} of ${units.length} units were done already`,
    );
  const spent: Record<string, number[]> = { "seed-variant": [], seed: [] };
  const perUnit = (kind: SweepUnit<T>["kind"]) => {
    const xs = spent[kind];
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : (prior[kind] ?? Number.NaN);
  };
  for (const u of units) {
    if (results.has(u.id)) continue;
    const t0 = performance.now();
    const cost = perUnit(u.kind);
    if ((t0 - began) / 1000 + (Number.isFinite(cost) ? cost : 0) > maxSeconds) {
      const left = units.filter((x) => !results.has(x.id)).length;
      report(
        `[sweep] stopping between units: ${u.label} (about ${formatDuration(cost)}) would not end within this sitting's ${formatDuration(maxSeconds)} (--max-hours); ${results.size} of ${units.length} units done, ${left} left`,
      );
      return { complete: false, results, done: results.size, left };
    }
    const value = await u.run();
    store.save(u.id, value);
    results.set(u.id, value);
    const seconds = (performance.now() - t0) / 1000;
    spent[u.kind].push(seconds);
    const left = units.filter((x) => !results.has(x.id)).reduce((a, x) => a + perUnit(x.kind), 0);
    const eta = `about ${formatDuration(left)} left`;
    if (u.kind === "seed-variant") {
      done++;
      report(
        `[sweep] seed-variant ${done} of ${n} (${u.label}) done in ${formatDuration(seconds)}; ${eta}`,
      );
    } else report(`[sweep] ${u.label} done in ${formatDuration(seconds)}; ${eta}`);
  }
  return { complete: true, results };
}
