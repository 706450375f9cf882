/** Model size, seed and cold-start (SFT) settings. */
import { useLab, labStore } from "../../../store";
import { NumberInput, Section, Select } from "../Field";
import { AdapterNote } from "../AdapterNote";

const update = labStore.getState().updateExperiment;

export function ModelSection() {
  const modelSize = useLab((s) => s.experiment.modelSize);
  const seed = useLab((s) => s.experiment.seed);
  const sftSteps = useLab((s) => s.experiment.sftSteps);
  return (
    <Section title="Model" tip="A tiny vision-language model: image patches + question tokens into a small decoder-only transformer, trained entirely on your GPU through WebGPU.">
      <Select
        label="Model size"
        value={modelSize}
        options={[
          { value: "default", label: "default (d = 128, 4 layers)" },
          { value: "small", label: "small (for CPU / software adapters)" },
        ]}
        onChange={(v) => update((e) => ({ ...e, modelSize: v }))}
      />
      <AdapterNote />
      <NumberInput
        label="Seed"
        value={seed}
        min={0}
        max={2 ** 31 - 1}
        integer
        tip="Fixes the initial weights, the prompts and the held-out eval set. Same seed + same settings = same run."
        onChange={(v) => update((e) => ({ ...e, seed: v }))}
      />
      <NumberInput
        label="Cold-start SFT steps"
        value={sftSteps}
        min={0}
        integer
        tip="Supervised steps on reference solutions before RL (used by 'Run SFT from scratch'). All variants start from the same SFT checkpoint."
        onChange={(v) => update((e) => ({ ...e, sftSteps: v }))}
      />
    </Section>
  );
}
