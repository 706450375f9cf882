/**
 * Experiment ⇄ URL hash. Like TensorFlow Playground's state table, but driven
 * by the zod schema: the hash holds only settings that differ from the
 * defaults, plus the schema version `v` and the `seed`, as readable flat keys:
 *
 *   #v=1&seed=7&task.family=shapes&algorithm.lr=0.001&variants=rlvr,grr&grr.weights.lambda=0.5
 *
 * Several seeds (Experiment.seeds) are one comma list: `seeds=1,2,3`.
 *
 * Decoding validates with `parseExperiment`; anything wrong gives a message
 * (naming the key) and the defaults, never a half-applied state.
 */
import {
  DEFAULT_EXPERIMENT,
  VariantSchema,
  parseExperiment,
  variantDefaults,
  type Experiment,
  type VariantConfig,
  type VariantName,
} from "../../rl/experiment";

export const URL_SCHEMA_VERSION = 1;

type Flat = Record<string, string | number | boolean>;

function flatten(obj: unknown, prefix: string, out: Flat): Flat {
  if (obj && typeof obj === "object" && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj as Record<string, unknown>))
      flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (typeof obj === "string" || typeof obj === "number" || typeof obj === "boolean") {
    out[prefix] = obj;
  }
  return out;
}

const variantDefault = (name: VariantName): VariantConfig => VariantSchema.parse({ name });

/** Top-level settings other than variants, flattened with their defaults. */
function baseFlat(exp: Experiment): Flat {
  const { variants: _v, schemaVersion: _s, seed: _seed, ...rest } = exp;
  return flatten(rest, "", {});
}

/** Non-default settings of an experiment as `key=value` pairs (also used by the runs table). */
export function nonDefaultSettings(exp: Experiment): [string, string][] {
  const out: [string, string][] = [];
  const def = baseFlat(DEFAULT_EXPERIMENT);
  for (const [k, v] of Object.entries(baseFlat(exp))) if (def[k] !== v) out.push([k, String(v)]);
  if (exp.seeds) out.push(["seeds", exp.seeds.join(",")]);
  const names = exp.variants.map((v) => v.name);
  if (names.join(",") !== DEFAULT_EXPERIMENT.variants.map((v) => v.name).join(","))
    out.push(["variants", names.join(",")]);
  for (const v of exp.variants) {
    const d = flatten(variantDefault(v.name), "", {});
    const f = flatten(v, "", {});
    for (const [k, val] of Object.entries(f))
      if (k !== "name" && d[k] !== val) out.push([`${v.name}.${k}`, String(val)]);
  }
  return out;
}

/** The hash string (without `#`) for an experiment. */
export function encodeExperiment(exp: Experiment): string {
  const p = new URLSearchParams();
  p.set("v", String(URL_SCHEMA_VERSION));
  p.set("seed", String(exp.seed));
  for (const [k, v] of nonDefaultSettings(exp)) p.set(k, v);
  return p.toString().replace(/%2C/g, ",");
}

export interface DecodeResult {
  experiment: Experiment;
  /** Set when the hash was not valid; `experiment` is then the defaults. */
  error: string | null;
}

function convert(key: string, raw: string, like: unknown): string | number | boolean {
  if (typeof like === "number") {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n))
      throw new Error(`'${key}' should be a number, got '${raw}'`);
    return n;
  }
  if (typeof like === "boolean") {
    if (raw !== "true" && raw !== "false")
      throw new Error(`'${key}' should be true or false, got '${raw}'`);
    return raw === "true";
  }
  return raw;
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let o = obj;
  for (const k of path.slice(0, -1)) {
    if (!o[k] || typeof o[k] !== "object") o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  o[path[path.length - 1]] = value;
}

/**
 * Reads a seed list as typed in the panel or the link: integers separated by
 * commas or spaces ("1,2,3", "1 2 3"). Empty text gives undefined (one run
 * with `seed`). Range and count are checked by the experiment schema
 * (Experiment.seeds: 0..2^31−1, at most 8); repeats are refused here.
 * @throws Error naming the entry that is not an integer or appears twice.
 */
export function parseSeedsText(text: string): number[] | undefined {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (parts.length === 0) return undefined;
  const seeds = parts.map((t) => {
    if (!/^\d+$/.test(t))
      throw new Error(`'seeds' should be whole numbers separated by commas, got '${t}'`);
    return Number(t);
  });
  const dup = seeds.find((x, i) => seeds.indexOf(x) !== i);
  if (dup !== undefined) throw new Error(`'seeds': seed ${dup} appears twice`);
  return seeds;
}

/** Types of per-variant optional fields that have no default to copy the type from. */
const OPTIONAL_VARIANT_FIELDS: Record<string, unknown> = { estimator: "", beta: 0 };

/**
 * Reads an experiment from a URL hash (with or without `#`). An empty hash
 * gives the defaults without error.
 */
export function decodeExperiment(hash: string): DecodeResult {
  const text = hash.replace(/^#/, "");
  if (text.trim() === "") return { experiment: DEFAULT_EXPERIMENT, error: null };
  try {
    const p = new URLSearchParams(text);
    const v = p.get("v");
    if (v !== String(URL_SCHEMA_VERSION)) {
      throw new Error(
        v === null
          ? "the link has no schema version (v=…)"
          : `the link was made for schema version ${v}; this lab reads version ${URL_SCHEMA_VERSION}`,
      );
    }
    const input: Record<string, unknown> = { schemaVersion: URL_SCHEMA_VERSION };
    const def = baseFlat(DEFAULT_EXPERIMENT);
    const names = (p.get("variants") ?? DEFAULT_EXPERIMENT.variants.map((x) => x.name).join(","))
      .split(",")
      .filter(Boolean);
    const variants: Record<string, Record<string, unknown>> = {};
    for (const n of names) variants[n] = { name: n };
    for (const [key, raw] of p.entries()) {
      if (key === "v" || key === "variants") continue;
      if (key === "seed") {
        input.seed = convert(key, raw, 0);
        continue;
      }
      if (key === "seeds") {
        input.seeds = parseSeedsText(raw);
        continue;
      }
      if (key in def) {
        setPath(input, key.split("."), convert(key, raw, def[key]));
        continue;
      }
      const [vname, ...rest] = key.split(".");
      if (rest.length === 0) throw new Error(`unknown setting '${key}'`);
      if (!variants[vname])
        throw new Error(
          `'${key}' names variant '${vname}', which is not in variants=${names.join(",")}`,
        );
      // The variant's own settings: its weights (variant table), judge noise, overrides.
      const known = flatten(variantDefaults(vname), "", {});
      const sub = rest.join(".");
      const like = sub in known ? known[sub] : OPTIONAL_VARIANT_FIELDS[sub];
      if (like === undefined || sub === "name") throw new Error(`unknown setting '${key}'`);
      setPath(variants[vname], rest, convert(key, raw, like));
    }
    input.variants = names.map((n) => variants[n]);
    return { experiment: parseExperiment(input), error: null };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return {
      experiment: DEFAULT_EXPERIMENT,
      error: `The settings in this link could not be used (${msg}). Showing the defaults instead.`,
    };
  }
}
