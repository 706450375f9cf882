/** The metrics the charts draw, updated from the store at most every 250 ms (4 renders/s). */
import { startTransition, useEffect, useLayoutEffect, useRef, useState } from "react";
import { labStore } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import { throttle } from "../../lib/throttle";
import { registerFlusher } from "../../lib/render-gate";

const CHART_REFRESH_MS = 250;

function current(): MetricsData {
  const s = labStore.getState();
  const viewed = s.viewingRun !== null ? s.runs.find((r) => r.id === s.viewingRun) : undefined;
  return viewed ? viewed.metrics : s.metrics;
}

export function useThrottledMetrics(): MetricsData {
  const [m, setM] = useState(current);
  const shown = useRef(m);
  const committed = useRef<Array<() => void>>([]);
  useLayoutEffect(() => {
    shown.current = m;
    for (const resolve of committed.current.splice(0)) resolve();
  }, [m]);
  useEffect(() => {
    // A transition lets React draw the charts in small slices, so the page stays responsive.
    const update = throttle(() => startTransition(() => setM(current())), CHART_REFRESH_MS);
    const unsub = labStore.subscribe((s, prev) => {
      if (s.metrics !== prev.metrics || s.viewingRun !== prev.viewingRun || s.runs !== prev.runs)
        update();
    });
    // In a render window the latest data is drawn at once; resolves when React has committed it.
    const unregister = registerFlusher(
      () =>
        new Promise<void>((resolve) => {
          update.cancel();
          const next = current();
          if (next === shown.current) return resolve();
          committed.current.push(resolve);
          startTransition(() => setM(next));
        }),
    );
    return () => {
      unsub();
      unregister();
      update.cancel();
      for (const resolve of committed.current.splice(0)) resolve();
    };
  }, []);
  return m;
}
