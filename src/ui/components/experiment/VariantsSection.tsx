/** Which reward variants train side by side (each from the same SFT checkpoint). */
import { useLab, labStore } from "../../../store";
import { MAX_VARIANTS, variantDefaults } from "../../../settings/experiment";
import {
  needsOptions,
  VARIANT_NAMES,
  VARIANT_TABLE,
  type VariantName,
} from "../../../settings/variant-table";
import { Section } from "../Field";
import { VariantCard } from "./VariantCard";

function toggle(name: VariantName, on: boolean) {
  labStore.getState().updateExperiment((e) => {
    const has = e.variants.some((v) => v.name === name);
    if (on && !has) {
      const added = e.variants.concat(variantDefaults(name));
      // Keep the canonical order so colours and the URL stay stable.
      added.sort((a, b) => VARIANT_NAMES.indexOf(a.name) - VARIANT_NAMES.indexOf(b.name));
      return { ...e, variants: added };
    }
    if (!on && has && e.variants.length > 1)
      return { ...e, variants: e.variants.filter((v) => v.name !== name) };
    return e;
  });
}

/** The variant checkboxes (one per variant-table entry, in table order) and the chosen variants' cards. */
export function VariantsSection() {
  const variants = useLab((s) => s.experiment.variants);
  const multipleChoice = useLab((s) => s.experiment.task.multipleChoice);
  const chosen = new Set(variants.map((v) => v.name));
  const full = chosen.size >= MAX_VARIANTS;
  return (
    <Section
      title="Reward variants to compare"
      tip="Each checked variant trains its own copy of the model from the same cold-start checkpoint, on the same prompts, so the curves are comparable step for step."
    >
      <fieldset className="variant-checks" aria-label="Variants to compare">
        {VARIANT_TABLE.map(({ name: n, label, color }) => (
          <label
            key={n}
            className="variant-check"
            style={{ borderColor: color }}
            title={
              !multipleChoice && needsOptions(n)
                ? `${label} re-asks with the options shuffled: choose the multiple-choice answer format first`
                : undefined
            }
          >
            <input
              type="checkbox"
              aria-label={`Compare ${label} (${n})`}
              data-variant={n}
              checked={chosen.has(n)}
              disabled={
                chosen.has(n) ? chosen.size === 1 : full || (!multipleChoice && needsOptions(n))
              }
              onChange={(e) => toggle(n, e.target.checked)}
            />
            <span className="swatch" style={{ background: color }} />
            {label}
          </label>
        ))}
      </fieldset>
      {variants.map((v) => (
        <VariantCard key={v.name} name={v.name} />
      ))}
    </Section>
  );
}
