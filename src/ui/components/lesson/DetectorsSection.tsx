/**
 * The guided view's reward-hacking checks: the detectors of
 * src/ui/lib/detectors.ts on the run's own train and held-out rows, each
 * finding with a link to its chart, and the table of rules and thresholds.
 */
import { useMemo } from "react";
import { labStore } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import { computeDetections, DETECTORS, DETECTOR_WINDOW } from "../../lib/detectors";
import { metricName } from "../../lib/callouts";

export function DetectorsSection({ m, evalSize }: { m: MetricsData; evalSize: number }) {
  const found = useMemo(
    () =>
      computeDetections({
        trainRows: Object.fromEntries(Object.entries(m.byVariant).map(([v, r]) => [v, r.train])),
        evalRows: Object.fromEntries(Object.entries(m.byVariant).map(([v, r]) => [v, r.eval])),
        evalSize,
      }),
    [m, evalSize],
  );
  return (
    <section aria-label="Reward-hacking checks" data-testid="detectors">
      <h3>Reward-hacking checks</h3>
      {found.length === 0 ? (
        <p>
          None fires yet (each compares the first and last {DETECTOR_WINDOW} train steps of a
          variant).
        </p>
      ) : (
        <ul className="callouts">
          {found.map((d) => (
            <li key={d.id} className="callout" data-testid="detection" data-detector={d.key}>
              <p>{d.text}</p>
              <div className="callout-links">
                <button
                  type="button"
                  className="small-btn"
                  onClick={() => labStore.getState().focusChart(d.chart)}
                >
                  Show the {metricName(d.chart)} chart
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <details className="guide-rules">
        <summary>How the checks are made</summary>
        <ul>
          {DETECTORS.map((d) => (
            <li key={d.key}>
              <b>{d.label}:</b> {d.rule} (
              {d.thresholds.map((t) => `${t.name} ${t.value}, lab choice: ${t.why}`).join("; ")})
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
