/** Noise of the lab's rubric-auditor judge (docs/reward-spec.md §2, lab choice), live-editable; fields from the variant table's JUDGE_FIELDS. */
import { useLab, labStore } from "../../../store";
import type { JudgeConfig } from "../../../settings/experiment";
import {
  JUDGE_FIELDS,
  JUDGE_RANGES,
  type JudgeNoiseKey,
  type VariantName,
} from "../../../settings/variant-table";
import { Slider } from "../Field";

const UNUSED: Record<"pointwise" | "groupwise", string> = {
  pointwise: "unused: no ranking",
  groupwise: "unused: one call per group",
};

/** One slider per judge setting; a setting this variant's judge calls do not read says so. */
export function JudgeSliders({
  name,
  kind,
}: {
  name: VariantName;
  kind: "pointwise" | "groupwise";
}) {
  const judge = useLab((s) => s.experiment.variants.find((x) => x.name === name)?.judge);
  if (!judge) return null;
  const set = (patch: Partial<JudgeConfig>) =>
    labStore.getState().setVariantWeights(name, {}, patch);
  return (
    <fieldset className="judge">
      <legend>
        Judge noise{" "}
        <span
          className="lab-choice"
          title="No LLM runs in the browser: the judge is a rubric auditor with explicit noise that models a real judge."
        >
          lab choice
        </span>
      </legend>
      {(Object.keys(JUDGE_FIELDS) as JudgeNoiseKey[]).map((k) => {
        const f = JUDGE_FIELDS[k];
        return (
          <Slider
            key={k}
            label={`${f.label}${f.usedBy.includes(kind) ? "" : ` · ${UNUSED[kind]}`}`}
            name={`${name} ${f.short}`}
            value={judge[k]}
            min={JUDGE_RANGES[k].min}
            max={f.pageMax}
            step={0.01}
            format={(x) => x.toFixed(2)}
            tip={f.tip}
            onChange={(x) => set({ [k]: x })}
          />
        );
      })}
    </fieldset>
  );
}
