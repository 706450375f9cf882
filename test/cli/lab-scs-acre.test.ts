// One RL step of each SCS / ACRE preset (scs-paper, scs-tr-only, scs-vp-only,
// acre-paper) from its shipped cold start on Node/SwiftShader, on a small
// held-out set: the new metrics are in the JSON line's sft block (step 0)
// and final block, finite and in range (rates in [0, 1], distinct options in
// [1, 4]). No verdict is asserted; the figures are measured (docs/checkpoints.md).
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli";

const RATES = ["acc", "luckyGuess", "wrca", "oscr", "cacr", "incR", "cbir"];
const DISTINCT = ["distinctK04", "distinctK08"];

const lab = (preset: string) =>
  runCli(
    "lab",
    ["--preset", preset, "--steps", "1", "--batch-prompts", "2", "--eval-size", "8", "--quiet"],
    { timeout: 900_000 },
  );

describe("npm run lab -- --preset scs-paper | scs-tr-only | scs-vp-only | acre-paper --steps 1", () => {
  it.each([
    ["scs-paper", ["rlvr", "scs"]],
    ["scs-tr-only", ["rlvr", "scs"]],
    ["scs-vp-only", ["rlvr", "scs"]],
    ["acre-paper", ["rlvr", "acre"]],
  ])(
    "%s: lucky-guess rate, WR–CA, OSCR, CACR and distinct options at step 0 and after",
    (preset, variants) => {
      const res = lab(preset);
      expect(res.code, `stderr:\n${res.stderr}`).toBe(0);
      const result = res.lastJson;
      expect(result.preset).toBe(preset);
      expect(Object.keys(result.variants).sort()).toEqual([...variants].sort());
      for (const m of [result.sft, ...variants.map((v) => result.variants[v].final)]) {
        for (const k of RATES) {
          expect(Number.isFinite(m[k]), k).toBe(true);
          expect(m[k], k).toBeGreaterThanOrEqual(0);
          expect(m[k], k).toBeLessThanOrEqual(1);
        }
        for (const k of DISTINCT) {
          expect(Number.isFinite(m[k]), k).toBe(true);
          expect(m[k], k).toBeGreaterThanOrEqual(1);
          expect(m[k], k).toBeLessThanOrEqual(4);
        }
      }
    },
    900_000,
  );
});
