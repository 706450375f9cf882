// The metric rows of the recorded scs-paper run (test/fixtures/credit-scs-paper.jsonl), per variant,
// read as the lab reads stored rows (keys renamed since are read under their current names).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { MetricRow } from "../../src/run/run-types";
import { migrateStoredRow } from "../../src/run/stored-keys";

/** Each variant's rows of the recorded run, in file order. */
export function recordedCreditRows(): Record<string, MetricRow[]> {
  const rows: Record<string, MetricRow[]> = {};
  const text = readFileSync(
    resolve(import.meta.dirname, "../fixtures/credit-scs-paper.jsonl"),
    "utf8",
  );
  for (const [i, line] of text.split("\n").filter(Boolean).entries()) {
    const r = migrateStoredRow(
      JSON.parse(line) as MetricRow,
      `credit-scs-paper.jsonl line ${i + 1}`,
    );
    const list = rows[r.variant] ?? [];
    list.push(r);
    rows[r.variant] = list;
  }
  return rows;
}
