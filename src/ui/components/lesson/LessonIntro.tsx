/** Under the header: the chosen experiment in two sentences and the paper figure it mirrors. */
import { useLab } from "../../../store";
import { presetEntry } from "../../../settings/presets";
import { variantLabel } from "../../../settings/variant-meta";

export function LessonIntro() {
  const preset = useLab((s) => s.presetName);
  // A string, not a fresh array: a selector must return the same value for the same state.
  const variants = useLab((s) =>
    (s.sentExperiment ?? s.experiment).variants.map((v) => variantLabel(v.name)).join(" vs "),
  );
  if (!preset)
    return (
      <section
        className="lesson-intro"
        aria-label="About this experiment"
        data-testid="lesson-intro"
      >
        <p>
          <b>Custom experiment:</b> {variants}, as the link or the settings give it. Pick an
          experiment above for one of the papers' setups.
        </p>
      </section>
    );
  const p = presetEntry(preset);
  return (
    <section className="lesson-intro" aria-label="About this experiment" data-testid="lesson-intro">
      <h2>{p.title}</h2>
      <p>
        {p.description} <span className="muted">Mirrors: {p.figure}.</span>
      </p>
    </section>
  );
}
