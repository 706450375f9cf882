/**
 * The outputs of a `claims --out DIR` run as one canonical JSON value, for
 * tests that compare two runs: claims.json, and every row of DIR/metrics*.jsonl
 * without the wall-clock fields (`time`, the `*_ms` metrics) and the engine's
 * dispatch and submit counts, rows sorted by variant, seed, kind and step.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MetricRow } from "../../src/run/run-types";

/** Metric keys that are not outputs of the run: wall-clock times and the engine's work counts. */
const isCost = (key: string) => key.endsWith("_ms") || key === "dispatches" || key === "submits";

/** A row without its wall-clock and work-count fields. */
function outputOf(r: MetricRow): Omit<MetricRow, "time"> {
  const { time: _time, ...rest } = r;
  return {
    ...rest,
    values: Object.fromEntries(Object.entries(r.values).filter(([k]) => !isCost(k))),
  };
}

/** The run's outputs in one canonical JSON value: the claims table and the sorted rows per metrics file. */
export function canonicalClaims(dir: string): unknown {
  const claims = JSON.parse(readFileSync(join(dir, "claims.json"), "utf8"));
  const files = readdirSync(dir)
    .filter((f) => /^metrics.*\.jsonl$/.test(f))
    .sort();
  const rows: Record<string, unknown[]> = {};
  for (const f of files) {
    const list = readFileSync(join(dir, f), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => outputOf(JSON.parse(line) as MetricRow));
    const key = (r: Omit<MetricRow, "time">) =>
      `${r.variant}|${String(r.seed ?? "").padStart(10, "0")}|${r.kind}|${String(r.step).padStart(6, "0")}`;
    list.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    rows[f] = list;
  }
  return { claims, rows };
}
