// A sweep folder across sittings, machines and commits (src/cli/sweep-folder.ts):
// a new folder keeps the canary's figures in its manifest; a resume under the
// same code does not run it; under other code it runs it again and goes on when
// every value is the same bit for bit (recorded in the manifest), and refuses,
// naming the first value that differs, when one is not; a version-1 folder
// (no canary) refuses another code version; a unit file that cannot be read
// back is set aside and its unit runs again; units and canaries written under
// the rollout class's earlier name (`credit/lucky-guess/*`) are read under its
// current one (`credit/flawed-right/*`), the files left as they are.
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  canaryAdded,
  canaryDiff,
  openSweepFolder,
  type CanaryValues,
  type SweepManifest,
} from "../../src/cli/sweep-folder";
import { canaryValues } from "../../src/cli/sweep-canary";
import type { MetricRow } from "../../src/run/run-types";

const base = mkdtempSync(join(tmpdir(), "reward-lab-sweep-folder-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(base, `s${n++}`);

const MANIFEST: SweepManifest = {
  format: "reward-lab-sweep",
  version: 1,
  command: "claims",
  settings: { size: "tiny", seeds: [1, 2] },
  code: "a".repeat(64),
  coldStarts: { default: { source: "public/checkpoints/x.ckpt", sha256: "b".repeat(64) } },
};
const CANARY: CanaryValues = {
  "rl.x/train/rlvr/-/1/kl": 0.0123,
  "rl.x/eval/rlvr/-/2/acc": 0.5,
  "rl.x/final/oscr": null,
};
const isNumber = (v: unknown): v is number => typeof v === "number";

async function open(dir: string, mode: "new" | "resume", code: string, canary: CanaryValues) {
  const lines: string[] = [];
  let ran = 0;
  const store = await openSweepFolder({
    dir,
    mode,
    manifest: { ...MANIFEST, code },
    isValue: isNumber,
    canary: async () => {
      ran++;
      return canary;
    },
    report: (l) => lines.push(l),
    flagOf: (k) => (k === "seeds" ? "--seeds" : undefined),
  });
  return { store, lines, ran };
}

describe("sweep folder", () => {
  it("keeps the canary in a new folder and does not run it again under the same code", async () => {
    const dir = fresh();
    const a = await open(dir, "new", "a".repeat(64), CANARY);
    expect(a.ran).toBe(1);
    a.store.save("rl.s1.rlvr", 0.25);
    const m = JSON.parse(readFileSync(join(dir, "sweep.json"), "utf8"));
    expect(m.version).toBe(2);
    expect(m.canary).toEqual(CANARY);
    const b = await open(dir, "resume", "a".repeat(64), {});
    expect(b.ran).toBe(0);
    expect(b.store.load("rl.s1.rlvr")).toBe(0.25);
  });

  it("goes on under other code when the canary is the same bit for bit, and records it", async () => {
    const dir = fresh();
    await open(dir, "new", "a".repeat(64), CANARY);
    const b = await open(dir, "resume", "c".repeat(64), { ...CANARY });
    expect(b.ran).toBe(1);
    expect(b.lines.at(-1)).toBe(
      "[sweep] the canary's 3 stored values are the same bit for bit: going on under the new code",
    );
    const m = JSON.parse(readFileSync(join(dir, "sweep.json"), "utf8"));
    expect(m.code).toBe("a".repeat(64)); // the code it was started with stays
    expect(m.resumes).toHaveLength(1);
    expect(m.resumes[0]).toMatchObject({ code: "c".repeat(64), values: 3 });
  });

  it("goes on under code that adds a value (a new metric) and says which, the stored ones the same", async () => {
    const dir = fresh();
    await open(dir, "new", "a".repeat(64), CANARY);
    const more = { ...CANARY, "rl.x/train/rlvr/-/1/credit/contrast/guess/groups": 2 };
    const b = await open(dir, "resume", "c".repeat(64), more);
    expect(b.lines.at(-1)).toBe(
      "[sweep] the canary's 3 stored values are the same bit for bit: going on under the new code; it also gives 1 values the stored canary lacks (new metrics, e.g. rl.x/train/rlvr/-/1/credit/contrast/guess/groups), which the units made before do not carry",
    );
    const m = JSON.parse(readFileSync(join(dir, "sweep.json"), "utf8"));
    expect(m.resumes[0]).toMatchObject({ code: "c".repeat(64), values: 3, added: 1 });
    expect(canaryAdded(CANARY, more)).toEqual(["rl.x/train/rlvr/-/1/credit/contrast/guess/groups"]);
    // An added value beside a changed one is still refused at the changed one.
    expect(canaryDiff(CANARY, { ...more, "rl.x/eval/rlvr/-/2/acc": 0.25 })?.path).toBe(
      "rl.x/eval/rlvr/-/2/acc",
    );
  });

  it("refuses a resume under other code whose canary differs, naming the first value, and leaves the folder", async () => {
    const dir = fresh();
    await open(dir, "new", "a".repeat(64), CANARY);
    const before = readFileSync(join(dir, "sweep.json"), "utf8");
    // One ulp away from 0.5 is a different number.
    const moved = { ...CANARY, "rl.x/eval/rlvr/-/2/acc": 0.5000000000000001 };
    await expect(open(dir, "resume", "c".repeat(64), moved)).rejects.toThrow(
      `--resume ${dir}: the code changed since the sweep was started (code version aaaaaaaaaaaa then, cccccccccccc now) and its canary differs at rl.x/eval/rlvr/-/2/acc: 0.5 then, 0.5000000000000001 now; the new code gives other numbers, so its units would not belong to this sweep: start a new sweep`,
    );
    expect(readFileSync(join(dir, "sweep.json"), "utf8")).toBe(before);
    // NaN (null) against a number, and a value the new code no longer gives.
    expect(canaryDiff(CANARY, { ...CANARY, "rl.x/final/oscr": 0.1 })).toEqual({
      path: "rl.x/final/oscr",
      was: "NaN",
      now: "0.1",
    });
    const { "rl.x/train/rlvr/-/1/kl": _kl, ...fewer } = CANARY;
    expect(canaryDiff(CANARY, fewer)).toEqual({
      path: "rl.x/train/rlvr/-/1/kl",
      was: "0.0123",
      now: "(absent)",
    });
    expect(canaryDiff(CANARY, { ...CANARY })).toBeNull();
  });

  it("refuses another code version for a version-1 folder (no canary), and a changed setting by its flag", async () => {
    const dir = fresh();
    await open(dir, "new", "a".repeat(64), CANARY);
    const m = JSON.parse(readFileSync(join(dir, "sweep.json"), "utf8"));
    const { canary: _c, ...v1 } = m;
    writeFileSync(join(dir, "sweep.json"), JSON.stringify({ ...v1, version: 1 }));
    await expect(open(dir, "resume", "c".repeat(64), CANARY)).rejects.toThrow(
      /the code changed since the sweep was started \(code version aaaaaaaaaaaa then, cccccccccccc now\) and the folder \(version 1\) has no canary/,
    );
    await expect(
      openSweepFolder({
        dir,
        mode: "resume",
        manifest: { ...MANIFEST, settings: { size: "tiny", seeds: [1, 3] } },
        isValue: isNumber,
        canary: async () => CANARY,
        report: () => {},
        flagOf: (k) => (k === "seeds" ? "--seeds" : undefined),
      }),
    ).rejects.toThrow(
      "setting 'seeds' (--seeds) differs: the sweep was started with [1,2], this run has [1,3]",
    );
  });

  it("sets a unit file that cannot be read back aside, reports it, and lets the unit run again", async () => {
    const dir = fresh();
    const { store, lines } = await open(dir, "new", "a".repeat(64), CANARY);
    store.save("rl.s1.rlvr", 0.25);
    store.save("rl.s2.rlvr", 0.5);
    // Cut off mid-write (as a copy or a commit of a file in progress would leave it).
    const file = join(dir, "units", "rl.s1.rlvr.json");
    writeFileSync(file, readFileSync(file, "utf8").slice(0, 20));
    expect(store.load("rl.s1.rlvr")).toBeUndefined();
    expect(existsSync(`${file}.damaged`)).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(lines.at(-1)).toMatch(
      /^\[sweep\] --out .*: units\/rl\.s1\.rlvr\.json could not be read back \(.*\); set aside as units\/rl\.s1\.rlvr\.json\.damaged, the unit runs again$/,
    );
    // Another unit's result under its name: set aside as .damaged.2 on the second time.
    writeFileSync(file, '{"id":"rl.s2.rlvr","value":0.5}');
    expect(store.load("rl.s1.rlvr")).toBeUndefined();
    expect(existsSync(`${file}.damaged.2`)).toBe(true);
    expect(lines.at(-1)).toMatch(/not the result of unit rl\.s1\.rlvr/);
    store.save("rl.s1.rlvr", 0.75);
    expect(store.load("rl.s1.rlvr")).toBe(0.75);
    expect(store.load("rl.s2.rlvr")).toBe(0.5);
  });

  it("reads units and a canary stored under the class's earlier name under its current one", async () => {
    const dir = fresh();
    const old: CanaryValues = {
      ...CANARY,
      "rl.x/train/rlvr/-/1/credit/lucky-guess/share": 0.25,
      "rl.x/train/rlvr/-/1/credit/contrast/wrong-steps/groups": 1,
    };
    await open(dir, "new", "a".repeat(64), old);
    const before = readFileSync(join(dir, "sweep.json"), "utf8");
    // The new code's canary names the class flawed-right: the same figures, so it goes on.
    const now = {
      ...CANARY,
      "rl.x/train/rlvr/-/1/credit/flawed-right/share": 0.25,
      "rl.x/train/rlvr/-/1/credit/contrast/wrong-steps/groups": 1,
    };
    const isUnit = (v: unknown): v is { rows: MetricRow[] } =>
      Array.isArray((v as { rows?: unknown }).rows);
    const lines: string[] = [];
    const store = await openSweepFolder({
      dir,
      mode: "resume",
      manifest: { ...MANIFEST, code: "c".repeat(64) },
      isValue: isUnit,
      canary: async () => now,
      report: (l) => lines.push(l),
    });
    expect(lines.at(-1)).toMatch(/the canary's 5 stored values are the same bit for bit/);
    expect(JSON.parse(readFileSync(join(dir, "sweep.json"), "utf8")).canary).toEqual(
      JSON.parse(before).canary,
    );
    const row = (values: Record<string, number>) => ({
      variant: "rlvr",
      step: 1,
      time: 2,
      kind: "train",
      values,
    });
    const file = join(dir, "units", "rl.s1.rlvr.json");
    const text = JSON.stringify({
      id: "rl.s1.rlvr",
      value: { rows: [row({ kl: 0.01, "credit/lucky-guess/share": 0.25 })], final: null },
    });
    writeFileSync(file, text);
    expect(store.load("rl.s1.rlvr")).toEqual({
      rows: [row({ kl: 0.01, "credit/flawed-right/share": 0.25 })],
      final: null,
    });
    expect(readFileSync(file, "utf8")).toBe(text);
    // A unit of the mechanism sweep (docs/results/mechanism), written before the rename.
    const stored = resolve(
      import.meta.dirname,
      "../../docs/results/mechanism/units/rl.scs.s303.rlvr.json",
    );
    copyFileSync(stored, join(dir, "units", "rl.scs.s303.rlvr.json"));
    const unit = store.load("rl.scs.s303.rlvr");
    const train = unit?.rows.filter((r) => r.kind === "train") ?? [];
    expect(train.length).toBeGreaterThan(0);
    for (const r of train) {
      expect(r.values["credit/flawed-right/share"], `step ${r.step}`).toBeGreaterThanOrEqual(0);
      expect(Object.keys(r.values).filter((k) => k.includes("lucky-guess"))).toEqual([]);
    }
    // Both names in one row: not readable, set aside, the unit runs again.
    writeFileSync(
      file,
      JSON.stringify({
        id: "rl.s1.rlvr",
        value: {
          rows: [row({ "credit/lucky-guess/share": 0.25, "credit/flawed-right/share": 0.25 })],
        },
      }),
    );
    expect(store.load("rl.s1.rlvr")).toBeUndefined();
    expect(existsSync(`${file}.damaged`)).toBe(true);
    expect(lines.at(-1)).toContain(
      "units/rl.s1.rlvr.json: rows[0] holds both 'credit/lucky-guess/share' and 'credit/flawed-right/share'",
    );
  });

  it("takes a canary's figures from unit values, leaving wall times and cost metrics out", () => {
    const values = canaryValues(
      new Map<string, unknown>([
        [
          "rl.default.s1.rlvr",
          {
            rows: [
              {
                variant: "rlvr",
                step: 1,
                time: 3.2,
                kind: "train",
                values: { kl: 0.01, step_time_ms: 812, reward_mean: Number.NaN },
              },
            ],
            final: { acc: 0.5 },
          },
        ],
        ["start.default.s1", { coldStart: { acc: 0.25 } }],
        ["stability.default.s1", { stability: [{ sigmaB: 0, pointwise: 0.1, groupwise: 0.05 }] }],
      ]),
    );
    expect(values).toEqual({
      "rl.default.s1.rlvr/train/rlvr/-/1/kl": 0.01,
      "rl.default.s1.rlvr/train/rlvr/-/1/reward_mean": null,
      "rl.default.s1.rlvr/final/acc": 0.5,
      "start.default.s1/coldStart/acc": 0.25,
      "stability.default.s1/stability/0/sigmaB": 0,
      "stability.default.s1/stability/0/pointwise": 0.1,
      "stability.default.s1/stability/0/groupwise": 0.05,
    });
  });
});
