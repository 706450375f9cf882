/**
 * What differs between two experiments, in a few short words for a legend
 * ("lr 1e-4", "λ 2", "G 4"). Pure; used to name overlaid runs and forks on
 * the charts relative to the current run.
 */
import {
  DEFAULT_EXPERIMENT,
  VariantSchema,
  type Experiment,
  type VariantConfig,
  type VariantName,
} from "../../settings/experiment";
import { JUDGE_FIELDS, VARIANT_TABLE } from "../../settings/variant-table";

/** Short names of settings (flattened paths); others show their last path segment. Lab choice. */
const SHORT: Record<string, string> = {
  seed: "seed",
  seeds: "seeds",
  modelSize: "model",
  evalSize: "eval n",
  evalTemperature: "eval τ",
  sftSteps: "SFT steps",
  sftLr: "SFT lr",
  sftBatch: "SFT batch",
  "task.family": "task",
  "task.multipleChoice": "MC",
  "task.numDigits": "digits",
  "task.hintRate": "hint rate",
  "task.hintAccuracy": "hint acc",
  "task.traceSlipRate": "slip rate",
  "task.traceSlipBox": "slip box",
  "task.optionSkew": "skew",
  "task.distractorRule": "distractors",
  "task.misreadRate": "misread",
  "task.indexBindingRate": "bind",
  "task.faintContrast": "faint",
  "algorithm.lr": "lr",
  "algorithm.groupSize": "G",
  "algorithm.batchPrompts": "prompts",
  "algorithm.beta": "β",
  "algorithm.temperature": "τ",
  "algorithm.estimator": "est",
  "algorithm.clipEps": "clip ε",
  "algorithm.steps": "steps",
  "algorithm.evalEvery": "eval every",
  "algorithm.weightDecay": "wd",
  "algorithm.gradClip": "grad clip",
  // Weights and judge settings: their short names in the variant table.
  ...Object.fromEntries(
    VARIANT_TABLE.flatMap((v) =>
      Object.entries(v.weightInfo).map(([k, w]) => [`weights.${k}`, w.short]),
    ),
  ),
  ...Object.fromEntries(Object.entries(JUDGE_FIELDS).map(([k, f]) => [`judge.${k}`, f.short])),
  estimator: "est",
  beta: "β",
};

/** Short legend name of a flattened setting path (e.g. "algorithm.lr" → "lr", "weights.lambda" → "λ"). */
function shortSettingName(path: string): string {
  return (
    SHORT[path] ?? SHORT[`weights.${path}`] ?? SHORT[`judge.${path}`] ?? path.split(".").at(-1)!
  );
}

/** A number as a legend shows it: 3 significant digits, exponent form below 1e-3 ("1e-4", "2.5e-5"). */
export function shortNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6))
    return Number(v.toPrecision(3)).toExponential().replace("e+", "e");
  return String(Number(v.toPrecision(3)));
}

function shortValue(v: unknown): string {
  if (typeof v === "number") return shortNumber(v);
  if (Array.isArray(v)) return v.map(shortValue).join(",");
  if (v === undefined) return "–";
  return String(v);
}

function flat(obj: unknown, prefix: string, out: Record<string, unknown>): Record<string, unknown> {
  if (obj && typeof obj === "object" && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj as Record<string, unknown>))
      flat(v, prefix ? `${prefix}.${k}` : k, out);
  } else out[prefix] = obj;
  return out;
}

/** Run-wide setting paths in a fixed order (seed, seeds, then the schema's order); others follow as met. */
const ORDER: string[] = (() => {
  const { variants: _v, schemaVersion: _s, seed: _seed, ...rest } = DEFAULT_EXPERIMENT;
  return ["seed", "seeds", ...Object.keys(flat(rest, "", {}))];
})();

function ordered(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...ORDER, ...Object.keys(a), ...Object.keys(b)])];
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The settings of `other` that differ from `current`, as "name value" words
 * in a fixed order: run-wide settings (seed, seeds, task, algorithm, model,
 * …; not the variant list), then, when `variant` is given, that variant's
 * weights, judge noise and overrides (compared with `current`'s copy of the
 * variant, or its defaults when `current` does not train it).
 * @param variant a variant name (a fork key's base is not looked up here).
 * @returns e.g. ["lr 1e-4", "λ 2"]; [] when nothing differs.
 */
export function configDiff(current: Experiment, other: Experiment, variant?: string): string[] {
  const out: string[] = [];
  const { variants: _cv, schemaVersion: _cs, ...curRest } = current;
  const { variants: _ov, schemaVersion: _os, ...othRest } = other;
  const a = flat(curRest, "", {});
  const b = flat(othRest, "", {});
  for (const k of ordered(a, b))
    if (!same(a[k], b[k])) out.push(`${shortSettingName(k)} ${shortValue(b[k])}`);
  if (variant !== undefined) {
    const mine = other.variants.find((v) => v.name === variant);
    if (mine) {
      const theirs: VariantConfig =
        current.variants.find((v) => v.name === variant) ??
        VariantSchema.parse({ name: variant as VariantName });
      const { name: _n1, ...vb } = mine;
      const { name: _n2, ...va } = theirs;
      const fa = flat(va, "", {});
      const fb = flat(vb, "", {});
      for (const k of [...new Set([...Object.keys(fa), ...Object.keys(fb)])])
        if (!same(fa[k], fb[k])) out.push(`${shortSettingName(k)} ${shortValue(fb[k])}`);
    }
  }
  return out;
}

/** A fork marker's changes ({lambda: 2}) as legend words (["λ 2"]). */
export function describeChanges(changes: Readonly<Record<string, number | string>>): string[] {
  return Object.entries(changes).map(([k, v]) => `${shortSettingName(k)} ${shortValue(v)}`);
}

/** Joins legend words, at most `max` of them ("lr 1e-4, λ 2, +3 more"). */
export function joinDiff(words: readonly string[], max = 4): string {
  if (words.length <= max) return words.join(", ");
  return `${words.slice(0, max).join(", ")}, +${words.length - max} more`;
}
