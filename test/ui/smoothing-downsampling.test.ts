import { describe, expect, it } from "vitest";
import { debiasedEma } from "../../src/ui/lib/ema";
import { lttbIndices } from "../../src/ui/lib/downsample";
import { throttle } from "../../src/ui/lib/throttle";
import { vi } from "vitest";

describe("debiased EMA (TensorBoard smoothing)", () => {
  it("matches TensorBoard's recurrence on a worked example", () => {
    // w = 0.6: last_1 = 0.4·1 = 0.4, debias 0.4 → 1; last_2 = 0.24 + 0.4·2 = 1.04, debias 1 − 0.36 = 0.64 → 1.625
    const s = debiasedEma([1, 2], 0.6);
    expect(s[0]).toBeCloseTo(1, 12);
    expect(s[1]).toBeCloseTo(1.625, 12);
  });
  it("is the identity at weight 0 and leaves a constant series unchanged (no pull towards 0)", () => {
    expect(debiasedEma([3, -1, 7], 0)).toEqual([3, -1, 7]);
    for (const v of debiasedEma([0.5, 0.5, 0.5, 0.5], 0.9)) expect(v).toBeCloseTo(0.5, 12);
  });
  it("passes non-finite values through without poisoning later points", () => {
    const s = debiasedEma([1, NaN, 1], 0.6);
    expect(Number.isNaN(s[1])).toBe(true);
    expect(s[2]).toBeCloseTo(1, 12);
  });
});

describe("LTTB downsampling", () => {
  const n = 5000;
  const xs = Array.from({ length: n }, (_, i) => i);
  const ys = xs.map((x) => Math.sin(x / 50) + (x === 2345 ? 10 : 0));
  it("keeps at most the threshold, first and last, in increasing order", () => {
    const idx = lttbIndices(xs, ys, 500);
    expect(idx.length).toBe(500);
    expect(idx[0]).toBe(0);
    expect(idx[idx.length - 1]).toBe(n - 1);
    for (let i = 1; i < idx.length; i++) expect(idx[i]).toBeGreaterThan(idx[i - 1]);
  });
  it("keeps a single spike visible", () => {
    expect(lttbIndices(xs, ys, 500)).toContain(2345);
  });
  it("returns every index when the series is short", () => {
    expect(lttbIndices([1, 2, 3], [1, 2, 3], 500)).toEqual([0, 1, 2]);
  });
});

describe("throttle (charts re-render at most 4×/s)", () => {
  it("runs at once, then at most once per interval with a trailing call", () => {
    vi.useFakeTimers();
    let t = 0;
    let calls = 0;
    const th = throttle(
      () => calls++,
      250,
      () => t,
    );
    th();
    expect(calls).toBe(1);
    for (let i = 0; i < 10; i++) {
      t += 10;
      th();
    }
    expect(calls).toBe(1);
    t = 250;
    vi.advanceTimersByTime(250);
    expect(calls).toBe(2);
    th.cancel();
    vi.useRealTimers();
  });
});
