/** Phase · step · adapter, always visible. */
import { useLab } from "../../store";

const PHASE_TEXT: Record<string, string> = {
  loading: "loading",
  idle: "ready",
  sft: "SFT (cold start)",
  rl: "training (RL)",
  paused: "paused",
  done: "done",
  error: "error",
};

export function StatusLine() {
  const phase = useLab((s) => s.phase);
  const step = useLab((s) => s.step);
  const total = useLab((s) => s.sentExperiment?.algorithm.steps ?? s.experiment.algorithm.steps);
  const msg = useLab((s) => s.statusMessage);
  const adapter = useLab((s) => s.ready?.adapter);
  const fallback = useLab((s) => s.ready?.isFallback);
  return (
    <div className="status-line" role="status" aria-live="polite" data-testid="status">
      <span className={`phase phase-${phase}`} data-testid="status-phase">
        {PHASE_TEXT[phase] ?? phase}
      </span>
      <span data-testid="status-step">
        step {step} / {total}
      </span>
      <span data-testid="status-adapter">
        adapter: {adapter ? `${adapter}${fallback ? " (fallback)" : ""}` : "…"}
      </span>
      {msg && <span className="muted">{msg}</span>}
    </div>
  );
}
