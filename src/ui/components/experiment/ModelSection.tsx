/** Model size, seed(s) and cold-start (SFT) settings. */
import { useEffect, useId, useState } from "react";
import { useLab, labStore } from "../../../store";
import { ExperimentSchema } from "../../../settings/experiment";
import { parseSeedsText } from "../../lib/url-state";
import { NumberInput, Section, Select, Tip } from "../Field";
import { AdapterNote } from "../AdapterNote";

const update = labStore.getState().updateExperiment;

/**
 * Checks the Seeds text: a list of 2–8 distinct seeds sets Experiment.seeds;
 * one seed sets `seed` (a plain single run); empty text clears the list.
 * @returns the change to apply, or an error message for the field.
 */
export function seedsFromText(
  text: string,
): { seeds: number[] | undefined; seed?: number } | { error: string } {
  let list: number[] | undefined;
  try {
    list = parseSeedsText(text);
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
  if (list === undefined) return { seeds: undefined };
  const r = ExperimentSchema.shape.seeds.safeParse(list);
  if (!r.success) return { error: `seeds: ${r.error.issues.map((i) => i.message).join("; ")}` };
  return list.length === 1 ? { seeds: undefined, seed: list[0] } : { seeds: list };
}

/** Seeds as a comma list; several seeds train every variant once per seed (mean line and 95 % band on the charts). */
function SeedsInput() {
  const seeds = useLab((s) => s.experiment.seeds);
  const shown = seeds?.join(",") ?? "";
  const [text, setText] = useState(shown);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  // The URL or Re-seed changed the list: show it.
  useEffect(() => {
    setText((t) => {
      const r = seedsFromText(t);
      return "error" in r || (r.seeds?.join(",") ?? "") !== shown ? shown : t;
    });
  }, [shown]);
  const onChange = (t: string) => {
    setText(t);
    const r = seedsFromText(t);
    if ("error" in r) return setError(r.error);
    setError(null);
    update((e) => ({ ...e, seeds: r.seeds, seed: r.seed ?? e.seed }));
  };
  return (
    <div className="field text">
      <label htmlFor={id}>
        Seeds{" "}
        <Tip text="Several seeds, e.g. 1,2,3 (up to 8): every variant trains once per seed from the same cold start, on its own prompts, sampling and judge noise. The charts then draw the mean over seeds with a shaded 95 % interval (Student t), so you can tell a real difference from seed luck. Each seed adds a full set of variant steps, so training is that many times slower. Empty: one run with the Seed above." />{" "}
        <span
          className="lab-choice"
          title="The papers do not fix this value; the lab chose it. Change it freely."
        >
          lab choice
        </span>
      </label>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        aria-label="Seeds"
        placeholder="e.g. 1,2,3 (empty: one seed)"
        value={text}
        aria-invalid={error !== null}
        onChange={(e) => onChange(e.target.value)}
      />
      {error && (
        <div className="field-error" role="alert">
          {error}
        </div>
      )}
      {seeds && (
        <div className="muted small">
          {seeds.length} seeds: each variant trains {seeds.length}×.
        </div>
      )}
    </div>
  );
}

export function ModelSection() {
  const modelSize = useLab((s) => s.experiment.modelSize);
  const seed = useLab((s) => s.experiment.seed);
  const sftSteps = useLab((s) => s.experiment.sftSteps);
  return (
    <Section
      title="Model"
      tip="A tiny vision-language model: image patches + question tokens into a small decoder-only transformer, trained entirely on your GPU through WebGPU."
    >
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
      <SeedsInput />
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
