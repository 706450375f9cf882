/**
 * Where the page opens a recording (paused): where the run's own curves part,
 * found on the recording's rows by the guided view's callout rules
 * (./callouts.ts) over its preset's overview metrics, so no file carries a
 * hand-picked step.
 *
 * Rule (lab choice, fixed on 2026-12-06 at 12:43 UTC before it was computed
 * on any recording):
 *   1. the first eval step at which a `parted` callout fires (two variants'
 *      bands overlapped before and no longer do);
 *   2. else the first eval step at which any callout fires (a one-variant
 *      run cannot part; its curve leaving its step-0 band is the difference);
 *   3. else the recording's last step: nothing leaves its band, and the
 *      whole run is what there is to see.
 * Pure: tested on the shipped recordings (test/ui/recording-open.test.ts).
 */
import type { Recording } from "../../store/recording";
import { computeCallouts } from "./callouts";

/** Which part of the rule chose a recording's opening step. */
type OpenReason = "parted" | "callout" | "last";

/**
 * The step at which the page opens recording `rec`, and why.
 * @param overview the overview metrics of the recording's preset (src/store/lesson.ts overviewMetrics).
 */
export function recordingOpenStep(
  rec: Pick<Recording, "run">,
  overview: readonly string[],
): { step: number; reason: OpenReason } {
  const byVariant = rec.run.metrics.byVariant;
  const callouts = computeCallouts({
    evalRows: Object.fromEntries(Object.entries(byVariant).map(([v, r]) => [v, r.eval])),
    markers: [],
    evalSize: rec.run.experiment.evalSize,
    metrics: overview,
  });
  const first = (cs: typeof callouts) => Math.min(...cs.map((c) => c.step));
  const parted = callouts.filter((c) => c.rule === "parted");
  if (parted.length > 0) return { step: first(parted), reason: "parted" };
  if (callouts.length > 0) return { step: first(callouts), reason: "callout" };
  let last = 0;
  for (const r of Object.values(byVariant))
    for (const x of [...r.train, ...r.eval]) last = Math.max(last, x.step);
  return { step: last, reason: "last" };
}
