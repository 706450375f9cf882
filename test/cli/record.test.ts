// npm run record: bad flags and an existing file are refused before any work
// (nothing overwritten); a tiny recording of the smoke preset passes the same
// checks the page runs on it (checkRecording) and holds every row of the run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli";
import { checkRecording } from "../../src/store/saved-run-check";

const dir = mkdtempSync(join(tmpdir(), "reward-lab-record-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run record", () => {
  it("names an unknown preset, a bad --max-groups and a missing --preset", () => {
    const bad = runCli("record", ["--preset", "nope"]);
    expect(bad.code).toBe(1);
    expect(bad.lastJson.error).toMatch(/^--preset must be one of default, drift, .*, got 'nope'$/);
    expect(runCli("record", ["--preset", "smoke", "--max-groups", "0"]).lastJson.error).toBe(
      "--max-groups must be an integer in [1, 2000] (inspector groups kept (the first seed's)), got '0'",
    );
    expect(runCli("record", []).lastJson.error).toMatch(/^--preset is required; known: /);
  });

  it("keeps an existing file unless --force", () => {
    const out = join(dir, "kept.json");
    writeFileSync(out, "earlier");
    const r = runCli("record", ["--preset", "smoke", "--out", out]);
    expect(r.code).toBe(1);
    expect(r.lastJson.error).toBe(`--out ${out} exists; it is kept as it is (--force replaces it)`);
    expect(readFileSync(out, "utf8")).toBe("earlier");
  });

  it("records two seeds of one smoke step that load through the saved-run checks", () => {
    const out = join(dir, "smoke.json");
    const args = ["--preset", "smoke", "--seeds", "1,2", "--steps", "1", "--eval-every", "1"];
    const r = runCli("record", [...args, "--eval-size", "4", "--out", out, "--quiet"], {
      timeout: 900_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.lastJson).toMatchObject({ preset: "smoke", out, steps: 1, seeds: [1, 2] });
    const rec = checkRecording(JSON.parse(readFileSync(out, "utf8")), "smoke");
    expect(rec.command).toBe(
      `npm run record -- ${[...args, "--eval-size", "4", "--out", out, "--quiet"].join(" ")}`,
    );
    // Per variant and seed: the step-0 eval, one RL step, its eval.
    for (const v of ["rlvr", "grr"]) {
      const rows = rec.run.metrics.byVariant[v];
      expect(rows.eval.map((x) => `${x.step}/${x.seed}`).sort()).toEqual([
        "0/1",
        "0/2",
        "1/1",
        "1/2",
      ]);
      expect(rows.train.map((x) => `${x.step}/${x.seed}`).sort()).toEqual(["1/1", "1/2"]);
    }
    expect(r.lastJson.rows).toBe(12);
    // The first seed's groups only (one per variant at step 1).
    expect(rec.samples.map((g) => `${g.variant}@${g.step}/${g.seed}`).sort()).toEqual([
      "grr@1/1",
      "rlvr@1/1",
    ]);
    expect(rec.run.experiment.modelSize).toBe("small");
  }, 900_000);
});
