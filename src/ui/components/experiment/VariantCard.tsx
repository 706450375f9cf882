/** One variant: its paper, its formula, the weights / judge noise it reads (live-editable), and a Fork control; all from its variant-table entry. */
import { useState } from "react";
import { useLab, labStore } from "../../../store";
import { findVariant, withPatch } from "../../../settings/experiment";
import { ESTIMATOR_NAMES, ESTIMATOR_TABLE } from "../../../settings/estimator-table";
import {
  retargetWeights,
  variantEntry,
  type VariantName,
  type VariantWeightsOf,
  type WeightKey,
  type WeightValue,
} from "../../../settings/variant-table";
import { sliderRange, weightKeys, weightPatch } from "../../../settings/weight-controls";
import { NumberInput, Select, Slider, Tip } from "../Field";
import { JudgeSliders } from "./JudgeSliders";
import { RewardEditor } from "./RewardEditor";

/** The formula lines of a choice weight set away from the paper's ("mapping EDN: γ^(m−1), …"). */
function choiceFormulaLines<N extends VariantName>(
  name: N,
  weights: VariantWeightsOf<N>,
): string[] {
  const info = variantEntry(name).weightInfo;
  return weightKeys(name).flatMap((key) => {
    const w = info[key];
    if (w.kind !== "choice" || weights[key] === w.paper) return [];
    const o = w.options.find((x) => x.value === weights[key]);
    return o ? [`${key} ${o.value.toUpperCase()}: ${o.formula}`] : [];
  });
}

/**
 * "Fork at step N": a what-if for the weights without a restart. The trainer
 * copies this variant's current parameters and optimizer state into a new
 * branch that trains from the next step with the weights typed here
 * (LabRun.fork); its curve is dashed in this colour and starts at step N.
 */
function ForkBox<N extends VariantName>({ name }: { name: N }) {
  const entry = variantEntry(name);
  const keys = weightKeys(name);
  const weights = useLab((s) => findVariant(s.experiment, name)?.weights);
  const step = useLab((s) => s.step);
  const canFork = useLab(
    (s) =>
      s.ready !== null &&
      !["loading", "error", "sft"].includes(s.phase) &&
      !!s.sentExperiment?.variants.some((x) => x.name === name),
  );
  const [draft, setDraft] = useState<Partial<Record<WeightKey<N>, WeightValue>>>({});
  if (!weights || keys.length === 0) return null;
  const value = (k: WeightKey<N>): WeightValue => draft[k] ?? (weights[k] as WeightValue);
  return (
    <details className="fork-box" data-testid={`fork-${name}`}>
      <summary>
        Fork at step {step}…{" "}
        <Tip text="Branch this variant off at the current step: a copy of its model and optimizer state trains from the next step on beside the others, with the weights you type here, on the same prompts. Its curve is dashed in the same colour and starts where this variant is now, so you see what the weight change alone does." />
      </summary>
      <div className="fork-row">
        {keys.map((w) => {
          const info = entry.weightInfo[w];
          // A written reward's code is not forked: the fork trains the same code.
          if (info.kind === "code") return null;
          // The fork takes the schema's whole range (the slider may show less).
          const range = entry.ranges[w];
          return info.kind === "choice" ? (
            <Select
              key={w}
              label={w}
              name={`${name} fork ${w}`}
              value={String(value(w))}
              options={info.options.map((m) => ({ value: m.value, label: m.value.toUpperCase() }))}
              onChange={(x) => setDraft((d) => ({ ...d, [w]: x }))}
            />
          ) : (
            <NumberInput
              key={w}
              label={info.short}
              name={`${name} fork ${w}`}
              value={Number(value(w))}
              min={range.min}
              max={range.max}
              step={range.integer ? 1 : 0.05}
              onChange={(x) => setDraft((d) => ({ ...d, [w]: x }))}
            />
          );
        })}
        <button
          type="button"
          className="small-btn"
          disabled={!canFork}
          title={
            canFork
              ? `Fork ${entry.label} at step ${step} with these weights`
              : "Start the run first (Train or Step)"
          }
          onClick={() =>
            labStore.getState().fork(name, Object.fromEntries(keys.map((w) => [w, value(w)])))
          }
        >
          Fork
        </button>
      </div>
    </details>
  );
}

/**
 * "Export ONNX": downloads this variant's current policy (its first seed's
 * weights at the last step boundary) as an ONNX file, written in the trainer
 * worker (src/workers/onnx-export.ts), where the weights are.
 */
