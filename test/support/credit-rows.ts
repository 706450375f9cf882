// The metric rows of the recorded scs-paper run (test/fixtures/credit-scs-paper.jsonl), per variant.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { MetricRow } from "../../src/run/run-types";

/** Each variant's rows of the recorded run, in file order. */
export function recordedCreditRows(): Record<string, MetricRow[]> {
  const rows: Record<string, MetricRow[]> = {};
  const text = readFileSync(
    resolve(import.meta.dirname, "../fixtures/credit-scs-paper.jsonl"),
    "utf8",
  );
  for (const line of text.split("\n").filter(Boolean)) {
    const r = JSON.parse(line) as MetricRow;
    const list = rows[r.variant] ?? [];
    list.push(r);
    rows[r.variant] = list;
  }
  return rows;
}
