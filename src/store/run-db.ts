/**
 * Saved runs in this browser's IndexedDB (via `idb`): the experiment, every
 * metric row and marker of a run, so it can be viewed again after a reload.
 * Sample groups (images) are not saved: they are large and per-session.
 */
import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import { DEFAULT_EXPERIMENT, type Experiment } from "../rl/experiment";
import type { MetricsData } from "./run-data";
import { checkSavedRun, checkSavedRunSummary } from "./saved-run-check";

export interface SavedRun {
  key: string;
  name: string;
  savedAt: number;
  experiment: Experiment;
  lastStep: number;
  lastEval: Record<string, Record<string, number>>;
  metrics: MetricsData;
}

export type SavedRunSummary = Omit<SavedRun, "metrics">;

interface LabDb extends DBSchema {
  runs: { key: string; value: SavedRun; indexes: { savedAt: number } };
}

let dbp: Promise<IDBPDatabase<LabDb>> | null = null;

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

export async function saveRun(run: Omit<SavedRun, "key" | "savedAt">): Promise<SavedRun> {
  const rec: SavedRun = {
    ...run,
    key: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    savedAt: Date.now(),
  };
  await (await db()).put("runs", rec);
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
      const { metrics: _m, ...rest } = (raw ?? {}) as Partial<SavedRun>;
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

export async function deleteRun(key: string): Promise<void> {
  await (await db()).delete("runs", key);
}
