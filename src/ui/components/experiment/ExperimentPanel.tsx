/** The left-hand panel: everything that defines an experiment. */
import { TaskSection } from "./TaskSection";
import { ModelSection } from "./ModelSection";
import { VariantsSection } from "./VariantsSection";
import { AlgorithmSection } from "./AlgorithmSection";

export function ExperimentPanel() {
  return (
    <aside className="experiment-panel" aria-label="Experiment">
      <h2>Experiment</h2>
      <p className="muted small">
        Weights and judge noise apply live, from the next step. Task, model, variants and algorithm
        start a new run (on Train before any step, or on Reset).
      </p>
      <VariantsSection />
      <TaskSection />
      <AlgorithmSection />
      <ModelSection />
    </aside>
  );
}
