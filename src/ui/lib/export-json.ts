/** JSON export of all rows of a run (not downsampled), with its experiment and markers. */
import type { Experiment } from "../../settings/experiment";
import type { MetricsData } from "../../store/run-data";

export function exportRunJson(experiment: Experiment, m: MetricsData): string {
  const rows = Object.values(m.byVariant).flatMap((r) => [...r.train, ...r.eval]);
  rows.sort(
    (a, b) => a.step - b.step || a.variant.localeCompare(b.variant) || a.kind.localeCompare(b.kind),
  );
  return JSON.stringify(
    { format: "reward-lab-run", version: 1, experiment, markers: m.markers, rows },
    null,
    1,
  );
}
