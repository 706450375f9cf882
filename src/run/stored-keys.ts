/**
 * Keys renamed after rows were stored: saved runs, shipped recordings and
 * sweep units keep the names they were written with (they are never
 * rewritten), so every place stored rows enter reads them through here
 * (src/store/saved-run-check.ts for saved runs and recordings,
 * src/cli/sweep-folder.ts for sweep units and canaries). One table of
 * renames; a lookup per key, so reading is linear in the keys read.
 */
import type { RolloutClassKey } from "../settings/credit-table";
import type { MetricRow } from "./run-types";

/**
 * Rollout classes by their earlier key (docs/reward-spec.md §6).
 * `lucky-guess` → `flawed-right` (2026-12-06): the class holds right answers
 * whose own steps conclude them, mostly misreads that do not change the
 * answer (docs/results.md), not guesses; the held-out metric `luckyGuess`
 * kept its name.
 */
const RENAMED_CLASSES: Readonly<Record<string, RolloutClassKey>> = {
  "lucky-guess": "flawed-right",
};

/** A rollout class key as the lab names it now (an unknown key is returned as it is). */
export function currentClassKey(key: string): string {
  return Object.hasOwn(RENAMED_CLASSES, key) ? RENAMED_CLASSES[key] : key;
}

/**
 * A metric key as the lab names it now: `credit/<earlier class>/<part>` →
 * `credit/<class>/<part>` (e.g. `credit/lucky-guess/share` →
 * `credit/flawed-right/share`); every other key is returned as it is.
 */
export function currentMetricKey(key: string): string {
  if (!key.startsWith("credit/")) return key;
  const end = key.indexOf("/", 7);
  if (end < 0) return key;
  const cls = key.slice(7, end);
  return Object.hasOwn(RENAMED_CLASSES, cls)
    ? `credit/${RENAMED_CLASSES[cls]}${key.slice(end)}`
    : key;
}

/**
 * A stored metric row with its keys as the lab names them now (the same
 * object when no key was renamed; else a copy with the values in their
 * order). Linear in the row's keys.
 * @param where names the row in errors ("saved run 'x' (metrics) byVariant.scs.train[3]").
 * @throws Error when the row holds a key under both its earlier and its
 *   current name (no lab version wrote such a row: which value is meant
 *   cannot be told, so the row is refused rather than one value dropped).
 */
export function migrateStoredRow<R extends Pick<MetricRow, "values">>(row: R, where: string): R {
  let values: Record<string, number> | null = null;
  for (const [k, v] of Object.entries(row.values)) {
    const now = currentMetricKey(k);
    if (now === k && values === null) continue;
    if (values === null) {
      // First renamed key: copy the keys before it, then go on key by key.
      values = {};
      for (const [k0, v0] of Object.entries(row.values)) {
        if (k0 === k) break;
        values[k0] = v0;
      }
    }
    if (Object.hasOwn(values, now) || (now !== k && Object.hasOwn(row.values, now)))
      throw new Error(
        `${where} holds both '${k}' and '${now}' (the same metric under its name before and after 2026-12-06); a row holds one of them`,
      );
    values[now] = v;
  }
  return values === null ? row : { ...row, values };
}

/** Metric key lists with their keys as the lab names them now, in first-seen order, each once. */
export function currentMetricKeys(keys: readonly string[]): string[] {
  return [...new Set(keys.map(currentMetricKey))];
}
