/**
 * Saved runs in this browser's IndexedDB (via `idb`): the experiment, every
 * metric row and marker of a run, so it can be viewed again after a reload,
 * and the trainer's run snapshot (src/run/snapshot.ts: parameters and AdamW
 * state of every variant), so it can be resumed. The autosave (AUTOSAVE_KEY,
 * src/store/autosave.ts) is one such record, overwritten as the run goes.
 * Sample groups (images) are not saved: they are large and per-session.
 */
import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import { DEFAULT_EXPERIMENT } from "../settings/experiment";
import {
  checkSavedRun,
  checkSavedRunSummary,
  type SavedRun,
  type SavedRunSummary,
} from "./saved-run-check";

export type { SavedRun, SavedRunSummary } from "./saved-run-check";

/** Key of the autosaved record of the live run (overwritten by each autosave). */
export const AUTOSAVE_KEY = "autosave";

interface LabDb extends DBSchema {
  runs: { key: string; value: SavedRun; indexes: { savedAt: number } };
}

let dbp: Promise<IDBPDatabase<LabDb>> | null = null;
const changeListeners = new Set<() => void>();

/**
 * Calls `listener` after every write or delete of a saved run (the saved-runs
 * list refreshes on it).
 * @returns the function that removes the listener.
 */
export function onRunsChanged(listener: () => void): () => void {
  changeListeners.add(listener);
  return () => changeListeners.delete(listener);
}

function changed(): void {
  for (const l of changeListeners) l();
}

function db(): Promise<IDBPDatabase<LabDb>> {
  if (typeof indexedDB === "undefined")
    return Promise.reject(new Error("IndexedDB is not available in this browser"));
  dbp ??= openDB<LabDb>("reward-lab", 1, {
    upgrade(d) {
      d.createObjectStore("runs", { keyPath: "key" }).createIndex("savedAt", "savedAt");
    },
  });
  return dbp;
}

/**
 * Stores a run under a new key, or under `key` (replacing the record there:
 * the autosave).
 * @throws Error when IndexedDB is not available or the write fails.
 */
export async function saveRun(
  run: Omit<SavedRun, "key" | "savedAt">,
  key = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
): Promise<SavedRun> {
  const rec: SavedRun = { ...run, key, savedAt: Date.now() };
  await (await db()).put("runs", rec);
  changed();
  return rec;
}

/**
 * Summaries of the saved runs, newest first, each checked (saved-run-check.ts).
 * A record that fails the check is listed as "unreadable saved run (reason)"
 * with the default experiment, so it can still be deleted; loadRun refuses it.
 */
export async function listRuns(): Promise<SavedRunSummary[]> {
  const all = (await (await db()).getAllFromIndex("runs", "savedAt")) as unknown[];
  return all
    .map((raw): SavedRunSummary => {
      const { metrics: _m, snapshot: _s, ...rest } = (raw ?? {}) as Partial<SavedRun>;
      try {
        return checkSavedRunSummary(rest);
      } catch (e) {
        const key = typeof rest.key === "string" ? rest.key : "";
        return {
          key,
          name: `unreadable saved run (${(e as Error).message})`,
          savedAt: 0,
          experiment: DEFAULT_EXPERIMENT,
          lastStep: 0,
          lastEval: {},
        };
      }
    })
    .reverse();
}

/**
 * One saved run, checked before the page uses it.
 * @throws Error naming the run and what in the record is wrong.
 */
export async function loadRun(key: string): Promise<SavedRun | undefined> {
  const raw: unknown = await (await db()).get("runs", key);
  return raw === undefined ? undefined : checkSavedRun(raw);
}

/** Deletes a saved run (a missing key is not an error). */
export async function deleteRun(key: string): Promise<void> {
  await (await db()).delete("runs", key);
  changed();
}
