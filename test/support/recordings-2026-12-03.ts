// The metric rows of the page recordings shipped from 2026-12-03 to
// 2026-12-06 (test/fixtures/recordings-2026-12-03.jsonl): the rows the
// callout and detector tests were worked out on by hand, kept when the
// shipped recordings were made again with the credit metrics.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { MetricRow } from "../../src/run/run-types";
import type { GroupView } from "../../src/rl/step-types";

/** One earlier recording: its command, seeds, held-out size and rows per variant. */
export interface EarlierRecording {
  command: string;
  seeds: number[];
  evalSize: number;
  byVariant: Record<string, { train: MetricRow[]; eval: MetricRow[] }>;
  /** default only: its RLVR inspector groups, without their images. */
  rlvrGroups?: Omit<GroupView, "image">[];
}

const FILE = resolve(import.meta.dirname, "../fixtures/recordings-2026-12-03.jsonl");

/** JSON has no NaN: a metric written as null reads as NaN, as the page's checks read it. */
function nanRows(rows: MetricRow[]): MetricRow[] {
  return rows.map((r) => ({
    ...r,
    values: Object.fromEntries(
      Object.entries(r.values).map(([k, v]) => [k, v === null ? Number.NaN : v]),
    ),
  }));
}

/**
 * The earlier recording of preset `name` (default, smoke, grr-paper, acre-paper, rlvr-learn).
 * @throws Error naming a preset the file does not hold.
 */
export function earlierRecording(name: string): EarlierRecording {
  // One recording per line: {name, command, seeds, evalSize, byVariant, rlvrGroups?}.
  const rec = readFileSync(FILE, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EarlierRecording & { name: string })
    .find((r) => r.name === name);
  if (!rec) throw new Error(`${FILE} holds no recording '${name}'`);
  const byVariant: EarlierRecording["byVariant"] = {};
  for (const [v, r] of Object.entries(rec.byVariant))
    byVariant[v] = { train: nanRows(r.train), eval: nanRows(r.eval) };
  return { ...rec, byVariant };
}
