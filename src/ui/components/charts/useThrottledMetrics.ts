/** The metrics the charts draw, updated from the store at most every 250 ms (4 renders/s). */
import { startTransition, useEffect, useState } from "react";
import { labStore } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import { throttle } from "../../lib/throttle";

export const CHART_REFRESH_MS = 250;

function current(): MetricsData {
  const s = labStore.getState();
  const viewed = s.viewingRun !== null ? s.runs.find((r) => r.id === s.viewingRun) : undefined;
  return viewed ? viewed.metrics : s.metrics;
}

export function useThrottledMetrics(): MetricsData {
  const [m, setM] = useState(current);
  useEffect(() => {
    // A transition lets React draw the charts in small slices, so the page stays responsive.
    const update = throttle(() => startTransition(() => setM(current())), CHART_REFRESH_MS);
    const unsub = labStore.subscribe((s, prev) => {
      if (s.metrics !== prev.metrics || s.viewingRun !== prev.viewingRun || s.runs !== prev.runs) update();
    });
    return () => {
      unsub();
      update.cancel();
    };
  }, []);
  return m;
}
