// The benchmark harness (scripts/bench/harness.ts): medians and spreads by
// hand, warm-up and timed calls counted, and every flag error names its flag.
import { describe, expect, it } from "vitest";
import { median, parseBenchFlags, round, summarize, timeRuns } from "../../scripts/bench/harness";
import { usageLine } from "../../src/lib/cli-table";

const SPEC = {
  steps: { kind: "int", min: 5, max: 50, default: 5, help: "timed steps" },
  minutes: { kind: "number", above: 0, max: 120, default: 15, help: "wall time" },
  size: { kind: "enum", of: ["small", "default"], default: "small", help: "model size" },
  env: { kind: "list", of: ["node", "chromium"], default: ["node", "chromium"], help: "where" },
  hash: { kind: "string", help: "a shared link's hash" },
  compact: { kind: "bool", help: "the compacted graph" },
} as const;
const KNOWN = "--steps --minutes --size --env --hash --compact (--help explains each)";

describe("median and summarize", () => {
  it("odd and even counts, unsorted input", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5); // (2 + 3) / 2
    expect(summarize([12, 10, 15, 11, 14])).toEqual({
      median: 12,
      min: 10,
      max: 15,
      spread: 5,
      runs: 5,
    });
    expect(() => median([])).toThrow(/no samples/);
    expect(round(2.34567, 2)).toBe(2.35);
    expect(round(1234.56, 0)).toBe(1235);
  });
});

describe("timeRuns", () => {
  it("calls fn warmup + repeats times, times only the repeats, passes the run index", async () => {
    const seen: number[] = [];
    const t = await timeRuns("x", { warmup: 2, repeats: 3 }, async (run) => {
      seen.push(run);
    });
    expect(seen).toEqual([-1, -2, 0, 1, 2]);
    expect(t.runs).toBe(3);
    expect(t.min).toBeLessThanOrEqual(t.median);
    expect(t.max).toBeGreaterThanOrEqual(t.median);
    expect(t.spread).toBeCloseTo(t.max - t.min, 12);
    await expect(timeRuns("y", { repeats: 0 }, async () => {})).rejects.toThrow(
      /y: repeats must be an integer ≥ 1, got 0/,
    );
  });
});

describe("parseBenchFlags", () => {
  it("fills in the defaults and reads every kind", () => {
    expect(parseBenchFlags([], SPEC)).toEqual({
      steps: 5,
      minutes: 15,
      size: "small",
      env: ["node", "chromium"],
      hash: undefined,
      compact: false,
    });
    expect(
      parseBenchFlags(
        ["--steps", "7", "--minutes", "0.5", "--size", "default", "--env", "node", "--compact"],
        SPEC,
      ),
    ).toMatchObject({ steps: 7, minutes: 0.5, size: "default", env: ["node"], compact: true });
    expect(parseBenchFlags(["--hash", "#abc"], SPEC).hash).toBe("#abc");
  });

  it.each([
    [["--steps", "4"], "--steps must be an integer in [5, 50] (timed steps), got '4'"],
    [["--steps", "5.5"], "--steps must be an integer in [5, 50] (timed steps), got '5.5'"],
    [["--minutes", "0"], "--minutes must be a number in (0, 120] (wall time), got '0'"],
    [["--minutes", "x"], "--minutes must be a number in (0, 120] (wall time), got 'x'"],
    [["--size", "huge"], "--size must be one of small, default (model size), got 'huge'"],
    [["--env", "node,firefox"], "--env takes node and/or chromium (where), got 'firefox'"],
    [["--steps"], "--steps needs a value (timed steps)"],
    [["--steps", "--compact"], "--steps needs a value (timed steps)"],
    [["--steps", "6", "--steps", "7"], "--steps is given twice"],
    [["7"], "unexpected argument '7': this command takes flags only"],
    [["--bogus"], `unknown option --bogus; known: ${KNOWN}`],
    [["--__proto__", "1"], `unknown option --__proto__; known: ${KNOWN}`],
  ])("%j is an error naming the flag", (argv, message) => {
    expect(() => parseBenchFlags(argv, SPEC)).toThrow(message);
  });

  it("shows the flags in the usage line", () => {
    expect(usageLine({ command: "bench", summary: "", flags: SPEC })).toBe(
      "bench [--steps N] [--minutes N] [--size small|default] [--env node,chromium] [--hash TEXT] [--compact]",
    );
  });
});
