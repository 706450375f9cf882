// Stored rows read under the keys the lab uses now (src/run/stored-keys.ts):
// the class `lucky-guess` became `flawed-right` on 2026-12-06, so
// `credit/lucky-guess/<part>` reads as `credit/flawed-right/<part>`; every
// other key, the contrasts `credit/contrast/wrong-steps/*` and the held-out
// metric `luckyGuess` included, is kept; a row holding one metric under both
// names is refused, naming it.
import { describe, expect, it } from "vitest";
import {
  currentClassKey,
  currentMetricKey,
  currentMetricKeys,
  migrateStoredRow,
} from "../../src/run/stored-keys";
import type { MetricRow } from "../../src/run/run-types";
import { ROLLOUT_CLASSES } from "../../src/settings/credit-table";

const row = (values: Record<string, number>): MetricRow => ({
  variant: "scs",
  step: 3,
  time: 1.5,
  kind: "train",
  values,
});

describe("stored keys", () => {
  it("maps the earlier class key and its credit metrics, and nothing else", () => {
    expect(currentClassKey("lucky-guess")).toBe("flawed-right");
    for (const c of ROLLOUT_CLASSES) expect(currentClassKey(c.key)).toBe(c.key);
    expect(currentClassKey("toString")).toBe("toString");
    expect(currentMetricKey("credit/lucky-guess/share")).toBe("credit/flawed-right/share");
    expect(currentMetricKey("credit/lucky-guess/reward")).toBe("credit/flawed-right/reward");
    expect(currentMetricKey("credit/lucky-guess/advantage")).toBe("credit/flawed-right/advantage");
    for (const k of [
      "luckyGuess",
      "distinctK08Lucky",
      "credit/contrast/wrong-steps/advantage",
      "credit/unsupported/share",
      "credit/lucky-guess",
      "credit/",
      "lucky-guess/share",
      "credit/lucky-guesses/share",
    ])
      expect(currentMetricKey(k)).toBe(k);
  });

  it("renames a row's keys where they stand, keeps its values, and returns an untouched row as it is", () => {
    const stored = row({
      acc: 0.5,
      "credit/lucky-guess/share": 0.25,
      "credit/faithful-right/share": 0.5,
      "credit/lucky-guess/advantage": Number.NaN,
      luckyGuess: 0.2,
    });
    const now = migrateStoredRow(stored, "r");
    expect(Object.keys(now.values)).toEqual([
      "acc",
      "credit/flawed-right/share",
      "credit/faithful-right/share",
      "credit/flawed-right/advantage",
      "luckyGuess",
    ]);
    expect(now.values["credit/flawed-right/share"]).toBe(0.25);
    expect(now.values["credit/flawed-right/advantage"]).toBeNaN();
    expect(now).toMatchObject({ variant: "scs", step: 3, time: 1.5, kind: "train" });
    // The stored row is not changed.
    expect(Object.keys(stored.values)).toContain("credit/lucky-guess/share");
    const current = row({ "credit/flawed-right/share": 0.25, luckyGuess: 0.2 });
    expect(migrateStoredRow(current, "r")).toBe(current);
  });

  it("refuses a row holding one metric under both names, either order, naming the row and both keys", () => {
    const msg =
      "saved run 'x' (metrics) byVariant.scs.train[3] holds both 'credit/lucky-guess/share' and 'credit/flawed-right/share' (the same metric under its name before and after 2026-12-06); a row holds one of them";
    const where = "saved run 'x' (metrics) byVariant.scs.train[3]";
    expect(() =>
      migrateStoredRow(
        row({ "credit/lucky-guess/share": 0.25, "credit/flawed-right/share": 0.25 }),
        where,
      ),
    ).toThrow(msg);
    expect(() =>
      migrateStoredRow(
        row({ acc: 1, "credit/flawed-right/share": 0.25, "credit/lucky-guess/share": 0.25 }),
        where,
      ),
    ).toThrow(msg);
  });

  it("maps a key list once each, in first-seen order", () => {
    expect(
      currentMetricKeys([
        "acc",
        "credit/lucky-guess/share",
        "credit/unsupported/share",
        "credit/flawed-right/share",
        "luckyGuess",
      ]),
    ).toEqual(["acc", "credit/flawed-right/share", "credit/unsupported/share", "luckyGuess"]);
  });
});
