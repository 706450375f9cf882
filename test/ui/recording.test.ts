// Recordings: every shipped one (public/recordings/*.json) loads through the
// saved runs' checks (checkRecording → checkSavedRun) and holds what the page
// plays: several seeds of metric rows, eval rows from step 0, inspector groups
// with their images, and at every training step of every variant the credit
// values (each class's share, and its mean reward and advantage where it has
// rollouts; the contrasts' group counts), except the recordings listed as
// made before the credit metrics, which hold none; a bad file is refused
// with a message naming the problem.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkRecording } from "../../src/store/saved-run-check";
import {
  base64ToBytes,
  bytesToBase64,
  packGroup,
  sampleGroups,
  unpackGroup,
} from "../../src/store/recording";
import { PICKER_PRESETS } from "../../src/settings/presets";
import {
  CONTRASTS,
  contrastKey,
  creditKey,
  ROLLOUT_CLASSES,
} from "../../src/settings/credit-table";
import type { GroupView } from "../../src/rl/step-types";

const DIR = resolve(import.meta.dirname, "../../public/recordings");
const files = readdirSync(DIR).filter((f) => f.endsWith(".json"));
const raw = (f: string) => JSON.parse(readFileSync(resolve(DIR, f), "utf8"));

const group = (step: number, seed?: number): GroupView => ({
  variant: "rlvr",
  step,
  promptId: `p${step}`,
  question: "What is the sum of the two digits?",
  options: null,
  answer: "7",
  image: {
    data: new Float32Array([0, 0.5, 1, 2, Number.NaN, -1]),
    height: 2,
    width: 3,
    channels: 1,
  },
  rollouts: [],
  ...(seed !== undefined ? { seed } : {}),
});

describe("shipped recordings", () => {
  it("there is one for every preset of the picker", () => {
    expect(files.map((f) => f.replace(/\.json$/, "")).sort()).toEqual([...PICKER_PRESETS].sort());
  });

  for (const f of files)
    it(`${f} loads through the saved-run checks and holds several seeds, step 0 and rollouts`, () => {
      const rec = checkRecording(raw(f), f);
      expect(`${rec.preset}.json`).toBe(f);
      expect(rec.command).toMatch(new RegExp(`^npm run record -- --preset ${rec.preset}\\b`));
      const seeds = rec.run.experiment.seeds ?? [];
      expect(seeds.length).toBeGreaterThanOrEqual(2);
      for (const [v, rows] of Object.entries(rec.run.metrics.byVariant)) {
        expect(new Set(rows.eval.filter((r) => r.step === 0).map((r) => r.seed)).size, v).toBe(
          seeds.length,
        );
        expect(rows.train.length, v).toBeGreaterThan(0);
      }
      expect(rec.samples.length).toBeGreaterThan(0);
      for (const g of rec.samples)
        expect(g.image.data.length).toBe(g.image.height * g.image.width * g.image.channels);
      expect(readFileSync(resolve(DIR, f)).length).toBeLessThan(1_000_000);
    });

  // The credit view (docs/reward-spec.md §6) plays from a recording only when its rows carry the values.
  // Every shipped recording (the panel's message for one made before them: test/ui/credit-components.test.ts).
  for (const f of files)
    it(`${f} carries the credit values of every variant at every step`, () => {
      const rec = checkRecording(raw(f), f);
      const variants = rec.run.experiment.variants.map((v) => v.name);
      expect(Object.keys(rec.run.metrics.byVariant).sort()).toEqual([...variants].sort());
      for (const v of variants) {
        const rows = rec.run.metrics.byVariant[v].train;
        expect(rows.length, v).toBe(
          rec.run.experiment.algorithm.steps * (rec.run.experiment.seeds?.length ?? 1),
        );
        for (const r of rows) {
          const at = `${v} step ${r.step} seed ${r.seed}`;
          let total = 0;
          for (const c of ROLLOUT_CLASSES) {
            const share = r.values[creditKey(c.key, "share")];
            expect(share, `${at} ${c.key} share`).toBeGreaterThanOrEqual(0);
            total += share;
            // A class has a mean advantage exactly where it has rollouts, a mean reward only there.
            const has = share > 0;
            expect(creditKey(c.key, "advantage") in r.values, `${at} ${c.key} advantage`).toBe(has);
            if (creditKey(c.key, "reward") in r.values)
              expect(has, `${at} ${c.key} reward`).toBe(true);
          }
          // Shares are rounded to 5 significant digits in the file.
          expect(Math.abs(total - 1), `${at} shares`).toBeLessThan(1e-4);
          for (const name of CONTRASTS)
            expect(
              r.values[contrastKey(name, "groups")],
              `${at} ${name} groups`,
            ).toBeGreaterThanOrEqual(0);
        }
      }
    });
});

