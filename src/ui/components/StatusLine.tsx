/** Phase · step · adapter · threads, always visible (a recording's step while one plays). */
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

/**
 * Whether the page's workers may run onnxruntime-web with several threads
 * (the PRM, the ONNX export): only where the page is cross-origin isolated
 * (COOP/COEP headers; SharedArrayBuffer), else one thread.
 */
function threadsText(isolated: boolean): string {
  return isolated
    ? "threads: several (cross-origin isolated)"
    : "threads: one (not cross-origin isolated)";
}

export function StatusLine() {
  const phase = useLab((s) => s.phase);
  const step = useLab((s) => s.step);
  const total = useLab((s) => s.sentExperiment?.algorithm.steps ?? s.experiment.algorithm.steps);
  const msg = useLab((s) => s.statusMessage);
  const adapter = useLab((s) => s.ready?.adapter);
  const fallback = useLab((s) => s.ready?.isFallback);
  const playback = useLab((s) => s.playback);
  const noTraining = useLab((s) => s.noTraining);
  const isolated = typeof crossOriginIsolated !== "undefined" && crossOriginIsolated;
  if (noTraining)
    return (
      <div className="status-line" role="status" aria-live="polite" data-testid="status">
        <span className="phase phase-paused" data-testid="status-phase">
          {playback ? (playback.playing ? "playing a recording" : "recording paused") : "loading"}
        </span>
        <span data-testid="status-step">
          step {playback?.step ?? 0} / {playback?.steps[playback.steps.length - 1] ?? 0}
        </span>
        <span data-testid="status-adapter">adapter: none ({noTraining})</span>
      </div>
    );
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
      <span
        data-testid="status-threads"
        title="onnxruntime-web (the learned PRM, Export ONNX) runs with several threads only where the page is cross-origin isolated"
      >
        {threadsText(isolated)}
      </span>
      {msg && <span className="muted">{msg}</span>}
    </div>
  );
}
