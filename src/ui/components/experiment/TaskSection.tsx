/** Task family and the knobs a teacher can turn (docs/design.md "Tasks"). */
import { useLab, labStore } from "../../../store";
import { variantDefaults, type Experiment } from "../../../settings/experiment";
import { needsOptions } from "../../../settings/variant-table";
import { Section, Select, Slider } from "../Field";

type Task = Experiment["task"];

const setTask = (patch: Partial<Task>) =>
  labStore.getState().updateExperiment((e) => ({ ...e, task: { ...e.task, ...patch } }));

/** Switches the family; the digits-only knobs (misreads, off-misread distractors, the faint digit) go back to off elsewhere. */
function setFamily(family: Task["family"]) {
  setTask(
    family === "digits"
      ? { family }
      : { family, misreadRate: 0, distractorRule: "near", faintContrast: 1 },
  );
}

/**
 * Switches the answer format; open-ended drops the variants that re-ask with
 * shuffled options (ACRE) and the letter binding (nothing to bind to).
 */
function setAnswerFormat(multipleChoice: boolean) {
  labStore.getState().updateExperiment((e) => {
    const task = { ...e.task, multipleChoice, ...(multipleChoice ? {} : { indexBindingRate: 0 }) };
    if (multipleChoice) return { ...e, task };
    const kept = e.variants.filter((v) => !needsOptions(v.name));
    return { ...e, task, variants: kept.length > 0 ? kept : [variantDefaults("rlvr")] };
  });
}

export function TaskSection() {
  const task = useLab((s) => s.experiment.task);
  return (
    <Section
      title="Task"
      tip="Seeded synthetic visual questions. Every prompt knows its true intermediate values, so rewards and metrics can audit the reasoning."
    >
      <Select
        label="Family"
        value={task.family}
        options={[
          { value: "digits", label: "Digit arithmetic (real MNIST digits)" },
          { value: "shapes", label: "Shape arithmetic (coloured shapes)" },
          { value: "bars", label: "Bar chart (bar heights)" },
        ]}
        onChange={setFamily}
      />
      <Select
        label="Answer format"
        value={task.multipleChoice ? "mc" : "open"}
        options={[
          { value: "mc", label: "Multiple choice (A–D)" },
          { value: "open", label: "Open-ended (a number)" },
        ]}
        onChange={(v) => setAnswerFormat(v === "mc")}
      />
      <Slider
        label="Answer hint"
        value={task.hintRate}
        min={0}
        max={1}
        step={0.05}
        format={(v) => v.toFixed(2)}
        tip="Share of questions that leak the answer as '<answer> h </answer>'. Outcome-only RL pays a copied answer in full even when the steps are wrong, so the steps can drift from the answer (watch IncR and CBIR); at 0 there is no shortcut."
        onChange={(hintRate) => setTask({ hintRate })}
      />
      <Slider
        label="Hint accuracy"
        value={task.hintAccuracy}
        min={0}
        max={1}
        step={0.05}
        format={(v) => v.toFixed(2)}
        tip="Probability that a leaked hint is the right answer (else a near miss). Below 1, 'Hint follow' shows how often the policy copies a wrong hint."
        onChange={(hintAccuracy) => setTask({ hintAccuracy })}
      />
      <Slider
        label="Cold-start trace slips"
        value={task.traceSlipRate}
        min={0}
        max={1}
        step={0.05}
        format={(v) => v.toFixed(2)}
        tip="Share of the SFT traces whose last step concludes a near miss while the final answer stays right, so the cold start, like the papers' base models, sometimes answers against its own steps. Picks the cold start: 0.30 is shipped for the small model; any other value trains its own cold start first."
        onChange={(traceSlipRate) => setTask({ traceSlipRate })}
      />
      <Select
        label="Slipped traces answer"
        value={task.traceSlipBox}
        options={[
          { value: "answer", label: "the right answer" },
          { value: "hint", label: "the hint (a shortcut)" },
          { value: "step", label: "the slipped step (wrong)" },
        ]}
        tip="What the final box of a slipped SFT trace holds. 'The hint': the slip is a shortcut (sloppy last step, answer copied from the leaked hint), which outcome-only RL pays in full while an honest trace is paid only when the digits were read right. Picks the cold start with the slip rate."
        onChange={(traceSlipBox) => setTask({ traceSlipBox })}
      />
      {task.family === "digits" && (
        <Slider
          label="Cold-start misreads"
          value={task.misreadRate}
          min={0}
          max={1}
          step={0.05}
          format={(v) => v.toFixed(2)}
          tip="Share of the SFT traces that misread one digit and follow it through; in multiple choice their result is no option, so they mark every option Incorrect and guess the letter: a quarter are right by luck (SCS's lucky guesses). Watch the lucky-guess rate and the distinct options. Picks the cold start: 0.40 is shipped for the small model (preset scs-paper); any other value trains its own cold start first."
          onChange={(misreadRate) => setTask({ misreadRate })}
        />
      )}
      {task.family === "digits" && (
        <Select
          label="Distractors"
          value={task.distractorRule}
          options={[
            { value: "near", label: "near the answer" },
            { value: "off-misread", label: "near, but no value a misread digit gives" },
          ]}
          tip="Off-misread: no wrong option is what a trace that misreads one digit would conclude, so a faulty trace finds its result among no option and must guess (the SCS scenario)."
          onChange={(distractorRule) => setTask({ distractorRule })}
        />
      )}
      {task.multipleChoice && (
        <Slider
          label="Cold-start letter binding"
          value={task.indexBindingRate}
          min={0}
          max={1}
          step={0.05}
          format={(v) => v.toFixed(2)}
          tip="Share of the SFT traces that check the options inside the reasoning and name the letter there ('… is C </think>'), as supervised traces that conclude 'thus the answer is (C)' do (ACRE §3.3). Asked again with the options shuffled and the same reasoning, such a policy repeats the letter: OSCR falls. Picks the cold start: 0.80 is shipped for the small model (preset acre-paper); any other value trains its own cold start first."
          onChange={(indexBindingRate) => setTask({ indexBindingRate })}
        />
      )}
      <Slider
        label="Option-position skew"
        value={task.optionSkew}
        min={0}
        max={1}
        step={0.05}
        format={(v) => v.toFixed(2)}
        tip="Probability that the correct option of a training prompt is A (the held-out set is never skewed). Above 0.25 the policy can learn a shortcut ('always answer A') instead of reading the image, an option-index prior of the kind ACRE §1 names."
        onChange={(optionSkew) => setTask({ optionSkew })}
      />
      <Slider
        label="Distractor closeness"
        value={task.distractorCloseness}
        min={0}
        max={1}
        step={0.05}
        format={(v) => v.toFixed(2)}
        tip="How close the wrong options are to the right one: 1 = near misses (±1), 0 = far off."
        onChange={(distractorCloseness) => setTask({ distractorCloseness })}
      />
      <Select
        label="Number of digits"
        value={String(task.numDigits) as "2" | "3"}
        options={[
          { value: "2", label: "2 digits" },
          { value: "3", label: "3 digits" },
        ]}
        tip="Digit-arithmetic images show this many handwritten digits side by side."
        onChange={(v) => setTask({ numDigits: Number(v) })}
      />
    </Section>
  );
}