function ExportOnnxButton({ name }: { name: VariantName }) {
  const canExport = useLab(
    (s) =>
      s.ready !== null &&
      !["loading", "error"].includes(s.phase) &&
      !!s.sentExperiment?.variants.some((x) => x.name === name),
  );
  return (
    <button
      type="button"
      className="small-btn"
      data-testid={`export-onnx-${name}`}
      disabled={!canExport}
      title={
        canExport
          ? "Download this variant's current policy as an ONNX model (opset 17; inputs images and tokens, output logits)"
          : "Start the run first (Train or Step)"
      }
      onClick={() => labStore.getState().exportOnnx(name)}
    >
      Export ONNX
    </button>
  );
}

/** The card of variant `name` in the experiment panel (nothing when the experiment does not train it). */
export function VariantCard<N extends VariantName>({ name }: { name: N }) {
  const v = useLab((s) => findVariant(s.experiment, name));
  if (!v) return null;
  const entry = variantEntry(name);
  // The slider and the choice write N's weights (WeightPatch<N>); the trainer's entry checks them.
  const setW = (key: WeightKey<N>, value: WeightValue) =>
    labStore.getState().setVariantWeights(name, weightPatch(name, key, value));
  const keys = weightKeys(name);
  const ownEstimator = entry.estimator && ESTIMATOR_TABLE[entry.estimator];
  return (
    <div
      className="variant-card"
      data-testid={`variant-${name}`}
      style={{ borderLeftColor: entry.color }}
    >
      <div className="variant-title">
        <span className="swatch" style={{ background: entry.color }} />
        <b>{entry.label}</b> <code className="muted">{name}</code>
      </div>
      <div className="paper">
        {entry.source.paper}: {entry.source.where}
      </div>
      <figure aria-label={`${entry.label} formula`} style={{ margin: 0 }}>
        <pre className="formula">
          {[...entry.formula, ...choiceFormulaLines(name, v.weights)].join("\n")}
        </pre>
      </figure>
      <p className="blurb">{entry.blurb}</p>
      {keys.length === 0 && (
        <p className="muted small">No weights: the reward is the verifier alone.</p>
      )}
      {keys.map((w) => {
        const info = entry.weightInfo[w];
        if (info.kind === "code") return <RewardEditor key={w} name={name} weight={w} />;
        return info.kind === "choice" ? (
          <Select
            key={w}
            label={info.label}
            name={`${name} ${w}`}
            value={String(v.weights[w])}
            options={info.options.map((m) => ({ value: m.value, label: m.label }))}
            tip={info.tip}
            onChange={(x) => setW(w, x)}
          />
        ) : (
          <Slider
            key={w}
            label={info.label}
            name={`${name} ${info.label}`}
            value={Number(v.weights[w])}
            {...sliderRange(name, w)}
            format={(x) => (sliderRange(name, w).step === 1 ? String(x) : x.toFixed(2))}
            tip={`${info.tip} Changes apply live, from the next step (a marker appears on the charts).`}
            onChange={(x) => setW(w, x)}
          />
        );
      })}
      {entry.judge !== "none" && <JudgeSliders name={name} kind={entry.judge} />}
      <ForkBox name={name} />
      <ExportOnnxButton name={name} />
      <Select
        label="Estimator override"
        name={`${name} estimator override`}
        value={v.estimator ?? ""}
        options={[
          { value: "", label: "(use the algorithm's)" },
          ...ESTIMATOR_NAMES.map((e) => ({ value: e, label: e })),
        ]}
        tip={
          ownEstimator
            ? `${entry.label} trains with ${ownEstimator.label} by default (${ownEstimator.source}).`
            : "Train this variant with a different advantage estimator."
        }
        onChange={(est) =>
          labStore.getState().updateExperiment((e) => ({
            ...e,
            variants: e.variants.map((x) => {
              if (x.name !== name) return x;
              const estimator = est === "" ? undefined : est;
              // Weights that follow the estimator (SCS's k, m; SCS Tab. 6–9) move with it unless changed.
              const to = estimator ?? entry.estimator ?? e.algorithm.estimator;
              const from = x.estimator ?? e.algorithm.estimator;
              const weights = retargetWeights(x.name, x.weights, from, to);
              return { ...withPatch(x, { weights }), estimator };
            }),
          }))
        }
      />
    </div>
  );
}
