/**
 * The variant, estimator and metric tables, walked entry by entry: a new
 * entry is tested by being added. Every variant scores a group through the
 * reward side (scoreBatch), has a label, formula and source, a weight schema
 * that parses its defaults and its paper values, page info for every weight,
 * and components the metric table knows; every estimator runs in the CPU
 * reference; every eval metric the producer returns is in the metric table.
 */
import { rolloutPrefixes } from "../../src/prm/scorer";
import { loadSandbox } from "../../src/rewards/sandbox";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../src/rewards/index";
import { groupAdvantages } from "../../src/kernels/advantages/reference";
import {
  ESTIMATOR_NAMES,
  ESTIMATOR_TABLE,
  estimatorEntry,
} from "../../src/settings/estimator-table";
import { DISTINCT_KS, evalMetrics } from "../../src/rl/eval-metrics";
import {
  findVariant,
  parseExperiment,
  variantDefaults,
  VariantSchema,
} from "../../src/settings/experiment";
import { COMPONENT_PREFIX, METRIC_TABLE, metricDef } from "../../src/settings/metric-table";
import { scoreBatch, scoringPrompt } from "../../src/rl/reward-contract";
import { applyVariantSetting } from "../../src/settings/variant-settings";
import {
  JUDGE_FIELDS,
  VARIANT_NAMES,
  VARIANT_TABLE,
  variantEntry,
  type GroupPasses,
} from "../../src/settings/variant-table";
import { sliderRange } from "../../src/settings/weight-controls";
import { samplePrompts, sampleRollout } from "../rewards/policy";

const rng = mulberry32(11);
const prompts = samplePrompts(3, rng);
const texts = prompts.map((p) => [
  p.sftTarget,
  ...Array.from({ length: 5 }, () => sampleRollout(p, rng)),
]);

/**
 * What a variant's generation passes would hand the reward side for these
 * texts (src/rl/passes.ts): SCS continuations (each rollout's own text and
 * two of its group's), ACRE second asks (the same texts under reversed options).
 */
function passesFor(entry: (typeof VARIANT_TABLE)[number]): GroupPasses[] | undefined {
  if (entry.passes.length === 0) return undefined;
  return texts.map((group, g) => {
    const out: GroupPasses = {};
    if (entry.passes.includes("truncated-continuations")) {
      out.continuations = group.map((t, k) => [t, group[(k + 1) % group.length], group[0]]);
      out.keptTokens = group.map(() => 3);
    }
    if (entry.passes.includes("option-shuffle-reask")) {
      const o = prompts[g].options!;
      const reversed = { A: o.D, B: o.C, C: o.B, D: o.A };
      out.reask = {
        texts: group.map((t, k) => (k === 1 ? null : t)),
        options: group.map(() => reversed),
      };
    }
    return out;
  });
}

