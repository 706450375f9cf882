/**
 * Where the page cannot train (no WebGPU): one line saying so, and the
 * recording's controls (play, pause, scrub) in place of Train; the charts,
 * inspector and guided view show the recording up to the scrubbed step.
 */
import { useEffect, useId } from "react";
import { labStore, useLab } from "../../../store";

/** Time between two recorded steps while playing (lab choice). */
const PLAY_STEP_MS = 700;

/** The one line under the header: why the page cannot train, and what it plays instead. */
export function NoTrainingNote() {
  const reason = useLab((s) => s.noTraining);
  const rec = useLab((s) => s.playback?.recording);
  const failed = useLab((s) => s.errors.some((e) => e.message.startsWith("The recording of")));
  if (!reason) return null;
  const seeds = rec?.run.experiment.seeds?.length ?? 1;
  return (
    <div className="banner warn no-training" role="status" data-testid="no-webgpu">
      {reason}, so this page cannot train here: it plays a recorded run instead
      {rec
        ? ` (${seeds} seed${seeds === 1 ? "" : "s"}, made with npm run record)`
        : failed
          ? " (its recording could not be loaded: see the message below)"
          : " (loading…)"}
      .
    </div>
  );
}

/** Play / pause and the step slider of the recording being played. */
export function PlaybackControls() {
  const id = useId();
  const pb = useLab((s) => s.playback);
  useEffect(() => {
    if (!pb?.playing) return;
    const t = setInterval(() => labStore.getState().advancePlayback(), PLAY_STEP_MS);
    return () => clearInterval(t);
  }, [pb?.playing]);
  if (!pb) return null;
  const st = labStore.getState();
  const i = Math.max(0, pb.steps.indexOf(pb.step));
  const lastStep = pb.steps[pb.steps.length - 1] ?? 0;
  return (
    <div
      className="run-controls playback"
      role="toolbar"
      aria-label="Recording"
      data-testid="playback"
    >
      <button
        type="button"
        className="primary"
        onClick={() => st.setPlaying(!pb.playing)}
        data-testid="playback-toggle"
      >
        {pb.playing ? "Pause" : "Play"}
      </button>
      <label htmlFor={id} className="small">
        Recorded step <b data-testid="playback-step">{pb.step}</b> / {lastStep}
      </label>
      <input
        id={id}
        type="range"
        aria-label="Recorded step"
        data-testid="playback-scrub"
        min={0}
        max={Math.max(pb.steps.length - 1, 0)}
        value={i}
        onChange={(e) => {
          st.setPlaying(false);
          st.setPlaybackStep(pb.steps[Number(e.target.value)] ?? 0);
        }}
      />
    </div>
  );
}
