/**
 * A RunSink for tests that keeps everything a run emits (src/run/run-types.ts):
 * metric rows, sample groups, markers and log lines, in arrival order.
 */
import type { Marker, MetricRow, RunSink } from "../../src/run/run-types";
import type { GroupView } from "../../src/rl/step-types";

export interface CollectedRun {
  sink: RunSink;
  rows: MetricRow[];
  samples: GroupView[];
  markers: Marker[];
  logs: string[];
}

/** A sink whose arrays fill as the run emits. */
export function collectingSink(): CollectedRun {
  const out: CollectedRun = {
    rows: [],
    samples: [],
    markers: [],
    logs: [],
    sink: {
      metrics: (r) => void out.rows.push(...r),
      samples: (g) => void out.samples.push(...g),
      marker: (m) => void out.markers.push(m),
      log: (l) => void out.logs.push(l),
    },
  };
  return out;
}
