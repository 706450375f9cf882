/** Errors (trainer, worker, page), a bad URL, and pending structural changes. */
import { useLab, labStore, needsInit, hasRunData } from "../../store";

export function ErrorBanner() {
  const errors = useLab((s) => s.errors);
  const urlError = useLab((s) => s.urlError);
  if (errors.length === 0 && !urlError) return null;
  return (
    <div className="banners">
      {urlError && (
        <div className="banner error" role="alert" data-testid="url-error">
          {urlError}
          <button
            type="button"
            onClick={() => labStore.setState({ urlError: null })}
            aria-label="Dismiss link error"
          >
            ×
          </button>
        </div>
      )}
      {errors.slice(-5).map((e) => (
        <div
          key={e.id}
          className={`banner ${e.fatal ? "error" : "warn"}`}
          role="alert"
          data-testid="error"
        >
          <b>
            {e.fatal ? "Error" : "Problem"} ({e.source}):
          </b>{" "}
          {e.message}
          <button
            type="button"
            onClick={() => labStore.getState().dismissError(e.id)}
            aria-label="Dismiss error"
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

export function PendingChangesBanner() {
  // A played recording is not a run the settings could apply to.
  const pending = useLab(
    (s) => s.playback === null && s.sentExperiment !== null && needsInit(s) && hasRunData(s),
  );
  if (!pending) return null;
  return (
    <div className="banner info" data-testid="pending-changes">
      You changed settings that define the run (task, model, variants, algorithm or seed). The
      current run keeps its settings; they apply when you start a new run.
      <button type="button" onClick={() => labStore.getState().reset()}>
        Apply (new run)
      </button>
    </div>
  );
}
