/** Noise of the lab's rubric-auditor judge (docs/reward-spec.md §2, lab choice), live-editable. */
import { useLab, labStore } from "../../../store";
import type { VariantName } from "../../../rl/experiment";
import { Slider } from "../Field";

export function JudgeSliders({
  name,
  kind,
}: {
  name: VariantName;
  kind: "pointwise" | "groupwise";
}) {
  const judge = useLab((s) => s.experiment.variants.find((x) => x.name === name)?.judge);
  if (!judge) return null;
  const set = (patch: Partial<typeof judge>) =>
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
      <Slider
        label="σ_j (perception noise)"
        name={`${name} σ_j`}
        value={judge.sigmaJ}
        min={0}
        max={0.5}
        step={0.01}
        format={(x) => x.toFixed(2)}
        tip="Per-candidate noise on the judge's score: how well the judge 'sees' each rollout."
        onChange={(sigmaJ) => set({ sigmaJ })}
      />
      <Slider
        label={`σ_b (per-call offset)${kind === "groupwise" ? " · unused: one call per group" : ""}`}
        name={`${name} σ_b`}
        value={judge.sigmaB}
        min={0}
        max={0.5}
        step={0.01}
        format={(x) => x.toFixed(2)}
        tip="Pointwise calls only: each call applies its own calibration offset. This is why pointwise judging is less stable; set it to 0 and the groupwise advantage should vanish."
        onChange={(sigmaB) => set({ sigmaB })}
      />
      <Slider
        label={`δ (tie margin)${kind === "pointwise" ? " · unused: no ranking" : ""}`}
        name={`${name} δ`}
        value={judge.delta}
        min={0}
        max={0.5}
        step={0.01}
        format={(x) => x.toFixed(2)}
        tip="Groupwise calls only: candidates whose noisy scores differ by less than δ share a tier (a tie)."
        onChange={(delta) => set({ delta })}
      />
    </fieldset>
  );
}
