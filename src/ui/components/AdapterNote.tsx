/** Which GPU adapter the trainer got; a note when it fell back to a CPU adapter. */
import { useLab } from "../../store";

export function AdapterNote() {
  const ready = useLab((s) => s.ready);
  if (!ready)
    return <p className="note muted">Waiting for the trainer to report its GPU adapter…</p>;
  return (
    <div className="note" data-testid="adapter-note">
      <div>
        Adapter: <b>{ready.adapter}</b> · model <b>{ready.modelSize}</b> ·{" "}
        {ready.params.toLocaleString()} parameters
      </div>
      {ready.isFallback && (
        <div className="warn" data-testid="fallback-note">
          This browser gave a fallback (CPU / software) adapter, so training is slow
          {ready.modelSize === "small"
            ? "; the trainer picked the small model to keep it usable."
            : "."}
        </div>
      )}
      {ready.note && <div className="muted">{ready.note}</div>}
    </div>
  );
}
