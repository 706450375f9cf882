/** Advantage estimator and policy-gradient options (docs/reward-spec.md §1). */
import { useLab, labStore } from "../../../store";
import { AGGREGATIONS, type AlgorithmConfig } from "../../../settings/experiment";
import { ADVANTAGE_PRESETS } from "../../../settings/estimator-table";
import { ESTIMATOR_NAMES, ESTIMATOR_TABLE } from "../../../settings/estimator-table";
import { NumberInput, Section, Select, Slider } from "../Field";

const set = (patch: Partial<AlgorithmConfig>) =>
  labStore.getState().updateExperiment((e) => ({ ...e, algorithm: { ...e.algorithm, ...patch } }));

/** The libraries' names as they write them, on the preset buttons. */
const PRESET_LABELS: Record<keyof typeof ADVANTAGE_PRESETS, string> = {
  verl: "verl",
  trl: "TRL",
  openrlhf: "OpenRLHF",
};
const PRESETS = Object.entries(ADVANTAGE_PRESETS).map(([key, p]) => ({
  name: PRESET_LABELS[key as keyof typeof ADVANTAGE_PRESETS],
  ...p,
}));

export function AlgorithmSection() {
  const a = useLab((s) => s.experiment.algorithm);
  const evalTemperature = useLab((s) => s.experiment.evalTemperature);
  const info = ESTIMATOR_TABLE[a.estimator];
  return (
    <Section
      title="Algorithm"
      tip="How rewards become advantages, and the clipped policy-gradient loss with a KL pull towards the cold-start model."
    >
      <Select
        label="Advantage estimator"
        value={a.estimator}
        options={ESTIMATOR_NAMES.map((e) => ({ value: e, label: ESTIMATOR_TABLE[e].label }))}
        onChange={(estimator) => set({ estimator })}
      />
      <pre className="formula">
        {info.formula}
        {"\n"}
        <span className="muted">from {info.source}</span>
      </pre>
      <div className="presets">
        <span className="muted small">std / ε_A preset:</span>
        {PRESETS.map((p) => (
          <button
            key={p.name}
            type="button"
            className={a.std === p.std && a.eps === p.eps ? "chip on" : "chip"}
            onClick={() => set({ std: p.std, eps: p.eps })}
          >
            {p.name}
          </button>
        ))}
      </div>
      <Select
        label="Std kind σ"
        value={a.std}
        labChoice
        options={[
          { value: "sample", label: "sample (n−1, unbiased)" },
          { value: "population", label: "population (n)" },
        ]}
        tip="The papers do not say which std; the libraries differ. Lab default: unbiased, as verl."
        onChange={(std) => set({ std })}
      />
      <NumberInput
        label="ε_A"
        value={a.eps}
        min={0}
        max={1}
        labChoice
        tip={`Added to σ so a near-zero-std group does not blow up. ${PRESETS.map((p) => `${p.name} ${p.eps.toExponential()}`).join(", ")}.`}
        onChange={(eps) => set({ eps })}
      />
      <Slider
        label="Clip ε"
        value={a.clipEps}
        min={0.05}
        max={0.5}
        step={0.01}
        format={(x) => x.toFixed(2)}
        tip="PPO-style ratio clip: ρ stays in [1−ε, 1+ε]. Papers use 0.2."
        onChange={(clipEps) => set({ clipEps })}
      />
      <NumberInput
        label="KL β"
        value={a.beta}
        min={0}
        max={1}
        tip="Weight of KL(π_θ ‖ π_ref) in the loss. GRR 1e-2, StructReward 1e-3."
        onChange={(beta) => set({ beta })}
      />
      <Select
        label="Loss aggregation"
        value={a.aggregation}
        options={AGGREGATIONS.map((g) => ({
          value: g,
          label:
            g === "seq-mean-token-mean"
              ? "seq-mean-token-mean (papers)"
              : g === "token-mean"
                ? "token-mean (DAPO)"
                : "seq-mean-token-sum-norm (Dr. GRPO)",
        }))}
        tip="How per-token losses are averaged: per sequence then over sequences (papers), over all tokens (DAPO), or with a constant length (Dr. GRPO)."
        onChange={(aggregation) => set({ aggregation })}
      />
      <NumberInput
        label="Learning rate"
        value={a.lr}
        min={0}
        max={1}
        labChoice
        tip="AdamW learning rate for RL. The papers' 1e-6 is for 7B models; the tiny model needs more."
        onChange={(lr) => set({ lr })}
      />
      <NumberInput
        label="Group size G"
        value={a.groupSize}
        min={1}
        max={64}
        integer
        tip="Rollouts sampled per prompt. Advantages compare rollouts within a group. Papers: 8 (SCS 16)."
        onChange={(groupSize) => set({ groupSize })}
      />
      <NumberInput
        label="Prompts per step"
        value={a.batchPrompts}
        min={1}
        max={64}
        integer
        tip="Prompts (groups) per RL step."
        onChange={(batchPrompts) => set({ batchPrompts })}
      />
      <NumberInput
        label="Steps"
        value={a.steps}
        min={1}
        max={100000}
        integer
        onChange={(steps) => set({ steps })}
      />
      <NumberInput
        label="Eval every"
        value={a.evalEvery}
        min={1}
        integer
        tip="Every E steps: the held-out set is answered (see Eval decoding) → Acc, RC-Acc, IncR, CBIR, CACR."
        onChange={(evalEvery) => set({ evalEvery })}
      />
      <Select
        label="Eval decoding"
        value={evalTemperature === 0 ? "greedy" : "sampled"}
        options={[
          { value: "sampled", label: "Sampled (τ = 1, one fixed stream per seed)" },
          { value: "greedy", label: "Greedy" },
        ]}
        tip="How the held-out set is answered. Sampled (the default) measures the policy's distribution, which RL moves first: the cold start's traces contradict their answer in about a third of its samples, which greedy decoding hides (greedy IncR 0.02, sampled 0.40)."
        onChange={(v) =>
          labStore
            .getState()
            .updateExperiment((e) => ({ ...e, evalTemperature: v === "greedy" ? 0 : 1 }))
        }
      />
      <Slider
        label="Temperature"
        value={a.temperature}
        min={0.1}
        max={2}
        step={0.05}
        format={(x) => x.toFixed(2)}
        tip="Sampling temperature τ of the rollouts (papers: 1). The loss uses softmax(logits/τ) too, as verl does; τ > 1 explores more when the SFT model is very sure."
        onChange={(temperature) => set({ temperature })}
      />
    </Section>
  );
}
