/** The mid-run changes and faults, as a short list under the toolbar (the ⚑ and ⚠ lines on the charts). */
import type { Marker } from "../../../run/run-types";
import { variantColor, variantLabel } from "../../../settings/variant-meta";

export function MarkerList({ markers }: { markers: Marker[] }) {
  if (markers.length === 0) return null;
  return (
    <ul className="marker-list" aria-label="Mid-run changes" data-testid="markers">
      {markers.slice(-6).map((m) => (
        <li key={`${m.variant}@${m.step}:${m.label}`}>
          <span style={{ color: variantColor(m.variant) }}>{m.fault ? "⚠" : "⚑"}</span>
          {` step ${m.step} · ${variantLabel(m.variant)}: ${m.label}`}
        </li>
      ))}
      {markers.length > 6 && <li className="muted">… {markers.length - 6} earlier</li>}
    </ul>
  );
}
