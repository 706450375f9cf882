/** The Experiment picker: the lab's presets (src/settings/presets.ts), one click each; the choice is in the URL. */
import { useId, useMemo } from "react";
import { labStore, useLab } from "../../../store";
import { editedFromPreset } from "../../../store/lesson";
import { PICKER_PRESETS, presetEntry } from "../../../settings/presets";

/** Value of the option shown for an experiment of no preset. */
const CUSTOM = "";

export function ExperimentPicker() {
  const id = useId();
  const preset = useLab((s) => s.presetName);
  const experiment = useLab((s) => s.experiment);
  const playing = useLab((s) => s.playback !== null);
  // Parsing the preset is not free: once per edit, not once per store update.
  const edited = useMemo(
    () => preset !== null && !playing && editedFromPreset(experiment, preset),
    [preset, experiment, playing],
  );
  return (
    <div className="picker">
      <label htmlFor={id} className="picker-label">
        Experiment
      </label>
      <select
        id={id}
        data-testid="experiment-picker"
        value={preset ?? CUSTOM}
        onChange={(e) => {
          if (e.target.value !== CUSTOM) labStore.getState().pickPreset(e.target.value);
        }}
      >
        {preset === null && <option value={CUSTOM}>Custom (from the link or the settings)</option>}
        {/* A link may name a CLI-only preset (an ablation arm): it is shown too. */}
        {(preset === null || PICKER_PRESETS.includes(preset)
          ? PICKER_PRESETS
          : [...PICKER_PRESETS, preset]
        ).map((n) => (
          <option key={n} value={n}>
            {presetEntry(n).title}
          </option>
        ))}
      </select>
      {edited && (
        <span className="muted small" data-testid="picker-edited">
          edited
        </span>
      )}
    </div>
  );
}
