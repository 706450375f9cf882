/**
 * The page's reward-hacking checks on a run made elsewhere:
 *   npm run checks -- RUN [--eval-size N]
 * RUN is a `lab --out` folder (its metrics.jsonl) or a metrics.jsonl file.
 * Reads the rows through the saved run's row schema, averages seeds per step
 * as the page does, and prints one JSON line: per variant its mean response
 * length (tokens) over the first and the last DETECTOR_WINDOW train steps and
 * the relative change, then every check that fires (src/ui/lib/detectors.ts,
 * the same table the guided view shows). {"error"} on bad input.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CHECKS_TABLE } from "../src/cli/script-flags";
import { readCliFlags } from "../src/lib/cli-flags";
import type { MetricRow } from "../src/run/run-types";
import { checkMetricRowsJsonl } from "../src/store/saved-run-check";
import { computeDetections, DETECTOR_WINDOW } from "../src/ui/lib/detectors";

/** Mean of `key` over train rows, per step (seeds averaged), in step order. */
function perStep(rows: readonly MetricRow[], key: string): number[] {
  const by = new Map<number, number[]>();
  for (const r of rows) {
    const v = r.values[key];
    if (v === undefined || !Number.isFinite(v)) continue;
    const a = by.get(r.step) ?? [];
    a.push(v);
    by.set(r.step, a);
  }
  return [...by.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, v]) => v.reduce((s, x) => s + x, 0) / v.length);
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

function main(): void {
  const { flags, positionals } = readCliFlags(CHECKS_TABLE);
  const given = positionals[0];
  if (!existsSync(given)) throw new Error(`RUN: no such file or folder: ${given}`);
  const file = statSync(given).isDirectory() ? join(given, "metrics.jsonl") : given;
  if (!existsSync(file)) throw new Error(`RUN: ${given} holds no metrics.jsonl`);
  const rows = checkMetricRowsJsonl(readFileSync(file, "utf8"), file);
  // Maps, not objects: a variant name comes from the file ("__proto__" is a name like any other).
  const train = new Map<string, MetricRow[]>();
  const evals = new Map<string, MetricRow[]>();
  for (const r of rows) {
    const into = r.kind === "train" ? train : evals;
    const list = into.get(r.variant) ?? [];
    list.push(r);
    into.set(r.variant, list);
  }
  const trainRows = Object.fromEntries(train);
  const evalRows = Object.fromEntries(evals);
  const length = new Map<string, { first: number; last: number; change: number; steps: number }>();
  for (const [v, list] of train) {
    const len = perStep(list, "response_length");
    if (len.length < 2 * DETECTOR_WINDOW) continue;
    const first = mean(len.slice(0, DETECTOR_WINDOW));
    const last = mean(len.slice(-DETECTOR_WINDOW));
    length.set(v, { first, last, change: (last - first) / first, steps: len.length });
  }
  const detections = computeDetections({ trainRows, evalRows, evalSize: flags["eval-size"] });
  console.log(
    JSON.stringify({
      file,
      window: DETECTOR_WINDOW,
      length: Object.fromEntries(length),
      detections: detections.map((d) => ({
        key: d.key,
        variant: d.variant,
        step: d.step,
        text: d.text,
      })),
    }),
  );
}

try {
  main();
} catch (e) {
  console.log(JSON.stringify({ error: e instanceof Error ? e.message : String(e) }));
  process.exitCode = 1;
}
