/** Past runs of this session (archived on Reset / Re-seed / new settings), with their config differences; view one, or overlay it on the charts. */
import { useLab, labStore, type RunRecord } from "../../store";
import { nonDefaultSettings } from "../lib/url-state";
import { metricMeta } from "../lib/metric-meta";
import { variantColor, variantLabel } from "../../settings/variant-meta";

function pick(values: Record<string, number>, want: string): number | undefined {
  const k = Object.keys(values).find((key) => metricMeta(key).title === metricMeta(want).title);
  return k === undefined ? undefined : values[k];
}

/** Overlay id of a run of this session (series keys "r<id>/<variant>"). */
const runOverlayId = (r: Pick<RunRecord, "id">) => `r${r.id}`;

export function RunsTable() {
  const runs = useLab((s) => s.runs);
  const viewing = useLab((s) => s.viewingRun);
  const overlays = useLab((s) => s.overlays);
  if (runs.length === 0) return null;
  return (
    <section className="runs" aria-label="Runs">
      <h3>Runs this session</h3>
      <table className="runs-table" data-testid="runs-table">
        <thead>
          <tr>
            <th>run</th>
            <th>steps</th>
            <th>settings that differ from the defaults</th>
            <th>last RC-Acc / Acc per variant</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} className={viewing === r.id ? "selected" : ""}>
              <td>
                {r.label}{" "}
                <label
                  className="overlay-check"
                  title="Draw this run's curves over the current charts (dotted, named with what differs from the current run)"
                >
                  <input
                    type="checkbox"
                    aria-label={`Overlay ${r.label}`}
                    checked={overlays.some((o) => o.id === runOverlayId(r))}
                    onChange={(e) => {
                      const st = labStore.getState();
                      if (e.target.checked)
                        st.addOverlay({
                          id: runOverlayId(r),
                          label: r.label,
                          experiment: r.experiment,
                          markers: r.metrics.markers,
                          metrics: r.metrics,
                        });
                      else st.removeOverlay(runOverlayId(r));
                    }}
                  />
                  overlay
                </label>
              </td>
              <td>{r.lastStep}</td>
              <td className="small">
                seed={r.experiment.seed}{" "}
                {nonDefaultSettings(r.experiment)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(" · ") || <span className="muted">(defaults)</span>}
              </td>
              <td className="small">
                {Object.entries(r.lastEval).map(([v, vals]) => {
                  const rc = pick(vals, "rcAcc");
                  const acc = pick(vals, "acc");
                  return (
                    <span key={v} className="run-cell">
                      <span className="swatch" style={{ background: variantColor(v) }} />{" "}
                      {variantLabel(v)} {rc?.toFixed(3) ?? "–"} / {acc?.toFixed(3) ?? "–"}
                    </span>
                  );
                })}
              </td>
              <td>
                <button
                  type="button"
                  className="small-btn"
                  onClick={() => labStore.getState().viewRun(viewing === r.id ? null : r.id)}
                >
                  {viewing === r.id ? "Hide" : "View"}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
