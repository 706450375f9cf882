/**
 * Autosave of the live run: each run snapshot the trainer posts (when
 * training stops, and at most every PERSIST_INTERVAL_MS while it runs) is
 * written to IndexedDB with the run's settings and metrics, under one key
 * (AUTOSAVE_KEY), so a reload, a crashed tab or a lost device the trainer
 * could not get over leaves a run that resumes from its last snapshot.
 */
import type { StoreApi } from "zustand/vanilla";
import { hasRunData, type LabState } from "./lab-store";
import type { SavedRun } from "./run-db";
import type { MetricRow } from "../run/run-types";

/** The record an autosave writes (everything but its key and time). */
export type AutosaveRecord = Omit<SavedRun, "key" | "savedAt">;

/** The live run as a resumable record, or null when there is nothing to save (no data or no snapshot). */
function autosaveRecord(s: LabState): AutosaveRecord | null {
  const snap = s.runSnapshot;
  const exp = s.sentExperiment;
  if (!snap || !exp || !hasRunData(s)) return null;
  const lastEval: Record<string, Record<string, number>> = {};
  for (const [v, rows] of Object.entries(s.metrics.byVariant)) {
    const last: MetricRow | undefined = rows.eval.filter((r) => r.step <= snap.step).at(-1);
    if (last) lastEval[v] = { ...last.values };
  }
  return {
    name: `autosave · seed ${exp.seed} · ${exp.variants.map((v) => v.name).join(" vs ")} · step ${snap.step}`,
    experiment: exp,
    lastStep: snap.step,
    lastEval,
    metrics: s.metrics,
    snapshot: snap.bytes,
    snapshotStep: snap.step,
  };
}

/**
 * Writes the autosave each time the store gets a new snapshot; a failed
 * write is shown as a page problem (once while it keeps failing the same
 * way), and the next snapshot tries again.
 * @param save writes the record (the page: saveRun under AUTOSAVE_KEY).
 * @param onSaved called after each write (the saved-runs list refreshes).
 * @returns the unsubscribe function.
 */
export function startAutosave(
  store: StoreApi<LabState>,
  save: (rec: AutosaveRecord) => Promise<unknown>,
  onSaved: () => void = () => {},
): () => void {
  let writing: Promise<unknown> = Promise.resolve();
  let lastError = "";
  return store.subscribe((s, prev) => {
    if (s.runSnapshot === prev.runSnapshot) return;
    const rec = autosaveRecord(s);
    if (!rec) return;
    writing = writing
      .then(() => save(rec))
      .then(
        () => {
          lastError = "";
          onSaved();
        },
        (e) => {
          // The same failure each time (no IndexedDB here) is shown once.
          const message = `Autosave failed: ${e instanceof Error ? e.message : String(e)}`;
          if (message !== lastError) store.getState().reportError(message, false, "page");
          lastError = message;
        },
      );
  });
}