describe("variant table", () => {
  it("names each variant once, in the order of VARIANT_NAMES", () => {
    expect(VARIANT_TABLE.map((v) => v.name)).toEqual(VARIANT_NAMES);
    expect(new Set(VARIANT_NAMES).size).toBe(VARIANT_NAMES.length);
    expect(new Set(VARIANT_TABLE.map((v) => v.color)).size).toBe(VARIANT_TABLE.length);
  });

  for (const entry of VARIANT_TABLE) {
    describe(entry.name, () => {
      it("has a label, a formula, a source and a blurb", () => {
        expect(entry.label.trim()).not.toBe("");
        expect(entry.formula.length).toBeGreaterThan(0);
        for (const line of entry.formula) expect(line.trim()).not.toBe("");
        expect(entry.source.paper.trim()).not.toBe("");
        expect(entry.source.where).toMatch(/§/);
        expect(entry.blurb.trim()).not.toBe("");
        expect(entry.color).toMatch(/^#[0-9a-f]{6}$/i);
      });

      it("parses its default weights and its paper values; page info for every weight", () => {
        const defaults: Readonly<Record<string, unknown>> = entry.weights.parse({});
        expect(Object.keys(entry.weightInfo).sort()).toEqual(Object.keys(defaults).sort());
        const paper = Object.fromEntries(
          Object.entries(entry.weightInfo).map(([k, w]) => [
            k,
            w.kind === "code" ? defaults[k] : w.paper,
          ]),
        );
        expect(entry.weights.parse(paper)).toEqual(paper);
        for (const [k, w] of Object.entries(entry.weightInfo)) {
          expect(w.label.trim(), k).not.toBe("");
          expect(w.short.trim(), k).not.toBe("");
          expect(w.tip.trim(), k).not.toBe("");
          if (w.kind === "number") {
            expect(typeof defaults[k], k).toBe("number");
            // The slider's range is the schema's (a narrower page maximum only inside it).
            const range = entry.ranges[k];
            expect(range, k).toBeDefined();
            expect(sliderRange(entry.name, k).min, k).toBe(range.min);
            expect(sliderRange(entry.name, k).max, k).toBeGreaterThan(range.min);
            expect(sliderRange(entry.name, k).max, k).toBeLessThanOrEqual(range.max);
            // The range is the one the schema holds: its ends pass, one past either end is refused.
            const allMax = Object.fromEntries(
              Object.entries(entry.ranges).map(([key, r]) => [key, r.max]),
            );
            expect(entry.weights.safeParse(allMax).success, k).toBe(true);
            for (const bad of [range.max + 1, range.min - 1]) {
              const issues = entry.weights.safeParse({ ...allMax, [k]: bad }).error?.issues ?? [];
              expect(
                issues.map((i) => i.path[0]),
                `${k}=${bad}`,
              ).toContain(k);
            }
          } else if (w.kind === "code") {
            // A written reward's code: a string, capped.
            expect(typeof defaults[k], k).toBe("string");
            expect(() => entry.weights.parse({ [k]: "x".repeat(100_000) })).toThrow();
          } else {
            // Every choice the schema allows has a label and a formula, and no other.
            for (const o of w.options) {
              const parsed: Readonly<Record<string, unknown>> = entry.weights.parse({
                [k]: o.value,
              });
              expect(parsed[k]).toBe(o.value);
            }
            expect(() => entry.weights.parse({ [k]: "no-such-choice" })).toThrow();
            expect(w.options.map((o) => o.value)).toContain(defaults[k]);
          }
        }
        // An unknown weight is an error naming it (the schema is strict).
        const r = VariantSchema.safeParse({ name: entry.name, weights: { noSuchWeight: 1 } });
        expect(r.success).toBe(false);
        expect(JSON.stringify(r.error?.issues)).toMatch(/noSuchWeight/);
      });

      it("fills the experiment's defaults from the entry (weights, estimator, β)", () => {
        const v = variantDefaults(entry.name);
        expect(v.weights).toEqual(entry.weights.parse({}));
        expect(v.estimator).toBe(entry.estimator);
        expect(v.beta).toBe(entry.beta);
        if (entry.estimator !== undefined) expect(ESTIMATOR_NAMES).toContain(entry.estimator);
        if (entry.beta !== undefined) expect(entry.beta).toBeGreaterThanOrEqual(0);
        expect(["none", "pointwise", "groupwise"]).toContain(entry.judge);
        expect(Array.isArray(entry.passes)).toBe(true);
      });

      it("scores a batch of groups through the reward side, with components the metric table knows", async () => {
        // A variant that reads the PRM gets its step scores (here 0.5 for every step).
        const steps = entry.prm
          ? texts.map((g) => g.map((t) => rolloutPrefixes(t).map(() => 0.5)))
          : undefined;
        const res = scoreBatch(
          {
            variant: variantDefaults(entry.name),
            prompts: prompts.map(scoringPrompt),
            texts,
            seed: 5,
            passes: passesFor(entry),
          },
          steps,
          // A written reward runs in the sandbox (its default code: RLVR in the editor's terms).
          entry.sandboxed ? await loadSandbox() : undefined,
        );
        expect(res.groups).toHaveLength(prompts.length);
        for (const [g, group] of res.groups.entries()) {
          expect(group.rollouts).toHaveLength(texts[g].length);
          for (const r of group.rollouts) {
            expect(Number.isFinite(r.total)).toBe(true);
            for (const c of Object.keys(r.components))
              expect(
                metricDef(`${COMPONENT_PREFIX}${c}`),
                `${entry.name} component ${c}`,
              ).toBeDefined();
          }
          if (entry.judge === "none") expect(group.judgeCalls).toBe(0);
          else expect(group.judgeCalls).toBeGreaterThan(0);
        }
        // The reference trace passes the verifier: the groupwise judge is called once per group.
        if (entry.judge === "groupwise") for (const g of res.groups) expect(g.judgeCalls).toBe(1);
        // Same seed, same rewards.
        const sandbox = entry.sandboxed ? await loadSandbox() : undefined;
        const again = scoreBatch(
          {
            variant: variantDefaults(entry.name),
            prompts: prompts.map(scoringPrompt),
            texts,
            seed: 5,
            passes: passesFor(entry),
          },
          steps,
          sandbox,
        );
        // A written reward without its sandbox says so.
        if (entry.sandboxed)
          expect(() =>
            scoreBatch({
              variant: variantDefaults(entry.name),
              prompts: prompts.map(scoringPrompt),
              texts,
              seed: 5,
            }),
          ).toThrow(/reward sandbox is not loaded/);
        expect(again).toEqual(res);
        // A PRM variant without step scores says the PRM gave none.
        if (entry.prm)
          expect(() =>
            scoreBatch({
              variant: variantDefaults(entry.name),
              prompts: prompts.map(scoringPrompt),
              texts,
              seed: 5,
            }),
          ).toThrow(/PRM gave no step scores/);
        // A variant whose passes did not run says which pass is missing.
        if (entry.passes.length > 0)
          expect(() =>
            scoreBatch({
              variant: variantDefaults(entry.name),
              prompts: prompts.map(scoringPrompt),
              texts,
              seed: 5,
            }),
          ).toThrow(/pass gave no/);
      });
    });
  }

  it("refuses an unknown variant by name, listing the table's", () => {
    expect(() => variantEntry("nope")).toThrow(/unknown variant 'nope'; known: rlvr, /);
    expect(() => parseExperiment({ variants: [{ name: "nope" }] })).toThrow(/variants\.0\.name/);
    expect(() =>
      scoreBatch({
        variant: { name: "nope" } as never,
        prompts: [],
        texts: [],
        seed: 1,
      }),
    ).toThrow(/unknown variant 'nope'/);
  });

  it("names a bad weight by its path", () => {
    expect(() => parseExperiment({ variants: [{ name: "grr", weights: { lambda: 99 } }] })).toThrow(
      /variants\.0\.weights\.lambda/,
    );
    expect(() =>
      parseExperiment({ variants: [{ name: "grr", weights: { mapping: "nope" } }] }),
    ).toThrow(/variants\.0\.weights\.mapping/);
  });
});

describe("variant settings as text (VARIANT.KEY=VALUE)", () => {
  const base = parseExperiment({ variants: [{ name: "rlvr" }, { name: "grr" }] }).variants;

  it("sets a weight, a judge setting, an estimator and β through the variant's schema", () => {
    let v = applyVariantSetting(base, "grr.lambda=0.5");
    v = applyVariantSetting(v, "grr.weights.mapping=edn");
    v = applyVariantSetting(v, "grr.delta=0.1");
    v = applyVariantSetting(v, "grr.estimator=rloo");
    v = applyVariantSetting(v, "rlvr.beta=0");
    expect(v[1]).toMatchObject({
      name: "grr",
      weights: { lambda: 0.5, mapping: "edn" },
      judge: { delta: 0.1 },
      estimator: "rloo",
    });
    expect(v[0].beta).toBe(0);
    expect(findVariant({ variants: base }, "grr")!.weights.lambda).toBe(1); // the input is not changed
  });

  it("names the judge: text-auditor by default, oracle-auditor by --set grr.judge=…", () => {
    expect(base[1].judge.name).toBe("text-auditor");
    const v = applyVariantSetting(base, "grr.judge=oracle-auditor");
    expect(v[1].judge.name).toBe("oracle-auditor");
    expect(() => applyVariantSetting(base, "grr.judge=gpt")).toThrow(/grr\.judge\.name/);
    expect(() => applyVariantSetting(base, "rlvr.judge=oracle-auditor")).toThrow(
      /rlvr calls no judge/,
    );
  });

  it.each([
    ["grr.lambda=abc", /grr\.weights\.lambda: Invalid input: expected number/],
    ["grr.lambda=99", /grr\.weights\.lambda: Too big/],
    ["grr.mapping=xyz", /grr\.weights\.mapping/],
    ["nope.x=1", /unknown variant 'nope'/],
    ["grr.x=1", /grr has no setting 'x'; known: lambda, mapping/],
    ["rlvr.sigmaJ=0.1", /rlvr calls no judge/],
    ["structreward.fmt=0.2", /'structreward' is not in this run/],
    ["grr.lambda", /expected VARIANT\.KEY=VALUE/],
  ])("refuses %s naming the field", (setting, msg) => {
    expect(() => applyVariantSetting(base, setting)).toThrow(msg);
  });
});

describe("estimator table", () => {
  it("has one entry per advantage estimator of the CPU reference, each runnable", () => {
    expect(Object.keys(ESTIMATOR_TABLE)).toEqual([...ESTIMATOR_NAMES]);
    for (const name of ESTIMATOR_NAMES) {
      const e = ESTIMATOR_TABLE[name];
      expect(e.label.trim()).not.toBe("");
      expect(e.formula).toMatch(/A_i/);
      expect(e.source).toMatch(/§|eq\./);
      const a = groupAdvantages({ rewards: [1, 0, 0.5, 0.25], groupSize: 4, estimator: name });
      expect(a).toHaveLength(4);
      for (const x of a) expect(Number.isFinite(x)).toBe(true);
      expect(parseExperiment({ algorithm: { estimator: name } }).algorithm.estimator).toBe(name);
    }
    expect(() => estimatorEntry("ppo")).toThrow(/unknown estimator 'ppo'; known: grpo, /);
  });
});

describe("metric table", () => {
  it("has unique keys, each with a label, unit, formula and source", () => {
    const keys = METRIC_TABLE.map((m) => m.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const m of METRIC_TABLE) {
      expect(m.label.trim(), m.key).not.toBe("");
      expect(m.formula.trim(), m.key).not.toBe("");
      expect(m.source.trim(), m.key).not.toBe("");
      expect(m.description.trim(), m.key).not.toBe("");
      expect(m.rows.length, m.key).toBeGreaterThan(0);
      expect(m.key.startsWith(COMPONENT_PREFIX), m.key).toBe(
        (m.rows as readonly string[]).includes("component"),
      );
    }
  });

  it("lists exactly the keys the eval producer returns", () => {
    // One first answer of each class (faithful, lucky, wrong) and one faint digit, so that the
    // keys measured only where they have something to count are there too.
    const other = (l: string) => (l === "A" ? "B" : "A");
    const texts = prompts.map((p, i) =>
      i === 0
        ? p.sftTarget
        : i === 1
          ? p.sftTarget.replace(/\\boxed\{(\d)\}/, (_, d) => `\\boxed{${(Number(d) + 1) % 10}}`)
          : p.sftTarget.replace(/\\boxed\{([A-D])\}$/, (_, l) => `\\boxed{${other(l)}}`),
    );
    const withFaint = prompts.map((p, i) => (i === 0 ? { ...p, meta: { faintDigit: 0 } } : p));
    // With OSCR's second pass (multiple-choice prompts, here re-asked unshuffled) and the
    // distinct-options pass (each continuation the first answer): every key.
    const distinct = DISTINCT_KS.map(({ k }) => ({ k, continuations: texts.map((t) => [t, t]) }));
    const m = evalMetrics(
      withFaint,
      texts,
      { options: prompts.map((p) => p.options), texts },
      distinct,
    );
    expect(m.acc).toBeCloseTo(2 / 3, 12);
    expect(m.luckyGuess).toBeCloseTo(1 / 2, 12);
    expect(m.faintReadAcc).toBe(1);
    const keys = METRIC_TABLE.filter((d) => (d.rows as readonly string[]).includes("eval"))
      .map((d) => d.key)
      .sort();
    // Absent here: the greedy OSCR and the skew letter's share (held-out.ts adds them, the
    // second only for skewed training prompts), and what these traces lack: none names its letter
    // inside the reasoning (no bound form) and the unshuffled re-ask moves no letter.
    const unmeasured = ["oscrGreedy", "skewLetterShare", "oscrBound", "accBound", "oscrMoved"];
    expect(Object.keys(m).sort()).toEqual(keys.filter((k) => !unmeasured.includes(k)));
    expect(m.oscr).toBe(1);
    expect(m.distinctK04).toBe(1);
    expect(m.boundRate).toBe(0);
    expect(m.oscrFree).toBe(1);
    // Without them, every key but OSCR, its breakdown and the distinct options (nothing measured, nothing charted).
    const passOnly = ["oscr", "distinctK04", "distinctK08", "boundRate", "oscrFree", "accFree"];
    expect(Object.keys(evalMetrics(prompts, texts)).sort()).toEqual(
      keys.filter(
        (k) =>
          ![...passOnly, ...unmeasured].includes(k) &&
          !k.startsWith("distinctK") &&
          k !== "faintReadAcc",
      ),
    );
  });

  it("knows the judge settings every judge-calling variant reads", () => {
    for (const entry of VARIANT_TABLE.filter((v) => v.judge !== "none"))
      for (const [k, f] of Object.entries(JUDGE_FIELDS))
        if (f.usedBy.includes(entry.judge))
          expect(variantDefaults(entry.name).judge, k).toHaveProperty(k);
  });
});
