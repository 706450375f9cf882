/**
 * Runs saved in this browser (IndexedDB): save the live run, load one into
 * the runs table (view), resume one that has a snapshot, delete. The
 * autosave of the live run (src/store/autosave.ts) is listed here too.
 */
import { useCallback, useEffect, useState } from "react";
import { labStore, useLab, hasRunData } from "../../store";
import {
  deleteRun,
  listRuns,
  loadRun,
  onRunsChanged,
  saveRun,
  type SavedRunSummary,
} from "../../store/run-db";
import { decodeSnapshot } from "../../run/snapshot";

/** Reports a saved-run failure on the page (module level: it reads the store, not the component). */
function fail(e: unknown): void {
  labStore
    .getState()
    .reportError(`Saved runs: ${e instanceof Error ? e.message : String(e)}`, false, "page");
}

export function SavedRuns() {
  const [saved, setSaved] = useState<SavedRunSummary[] | null>(null);
  const [busy, setBusy] = useState(false);
  const canSave = useLab((s) => hasRunData(s));
  const overlays = useLab((s) => s.overlays);
  const refresh = useCallback(
    () =>
      listRuns().then(setSaved, (e) => {
        setSaved([]);
        fail(e);
      }),
    [],
  );
  useEffect(() => {
    void refresh();
    return onRunsChanged(() => void refresh());
  }, [refresh]);

  const saveLive = async () => {
    const snap = labStore.getState().snapshot();
    if (!snap) return;
    // The trainer's latest run snapshot makes the saved run resumable (at its step).
    const weights = labStore.getState().runSnapshot;
    setBusy(true);
    try {
      const name = `seed ${snap.experiment.seed} · ${snap.experiment.variants.map((v) => v.name).join(" vs ")} · step ${snap.lastStep}`;
      await saveRun({
        name,
        experiment: snap.experiment,
        lastStep: snap.lastStep,
        lastEval: snap.lastEval,
        metrics: snap.metrics,
        ...(weights ? { snapshot: weights.bytes, snapshotStep: weights.step } : {}),
      });
    } catch (e) {
      fail(e);
    } finally {
      setBusy(false);
    }
  };
  const load = async (key: string) => {
    try {
      const r = await loadRun(key);
      if (!r) return;
      const id = labStore.getState().addRun({
        label: `saved: ${r.name}`,
        experiment: r.experiment,
        lastStep: r.lastStep,
        lastEval: r.lastEval,
        metrics: r.metrics,
      });
      labStore.getState().viewRun(id);
    } catch (e) {
      fail(e);
    }
  };

  /**
   * Resumes a saved run: its snapshot is checked here first (checksum, sizes,
   * finite values), so a damaged one is refused before the live run is touched.
   */
  const resume = async (key: string) => {
    try {
      const r = await loadRun(key);
      if (!r?.snapshot || r.snapshotStep === undefined) return;
      decodeSnapshot(r.snapshot);
      labStore.getState().resumeRun({
        experiment: r.experiment,
        metrics: r.metrics,
        snapshot: r.snapshot,
        snapshotStep: r.snapshotStep,
      });
    } catch (e) {
      fail(e);
    }
  };

  /** Loads a saved run's rows and overlays them on the charts (dotted), or removes the overlay. */
  const overlay = async (r: SavedRunSummary, on: boolean) => {
    const st = labStore.getState();
    if (!on) return st.removeOverlay(`s${r.key}`);
    try {
      const full = await loadRun(r.key);
      if (!full) return;
      st.addOverlay({
        id: `s${r.key}`,
        label: `saved “${r.name}”`,
        experiment: full.experiment,
        markers: full.metrics.markers,
        metrics: full.metrics,
      });
    } catch (e) {
      fail(e);
    }
  };

  return (
    <section className="runs" aria-label="Saved runs">
      <div className="runs-head">
        <h3>Saved in this browser</h3>
        <button
          type="button"
          className="small-btn"
          disabled={!canSave || busy}
          onClick={saveLive}
          title="Store the live run's metrics and settings in IndexedDB"
        >
          Save current run
        </button>
      </div>
      {saved === null ? (
        <p className="muted small">Loading…</p>
      ) : saved.length === 0 ? (
        <p className="muted small">
          Nothing saved yet. Saved runs keep their settings, every metric row (not the rollouts) and
          the weights at their last snapshot, survive a reload and resume.
        </p>
      ) : (
        <ul className="saved-list" data-testid="saved-runs">
          {saved.map((r) => (
            <li key={r.key}>
              <span>{r.name}</span>{" "}
              <span className="muted small">{new Date(r.savedAt).toLocaleString()}</span>{" "}
              <label
                className="overlay-check"
                title="Draw this saved run's curves over the current charts (dotted, named with what differs from the current run)"
              >
                <input
                  type="checkbox"
                  aria-label={`Overlay saved run ${r.name}`}
                  checked={overlays.some((o) => o.id === `s${r.key}`)}
                  onChange={(e) => void overlay(r, e.target.checked)}
                />
                overlay
              </label>
              <button type="button" className="small-btn" onClick={() => load(r.key)}>
                Load
              </button>
              {r.snapshotStep !== undefined && (
                <button
                  type="button"
                  className="small-btn"
                  onClick={() => resume(r.key)}
                  aria-label={`Resume saved run ${r.name}`}
                  title={`Continue training from the weights and optimizer state of step ${r.snapshotStep}`}
                >
                  Resume (step {r.snapshotStep})
                </button>
              )}
              <button
                type="button"
                className="small-btn"
                onClick={() => {
                  labStore.getState().removeOverlay(`s${r.key}`);
                  deleteRun(r.key).then(refresh, fail);
                }}
                aria-label={`Delete saved run ${r.name}`}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