describe("recording checks", () => {
  const good = raw(files[0]);
  it("refuses a wrong format, a snapshot, a bad image and a prototype key", () => {
    expect(() => checkRecording({ ...good, format: "other" }, "r")).toThrow(
      /^r could not be read: format/,
    );
    expect(() =>
      checkRecording(
        { ...good, run: { ...good.run, snapshot: new Uint8Array(2), snapshotStep: 1 } },
        "r",
      ),
    ).toThrow(/a recording holds no snapshot/);
    const bad = structuredClone(good);
    bad.samples[0].image.bytes = "AAAA";
    expect(() => checkRecording(bad, "r")).toThrow(/samples\.0\.image: image of 3 bytes for/);
    const evil = JSON.parse(
      JSON.stringify(good).replace('"preset":', '"__proto__":{"x":1},"preset":'),
    );
    expect(() => checkRecording(evil, "r")).toThrow(/__proto__/);
    const badRun = structuredClone(good);
    badRun.run.metrics.byVariant.rlvr.eval[0].values.incR = "high";
    expect(() => checkRecording(badRun, "r")).toThrow(/^r: saved run .* could not be read/);
  });

  it("keeps each rollout's class and lucky-guess flag, and reads a class's empty-step null as NaN", () => {
    const rec = structuredClone(good);
    const row = rec.run.metrics.byVariant.rlvr.train[0];
    for (const k of Object.keys(row.values)) if (k.includes("flawed-right")) delete row.values[k];
    row.values["credit/flawed-right/share"] = 0;
    row.values["credit/flawed-right/advantage"] = null; // JSON's NaN
    const r = rec.samples[0].rollouts[0];
    r.rolloutClass = "flawed-right";
    r.luckyGuess = true;
    const back = checkRecording(JSON.parse(JSON.stringify(rec)), "r");
    const values = back.run.metrics.byVariant.rlvr.train[0].values;
    expect(values["credit/flawed-right/share"]).toBe(0);
    expect(values["credit/flawed-right/advantage"]).toBeNaN();
    expect(back.samples[0].rollouts[0].rolloutClass).toBe("flawed-right");
    expect(back.samples[0].rollouts[0].luckyGuess).toBe(true);
    r.rolloutClass = "half-right";
    expect(() => checkRecording(rec, "r")).toThrow(/rolloutClass/);
  });

  it("reads the class's earlier name (lucky-guess, before 2026-12-06) as flawed-right, and refuses a row with both", () => {
    const rec = structuredClone(good);
    const row = rec.run.metrics.byVariant.rlvr.train[0];
    // Every shipped file uses the current name: write this row as an older file did.
    for (const k of Object.keys(row.values)) if (k.includes("flawed-right")) delete row.values[k];
    row.values["credit/lucky-guess/share"] = 0.25;
    row.values["credit/lucky-guess/advantage"] = -0.5;
    rec.run.metrics.keys.train.push("credit/lucky-guess/share", "credit/flawed-right/share");
    rec.samples[0].rollouts[0].rolloutClass = "lucky-guess";
    const back = checkRecording(JSON.parse(JSON.stringify(rec)), "r");
    const values = back.run.metrics.byVariant.rlvr.train[0].values;
    expect(values["credit/flawed-right/share"]).toBe(0.25);
    expect(values["credit/flawed-right/advantage"]).toBe(-0.5);
    expect(Object.keys(values).filter((k) => k.includes("lucky-guess"))).toEqual([]);
    const keys = back.run.metrics.keys.train;
    expect(keys.filter((k) => k === "credit/flawed-right/share")).toHaveLength(1);
    expect(keys).not.toContain("credit/lucky-guess/share");
    expect(back.samples[0].rollouts[0].rolloutClass).toBe("flawed-right");
    row.values["credit/flawed-right/share"] = 0.25;
    expect(() => checkRecording(rec, "r")).toThrow(
      "r: saved run '" +
        String(rec.run.name).slice(0, 60) +
        "' (metrics) byVariant.rlvr.train[0] holds both 'credit/lucky-guess/share' and 'credit/flawed-right/share'",
    );
  });

  it("base64: worked values both ways, and a bad character is named", () => {
    expect(bytesToBase64(new Uint8Array([77, 97, 110]))).toBe("TWFu");
    expect(bytesToBase64(new Uint8Array([77, 97]))).toBe("TWE=");
    expect(bytesToBase64(new Uint8Array([77]))).toBe("TQ==");
    expect([...base64ToBytes("TWE=")]).toEqual([77, 97]);
    expect([...base64ToBytes("TQ==")]).toEqual([77]);
    expect(() => base64ToBytes("TW!u")).toThrow(/'!' at 2 is not a base64 character/);
    expect(() => base64ToBytes("TWF")).toThrow(/not a multiple of 4/);
  });

  it("an image packs to bytes (clamped, NaN as 0) and back", () => {
    const back = unpackGroup(packGroup(group(1)));
    expect([...back.image.data]).toEqual([0, Math.fround(128 / 255), 1, 1, 0, 0]);
  });

  it("keeps the first seed's groups, every k-th step so at most the cap remain, and the last step", () => {
    const groups = [1, 2, 3, 4, 5, 6, 7].flatMap((s) => [group(s, 11), group(s, 12)]);
    const kept = sampleGroups(groups, 3);
    expect(kept.every((g) => g.seed === 11)).toBe(true);
    expect(kept.map((g) => g.step)).toEqual([1, 4, 7]);
  });
});
