/** One variant: its paper, its formula, the weights / judge noise it reads (live-editable), and a Fork control. */
import { useState } from "react";
import { useLab, labStore } from "../../../store";
import { ESTIMATORS, type VariantName, type VariantWeights } from "../../../rl/experiment";
import { MAPPINGS, VARIANT_META } from "../../lib/variant-meta";
import { NumberInput, Select, Slider, Tip } from "../Field";
import { JudgeSliders } from "./JudgeSliders";

const WEIGHT_INFO = {
  lambda: {
    label: "λ (auxiliary weight)",
    tip: "Weight of the reasoning term added to the verifier reward. Paper value 1.",
    max: 3,
  },
  fmt: { label: "λ_fmt (format)", tip: "Weight of R_fmt. Paper value 0.10.", max: 1 },
  right: { label: "λ_right (answer)", tip: "Weight of R_right. Paper value 0.25.", max: 1 },
  rule: {
    label: "λ_rule (steps)",
    tip: "Weight of R_right·R_rule: matched reference steps count only when the answer is right. Paper value 0.75.",
    max: 2,
  },
  cons: {
    label: "λ_cons (consistency)",
    tip: "Bonus factor (1 + λ_cons·R_cons) when the final answer equals the last step's result. Paper value 0.15.",
    max: 1,
  },
} as const;

/**
 * "Fork at step N": a what-if for the weights without a restart. The trainer
 * copies this variant's current parameters and optimizer state into a new
 * branch that trains from the next step with the weights typed here
 * (LabRun.fork); its curve is dashed in this colour and starts at step N.
 */
function ForkBox({ name }: { name: VariantName }) {
  const meta = VARIANT_META[name];
  const weights = useLab((s) => s.experiment.variants.find((x) => x.name === name)?.weights);
  const step = useLab((s) => s.step);
  const canFork = useLab(
    (s) =>
      s.ready !== null &&
      !["loading", "error", "sft"].includes(s.phase) &&
      !!s.sentExperiment?.variants.some((x) => x.name === name),
  );
  const [draft, setDraft] = useState<Partial<VariantWeights>>({});
  if (!weights || meta.weights.length === 0) return null;
  const value = <K extends keyof VariantWeights>(k: K): VariantWeights[K] =>
    (draft[k] ?? weights[k]) as VariantWeights[K];
  return (
    <details className="fork-box" data-testid={`fork-${name}`}>
      <summary>
        Fork at step {step}…{" "}
        <Tip text="Branch this variant off at the current step: a copy of its model and optimizer state trains from the next step on beside the others, with the weights you type here, on the same prompts. Its curve is dashed in the same colour and starts where this variant is now, so you see what the weight change alone does." />
      </summary>
      <div className="fork-row">
        {meta.weights.map((w) =>
          w === "mapping" ? (
            <Select
              key={w}
              label="mapping"
              name={`${name} fork mapping`}
              value={value("mapping")}
              options={MAPPINGS.map((m) => ({ value: m.value, label: m.value.toUpperCase() }))}
              onChange={(mapping) => setDraft((d) => ({ ...d, mapping }))}
            />
          ) : (
            <NumberInput
              key={w}
              label={WEIGHT_INFO[w].label.split(" ")[0]}
              name={`${name} fork ${w}`}
              value={value(w)}
              min={0}
              max={10}
              step={0.05}
              onChange={(x) => setDraft((d) => ({ ...d, [w]: x }))}
            />
          ),
        )}
        <button
          type="button"
          className="small-btn"
          disabled={!canFork}
          title={
            canFork
              ? `Fork ${meta.label} at step ${step} with these weights`
              : "Start the run first (Train or Step)"
          }
          onClick={() =>
            labStore
              .getState()
              .fork(
                name,
                Object.fromEntries(
                  meta.weights.map((w) => [w, value(w)]),
                ) as Partial<VariantWeights>,
              )
          }
        >
          Fork
        </button>
      </div>
    </details>
  );
}

export function VariantCard({ name }: { name: VariantName }) {
  const v = useLab((s) => s.experiment.variants.find((x) => x.name === name));
  if (!v) return null;
  const meta = VARIANT_META[name];
  const setW = labStore.getState().setVariantWeights;
  const mapping = MAPPINGS.find((m) => m.value === v.weights.mapping);
  return (
    <div
      className="variant-card"
      data-testid={`variant-${name}`}
      style={{ borderLeftColor: meta.color }}
    >
      <div className="variant-title">
        <span className="swatch" style={{ background: meta.color }} />
        <b>{meta.label}</b> <code className="muted">{name}</code>
      </div>
      <div className="paper">{meta.paper}</div>
      <pre className="formula" aria-label={`${meta.label} formula`}>
        {meta.formula.join("\n")}
        {name === "grr" && mapping && mapping.value !== "pcs"
          ? `\nmapping ${mapping.value.toUpperCase()}: ${mapping.formula}`
          : ""}
      </pre>
      <p className="blurb">{meta.blurb}</p>
      {meta.weights.length === 0 && (
        <p className="muted small">No weights: the reward is the verifier alone.</p>
      )}
      {meta.weights.map((w) =>
        w === "mapping" ? (
          <Select
            key={w}
            label="GRR tier → score mapping"
            name={`${name} mapping`}
            value={v.weights.mapping}
            options={MAPPINGS.map((m) => ({ value: m.value, label: m.label }))}
            tip="How judge tiers become scores. PCS is the paper's; EDN, TRS, IRN are its ablations. All are centred over the passed rollouts."
            onChange={(mapping) => setW(name, { mapping })}
          />
        ) : (
          <Slider
            key={w}
            label={WEIGHT_INFO[w].label}
            name={`${name} ${WEIGHT_INFO[w].label}`}
            value={v.weights[w]}
            min={0}
            max={WEIGHT_INFO[w].max}
            step={0.01}
            format={(x) => x.toFixed(2)}
            tip={`${WEIGHT_INFO[w].tip} Changes apply live, from the next step (a marker appears on the charts).`}
            onChange={(x) => setW(name, { [w]: x })}
          />
        ),
      )}
      {meta.judge !== "none" && <JudgeSliders name={name} kind={meta.judge} />}
      <ForkBox name={name} />
      <Select
        label="Estimator override"
        name={`${name} estimator override`}
        value={v.estimator ?? ""}
        options={[
          { value: "", label: "(use the algorithm's)" },
          ...ESTIMATORS.map((e) => ({ value: e, label: e })),
        ]}
        tip={
          name === "structreward"
            ? "The StructReward paper trains with GRPO-stable."
            : "Train this variant with a different advantage estimator."
        }
        onChange={(est) =>
          labStore.getState().updateExperiment((e) => ({
            ...e,
            variants: e.variants.map((x) =>
              x.name === name ? { ...x, estimator: est === "" ? undefined : est } : x,
            ),
          }))
        }
      />
    </div>
  );
}
