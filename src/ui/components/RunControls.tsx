/** Train/Pause, Step, Reset, Re-seed, Run SFT from scratch. */
import { useLab, labStore, RUNNING_PHASES } from "../../store";

export function RunControls() {
  const phase = useLab((s) => s.phase);
  const running = RUNNING_PHASES.has(phase);
  const st = labStore.getState();
  return (
    <div className="run-controls" role="toolbar" aria-label="Run controls">
      {running ? (
        <button
          type="button"
          className="primary"
          onClick={() => st.pause()}
          title="Pause after the current step"
        >
          Pause
        </button>
      ) : (
        <button
          type="button"
          className="primary"
          onClick={() => st.train()}
          title="Train all checked variants, step after step"
          disabled={phase === "error"}
        >
          Train
        </button>
      )}
      <button
        type="button"
        onClick={() => st.stepOnce()}
        disabled={running || phase === "error"}
        title="Run exactly one RL step"
      >
        Step
      </button>
      <button
        type="button"
        onClick={() => st.reset()}
        title="Back to step 0 with the SAME initial weights and prompts (the seed is kept)"
      >
        Reset
      </button>
      <button
        type="button"
        onClick={() => st.reseed()}
        title="Back to step 0 with a new random seed: new prompts, sampling and judge noise (the cold-start weights stay the same)"
      >
        Re-seed
      </button>
      <button
        type="button"
        onClick={() => st.runSft()}
        disabled={running}
        title="Train the cold-start model with supervised fine-tuning on reference solutions, from random weights"
      >
        Run SFT from scratch
      </button>
    </div>
  );
}
