/** Header switches of the view: guided view, settings drawer, presentation size. */
import { labStore, useLab } from "../../../store";

export function ViewToggles() {
  const guide = useLab((s) => s.guideOpen);
  const settings = useLab((s) => s.settingsOpen);
  const presentation = useLab((s) => s.presentation);
  const st = labStore.getState();
  return (
    <div className="view-toggles" role="toolbar" aria-label="View">
      <button
        type="button"
        aria-pressed={guide}
        className={guide ? "chip on" : "chip"}
        onClick={() => st.setGuideOpen(!guide)}
        title="The guided view: what the curves show, as it happens"
      >
        Guide
      </button>
      <button
        type="button"
        aria-pressed={settings}
        aria-controls="settings-drawer"
        className={settings ? "chip on" : "chip"}
        onClick={() => st.setSettingsOpen(!settings)}
        title="Task, variants and their weights, algorithm, model"
      >
        Settings
      </button>
      <button
        type="button"
        aria-pressed={presentation}
        className={presentation ? "chip on" : "chip"}
        onClick={() => st.setPresentation(!presentation)}
        title="Larger text and thicker lines, for a projector"
      >
        Presentation
      </button>
    </div>
  );
}
