// A fixed-seed `claims` run (`--size tiny`: seeds 1 and 2, two RL steps, every
// claim, both tasks) gives the JSON of test/fixtures/claims-tiny.json: the
// claims table (claims.json) and every metric row of both runs, without the
// wall-clock fields (a row's `time`, the `*_ms` phase times) and the
// engine's dispatch and submit counts (how the work is cut, not what it
// computes). Rows are compared as a set, sorted by variant, seed, kind and
// step, so the order in which seed-variants are trained does not matter.
//
// The fixture was made on the code before the run loop was rewritten (its
// `made` field says how); CLAIMS_GOLDEN_WRITE=1 writes it again from the
// current code instead of comparing (only for a change that is meant to
// change the figures, said in its commit; then edit `made`). Numbers agree
// within 1e-5 relative (1e-8 absolute): the shared-prefix update sums its
// gradients in another order (outputDifferences); everything else exactly.
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { canonicalClaims, outputDifferences } from "./claims-output";
import type { MetricRow } from "../../src/run/run-types";
import { migrateStoredRow } from "../../src/run/stored-keys";
import { runCli } from "../support/cli";

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURE = join(ROOT, "test/fixtures/claims-tiny.json");

describe("npm run claims -- --size tiny (fixed seeds)", () => {
  it("gives the claims table and metric rows of the fixture", () => {
    const out = join(mkdtempSync(join(tmpdir(), "reward-lab-golden-")), "report");
    try {
      const res = runCli("claims", ["--size", "tiny", "--out", out, "--quiet"], {
        timeout: 1_200_000,
      });
      expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
      const got = canonicalClaims(out);
      if (process.env.CLAIMS_GOLDEN_WRITE === "1") {
        const made = "(say how and when this was made)";
        writeFileSync(FIXTURE, `${JSON.stringify({ made, ...(got as object) }, null, 2)}\n`);
        return;
      }
      const { made: _made, ...stored } = JSON.parse(readFileSync(FIXTURE, "utf8"));
      // The fixture keeps the metric keys it was written with; read them as the lab names them now.
      const want = {
        ...stored,
        rows: Object.fromEntries(
          Object.entries(stored.rows as Record<string, MetricRow[]>).map(([f, rows]) => [
            f,
            rows.map((r) => migrateStoredRow(r, `${FIXTURE} ${f}`)),
          ]),
        ),
      };
      expect(outputDifferences(got, want)).toEqual([]);
    } finally {
      rmSync(resolve(out, ".."), { recursive: true, force: true });
    }
  }, 1_500_000); // 2 seeds × 7 variant copies × 2 RL steps + 16-prompt evals: under a minute on a quiet CPU adapter
});
