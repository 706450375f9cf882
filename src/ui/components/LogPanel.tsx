/** The trainer's log lines (collapsed by default). */
import { useLab } from "../../store";

export function LogPanel() {
  const logs = useLab((s) => s.logs);
  return (
    <details className="log-panel">
      <summary>Trainer log ({logs.length})</summary>
      <pre data-testid="log">{logs.slice(-80).join("\n")}</pre>
    </details>
  );
}
