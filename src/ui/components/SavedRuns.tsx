/** Runs saved in this browser (IndexedDB): save the live run, load one into the runs table, delete. */
import { useCallback, useEffect, useState } from "react";
import { labStore, useLab, hasRunData } from "../../store";
import { deleteRun, listRuns, loadRun, saveRun, type SavedRunSummary } from "../../store/run-db";

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
  useEffect(() => void refresh(), [refresh]);

  const saveLive = async () => {
    const snap = labStore.getState().snapshot();
    if (!snap) return;
    setBusy(true);
    try {
      const name = `seed ${snap.experiment.seed} · ${snap.experiment.variants.map((v) => v.name).join(" vs ")} · step ${snap.lastStep}`;
      await saveRun({
        name,
        experiment: snap.experiment,
        lastStep: snap.lastStep,
        lastEval: snap.lastEval,
        metrics: snap.metrics,
      });
      await refresh();
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
          Nothing saved yet. Saved runs keep their settings and every metric row (not the rollouts),
          and survive a reload.
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
