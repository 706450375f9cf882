/**
 * Harness for test/fixtures/vectors.json (test/fixtures/README.md, "Harness
 * conventions" 1–7; test/fixtures/reports.md names the public report behind
 * each vector).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  answersEquivalent,
  extractBoxed,
  extractOptionLetter,
  parseJudgeRanking,
  parseTrace,
} from "../../src/rewards/index";
import { groupAdvantages } from "../../src/kernels/advantages/reference";

interface Vector {
  id: string;
  kind: string;
  fn: string;
  input: Record<string, unknown>;
  expected: unknown;
  note: string;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const vectorsPath = path.resolve(repoRoot, "test/fixtures/vectors.json");
const vectors: Vector[] = JSON.parse(readFileSync(vectorsPath, "utf8"));

// biome-ignore lint/suspicious/noExplicitAny: each case's input is the function's own argument shape
const FUNCTIONS: Record<string, (arg: any) => unknown> = {
  extractBoxed,
  parseTrace,
  extractOptionLetter,
  answersEquivalent,
  groupAdvantages,
  parseJudgeRanking,
};
const PARTIAL = new Set(["parseTrace", "parseJudgeRanking"]);

// Checked while the suite is collected, i.e. before any vector runs: a
// duplicate id or an unknown fn fails the whole file instead of being skipped.
{
  const seen = new Set<string>();
  for (const v of vectors) {
    if (seen.has(v.id)) throw new Error(`vectors.json: duplicate id ${v.id}`);
    seen.add(v.id);
    if (!(v.fn in FUNCTIONS)) throw new Error(`vectors.json: unknown fn ${v.fn} in ${v.id}`);
  }
}

function buildArgs(v: Vector): Record<string, unknown> {
  const args: Record<string, unknown> = { ...v.input };
  const tpl = args.textTemplate as
    | { prefix: string; repeat: string; times: number; suffix: string }
    | undefined;
  if (tpl) {
    delete args.textTemplate;
    args.text = tpl.prefix + tpl.repeat.repeat(tpl.times) + tpl.suffix;
  }
  // The cases name the estimator `method`; the lab's reference calls it `estimator`.
  if (v.fn === "groupAdvantages" && "method" in args) {
    args.estimator = args.method;
    delete args.method;
  }
  if (v.fn === "groupAdvantages" && Array.isArray(args.rewards)) {
    const special: Record<string, number> = {
      NaN: NaN,
      Infinity: Infinity,
      "-Infinity": -Infinity,
    };
    args.rewards = (args.rewards as unknown[]).map((r) =>
      typeof r === "string" && r in special ? special[r] : r,
    );
  }
  return args;
}

function describeFailure(v: Vector, actual: unknown): string {
  const show = (x: unknown) => {
    const s = JSON.stringify(x, (_k, val) =>
      typeof val === "number" && !Number.isFinite(val) ? String(val) : val,
    );
    return s && s.length > 600 ? `${s.slice(0, 600)}…` : s;
  };
  return `[${v.id}] ${v.note}\n  expected: ${show(v.expected)}\n  actual:   ${show(actual)}`;
}

function matches(v: Vector, actual: unknown): boolean {
  if (v.fn === "groupAdvantages") {
    const exp = v.expected as number[];
    const act = actual as number[];
    return (
      Array.isArray(act) &&
      act.length === exp.length &&
      act.every((a, i) => Number.isFinite(a) && Math.abs(a - exp[i]) <= 1e-6)
    );
  }
  if (PARTIAL.has(v.fn)) {
    const exp = v.expected as Record<string, unknown>;
    const act = actual as Record<string, unknown>;
    if (typeof act !== "object" || act === null) return false;
    const picked: Record<string, unknown> = {};
    for (const key of Object.keys(exp)) {
      if (!(key in act)) return false;
      picked[key] = act[key];
    }
    if (v.fn === "parseTrace" && Array.isArray(picked.steps)) {
      // Only the keys the vector lists are checked, also inside steps.
      const expSteps = exp.steps as Record<string, unknown>[];
      picked.steps = (picked.steps as Record<string, unknown>[]).map((s, i) => {
        const keys = Object.keys(expSteps[i] ?? s);
        return Object.fromEntries(keys.map((k) => [k, s[k]]));
      });
    }
    return (
      JSON.stringify(picked) ===
      JSON.stringify(Object.fromEntries(Object.keys(exp).map((k) => [k, exp[k]])))
    );
  }
  return actual === v.expected;
}

describe("case vectors", () => {
  it("has unique ids and only known functions", () => {
    const ids = new Set<string>();
    const dup: string[] = [];
    for (const v of vectors) {
      if (ids.has(v.id)) dup.push(v.id);
      ids.add(v.id);
    }
    expect(dup, "duplicate ids").toEqual([]);
    const unknown = vectors.filter((v) => !(v.fn in FUNCTIONS)).map((v) => `${v.id}: ${v.fn}`);
    expect(unknown, "unknown fn").toEqual([]);
    expect(vectors.length).toBe(132);
  });

  // Unknown functions fail loudly at registration instead of being skipped.
  for (const v of vectors) {
    it(v.id, () => {
      const fn = FUNCTIONS[v.fn];
      if (!fn) throw new Error(`[${v.id}] unknown fn ${v.fn}`);
      const args = buildArgs(v);
      const wantsThrow =
        typeof v.expected === "object" &&
        v.expected !== null &&
        (v.expected as { throws?: boolean }).throws === true;
      if (wantsThrow) {
        let threw: unknown = null;
        try {
          fn(args);
        } catch (e) {
          threw = e;
        }
        expect(threw instanceof Error, describeFailure(v, "no throw")).toBe(true);
        return;
      }
      let actual: unknown;
      try {
        actual = fn(args);
      } catch (e) {
        throw new Error(describeFailure(v, `threw ${String(e)}`));
      }
      expect(matches(v, actual), describeFailure(v, actual)).toBe(true);
    });
  }
});
