// The sweep runner (src/run/sweep.ts): units run in order and each result is
// stored as it finishes; a second run with the same store runs only the
// units it lacks; the progress line counts seed-variants and estimates the
// time left from this run's units (or the prior); ids are checked; and the
// seed limit follows from the time budget (checkTimeBudget).
import { describe, expect, it } from "vitest";
import {
  checkTimeBudget,
  formatDuration,
  memoryStore,
  runSweep,
  type SweepUnit,
} from "../../src/run/sweep";

function units(ran: string[], failAt?: string): SweepUnit<number>[] {
  const make = (id: string, kind: "seed" | "seed-variant", value: number): SweepUnit<number> => ({
    id,
    kind,
    label: id,
    run: async () => {
      if (id === failAt) throw new Error(`unit ${id} failed`);
      ran.push(id);
      return value;
    },
  });
  return [
    make("start.s1", "seed", 10),
    make("rl.s1.a", "seed-variant", 11),
    make("rl.s1.b", "seed-variant", 12),
    make("start.s2", "seed", 20),
    make("rl.s2.a", "seed-variant", 21),
    make("rl.s2.b", "seed-variant", 22),
  ];
}

describe("runSweep", () => {
  it("stores each unit as it finishes and, resumed from the store, runs only the rest", async () => {
    const store = memoryStore<number>();
    const ran: string[] = [];
    const lines: string[] = [];
    await expect(runSweep(units(ran, "rl.s2.a"), store, (l) => lines.push(l))).rejects.toThrow(
      "unit rl.s2.a failed",
    );
    expect(ran).toEqual(["start.s1", "rl.s1.a", "rl.s1.b", "start.s2"]);
    expect(store.load("rl.s1.b")).toBe(12);
    expect(store.load("rl.s2.a")).toBeUndefined();
    expect(lines.filter((l) => l.includes("seed-variant"))).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^\[sweep\] seed-variant 1 of 4 \(rl\.s1\.a\) done in \d+ s; about \d+ s left$/,
    );

    const again: string[] = [];
    const lines2: string[] = [];
    const all = await runSweep(units(again), store, (l) => lines2.push(l));
    expect(again).toEqual(["rl.s2.a", "rl.s2.b"]);
    expect([...all.values()]).toEqual([10, 11, 12, 20, 21, 22]);
    expect(lines2[0]).toBe(
      "[sweep] 2 of 4 seed-variants (and 2 other units) were done already; going on with the rest",
    );
    expect(lines2.at(-1)).toMatch(
      /^\[sweep\] seed-variant 4 of 4 \(rl\.s2\.b\) done in .*; about 0 s left$/,
    );
  });

  it("estimates the time left from the prior until a unit of the kind has run", async () => {
    const lines: string[] = [];
    await runSweep(units([]), memoryStore(), (l) => lines.push(l), {
      "seed-variant": 600,
      seed: 60,
    });
    // After start.s1 (a seed unit, measured ~0 s): 4 seed-variants × 600 s (prior) + 1 seed unit × ~0 s.
    expect(lines[0]).toBe("[sweep] start.s1 done in 0 s; about 40 min left");
  });

  it("refuses ids that repeat or are not file-safe", async () => {
    const bad = [{ id: "a/b", kind: "seed" as const, label: "x", run: async () => 1 }];
    await expect(runSweep(bad, memoryStore(), () => {})).rejects.toThrow(/'a\/b' is not file-safe/);
    const twice = [bad[0], bad[0]].map((u) => ({ ...u, id: "a" }));
    await expect(runSweep(twice, memoryStore(), () => {})).rejects.toThrow(/'a' appears twice/);
  });
});

describe("checkTimeBudget (the seed limit from cost)", () => {
  it("lets a sweep within the budget start and names the seeds that fit otherwise", () => {
    expect(() =>
      checkTimeBudget({ seconds: 3600, perSeed: 180, seeds: 20, maxHours: 1 }),
    ).not.toThrow();
    // 30 seeds at 180 s per seed = 1.5 h; one hour holds 3600 / 180 = 20 seeds.
    expect(() => checkTimeBudget({ seconds: 5400, perSeed: 180, seeds: 30, maxHours: 1 })).toThrow(
      "the sweep's estimated run time, about 1.5 h for 30 seeds (3 min per seed, measured on this device), is over --max-hours 1: 20 seeds fit; give fewer seeds or a larger --max-hours",
    );
    expect(() => checkTimeBudget({ seconds: 1, perSeed: 1, seeds: 1, maxHours: 0 })).toThrow(
      /--max-hours must be a number > 0/,
    );
    expect(formatDuration(45)).toBe("45 s");
    expect(formatDuration(600)).toBe("10 min");
    expect(formatDuration(9000)).toBe("2.5 h");
  });
});
