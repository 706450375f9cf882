// The sweep runner (src/run/sweep.ts): units run in order and each result is
// stored as it finishes; a second run with the same store runs only the
// units it lacks; the progress line counts seed-variants and estimates the
// time left from this run's units (or the prior); ids are checked; and a
// sitting's budget (--max-hours) ends the sweep cleanly between units.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  formatDuration,
  memoryStore,
  runSweep,
  sittingSeconds,
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
    expect(all.complete).toBe(true);
    expect([...all.results.values()]).toEqual([10, 11, 12, 20, 21, 22]);
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

describe("a sitting's budget (--max-hours)", () => {
  afterEach(() => vi.restoreAllMocks());

  /** Units that take `cost` seconds each on a fake clock (performance.now). */
  function timed(cost: Record<string, number>, ran: string[]): SweepUnit<number>[] {
    let now = 0;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    return units([]).map((u) => ({
      ...u,
      run: async () => {
        ran.push(u.id);
        now += cost[u.kind] * 1000;
        return 1;
      },
    }));
  }

  it("starts a unit only when the time spent and its estimate fit, and stops between units", async () => {
    const ran: string[] = [];
    const lines: string[] = [];
    const store = memoryStore<number>();
    // Seed units 60 s, seed-variants 600 s, a 1500 s sitting: start.s1 (60), rl.s1.a (660),
    // rl.s1.b (1260), start.s2 (1320); rl.s2.a would end at 1920 s > 1500 s.
    const out = await runSweep(
      timed({ seed: 60, "seed-variant": 600 }, ran),
      store,
      (l) => lines.push(l),
      { seed: 60, "seed-variant": 600 },
      1500,
    );
    expect(ran).toEqual(["start.s1", "rl.s1.a", "rl.s1.b", "start.s2"]);
    expect(out).toMatchObject({ complete: false, done: 4, left: 2 });
    expect(lines.at(-1)).toBe(
      "[sweep] stopping between units: rl.s2.a (about 10 min) would not end within this sitting's 25 min (--max-hours); 4 of 6 units done, 2 left",
    );
    // The next sitting goes on with the two left.
    const ran2: string[] = [];
    const next = await runSweep(
      timed({ seed: 60, "seed-variant": 600 }, ran2),
      store,
      () => {},
      {},
      1500,
    );
    expect(ran2).toEqual(["rl.s2.a", "rl.s2.b"]);
    expect(next.complete).toBe(true);
  });

  it("always starts a unit of unknown cost, so a sitting is never empty, and reads --max-hours", async () => {
    const ran: string[] = [];
    const out = await runSweep(
      timed({ seed: 60, "seed-variant": 600 }, ran),
      memoryStore(),
      () => {},
      {},
      30,
    );
    // start.s1 (no estimate) runs; then a seed unit is estimated at 60 s > 30 s.
    expect(ran).toEqual(["start.s1"]);
    expect(out.complete).toBe(false);
    expect(sittingSeconds(1.5)).toBe(5400);
    expect(() => sittingSeconds(0)).toThrow("--max-hours must be a number > 0, got 0");
    expect(() => sittingSeconds(Number.NaN)).toThrow(/--max-hours must be a number > 0/);
    expect(formatDuration(45)).toBe("45 s");
    expect(formatDuration(600)).toBe("10 min");
    expect(formatDuration(9000)).toBe("2.5 h");
  });
});
