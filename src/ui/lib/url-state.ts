/**
 * Experiment ⇄ URL hash. Like TensorFlow Playground's state table, but driven
 * by the zod schema: the hash holds only settings that differ from the
 * defaults, plus the schema version `v` and the `seed`, as readable flat keys:
 *
 *   #v=1&seed=7&task.family=shapes&algorithm.lr=0.001&variants=rlvr,grr&grr.weights.lambda=0.5
 *
 * Several seeds (Experiment.seeds) are one comma list: `seeds=1,2,3`. The
 * Experiment picker's choice rides along as `preset=<name>` (encodeLink,
 * decodePreset); the experiment itself is always the settings in the link.
 *
 * A link is untrusted input. Decoding reads it into objects without a
 * prototype and refuses the keys `__proto__`, `constructor` and `prototype`
 * (src/lib/untrusted.ts), looks keys up as own properties only, and validates
 * with the experiment schema (bounds named in its errors). A setting that is
 * unknown, malformed or out of range is ignored, named in the message with
 * the reason, and the rest of the link is applied; a link of another schema
 * version (or none) gives the defaults.
 */
import { FORBIDDEN_REASON, isForbiddenKey } from "../../lib/untrusted";
import {
  DEFAULT_EXPERIMENT,
  MAX_VARIANTS,
  ExperimentSchema,
  VARIANT_NAMES,
  VariantSchema,
  parseExperiment,
  variantDefaults,
  type Experiment,
  type VariantConfig,
  type VariantName,
} from "../../settings/experiment";
import { isPresetName, PRESET_NAMES } from "../../settings/presets";

const URL_SCHEMA_VERSION = 1;

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

/** The link key of the Experiment picker's preset. */
const PRESET_KEY = "preset";

/** The hash string (without `#`) for an experiment picked as preset `preset` (null: none). */
export function encodeLink(exp: Experiment, preset: string | null): string {
  const text = encodeExperiment(exp);
  return preset ? `${text}&${PRESET_KEY}=${encodeURIComponent(preset)}` : text;
}

/**
 * The preset a link names (`preset=<name>`), or null when it names none.
 * Never throws.
 * @returns the name when it is a known preset; else null and, for an unknown one, the message.
 */
export function decodePreset(hash: string): { preset: string | null; error: string | null } {
  try {
    const p = new URLSearchParams(
      String(hash ?? "")
        .replace(/^#/, "")
        .slice(0, MAX_HASH_CHARS),
    );
    const name = p.get(PRESET_KEY);
    if (name === null) return { preset: null, error: null };
    if (isPresetName(name)) return { preset: name, error: null };
    return {
      preset: null,
      error: `This link names the preset '${shortValue(name)}', which this lab does not have (known: ${PRESET_NAMES.join(", ")}); its settings were applied as they are.`,
    };
  } catch {
    return { preset: null, error: null };
  }
}

/** A setting of a link that was not applied. */
interface IgnoredSetting {
  /** The key as written in the link (`algorithm.lr`, `grr.weights.lambda`, `variants`). */
  key: string;
  /** Why it was ignored. */
  reason: string;
}

export interface DecodeResult {
  experiment: Experiment;
  /**
   * Null when every setting was applied. Otherwise the message to show: the
   * link could not be read at all (`experiment` is then the defaults), or
   * some settings were ignored (listed, the rest applied).
   */
  error: string | null;
  /** The settings that were ignored, when some were. */
  ignored?: IgnoredSetting[];
}

/** Longest hash read (characters; lab choice: every setting of the schema fits in 2,000). */
const MAX_HASH_CHARS = 8192;
/** Most keys read from one link (lab choice: the schema has under 100 settings). */
const MAX_HASH_KEYS = 200;

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
const OPTIONAL_VARIANT_FIELDS: Record<string, unknown> = Object.assign(Object.create(null), {
  estimator: "",
  beta: 0,
});

/** One setting read from a link: where it goes in the experiment input, and its value. */
interface LinkEntry {
  key: string;
  path: (string | number)[];
  value: unknown;
}

/** Sets `value` at `path`, creating objects without a prototype on the way. */
function setPath(obj: Record<string | number, unknown>, path: (string | number)[], value: unknown) {
  let o = obj;
  for (const k of path.slice(0, -1)) {
    if (!Object.hasOwn(o, k) || typeof o[k] !== "object" || o[k] === null)
      o[k] = Object.create(null);
    o = o[k] as Record<string | number, unknown>;
  }
  o[path[path.length - 1]] = value;
}

/** True when `prefix` is the start of (or all of) `path`. */
function startsWith(path: readonly PropertyKey[], prefix: readonly PropertyKey[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => path[i] === p);
}

function shortValue(raw: string): string {
  return raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
}

/**
 * Reads an experiment from a URL hash (with or without `#`). An empty hash
 * gives the defaults without error. Never throws; never changes a prototype.
 * @returns the experiment, and a message plus the ignored settings when the
 *   link was not used as written (see DecodeResult).
 */
export function decodeExperiment(hash: string): DecodeResult {
  const text = String(hash ?? "").replace(/^#/, "");
  if (text.trim() === "") return { experiment: DEFAULT_EXPERIMENT, error: null };
  const refuse = (msg: string): DecodeResult => ({
    experiment: DEFAULT_EXPERIMENT,
    error: `The settings in this link could not be used (${msg}). Showing the defaults instead.`,
  });
  try {
    if (text.length > MAX_HASH_CHARS)
      return refuse(`the link has ${text.length} characters; at most ${MAX_HASH_CHARS} are read`);
    const p = new URLSearchParams(text);
    const v = p.get("v");
    if (v !== String(URL_SCHEMA_VERSION)) {
      return refuse(
        v === null
          ? "the link has no schema version (v=…)"
          : `the link was made for schema version ${shortValue(v)}; this lab reads version ${URL_SCHEMA_VERSION}`,
      );
    }
    const ignored: IgnoredSetting[] = [];
    const ignore = (key: string, reason: string) => ignored.push({ key: shortValue(key), reason });
    const all = [...p.entries()];
    if (all.length > MAX_HASH_KEYS) {
      for (const [key] of all.slice(MAX_HASH_KEYS))
        ignore(key, `more than ${MAX_HASH_KEYS} settings in one link`);
      all.length = MAX_HASH_KEYS;
    }
    const seen = new Set<string>();
    const pairs: [string, string][] = [];
    for (const [key, raw] of all) {
      const bad = key.split(".").find(isForbiddenKey);
      if (bad !== undefined) ignore(key, `the key '${bad}' is refused: ${FORBIDDEN_REASON}`);
      else if (seen.has(key)) ignore(key, "given twice; the first is used");
      else {
        seen.add(key);
        pairs.push([key, raw]);
      }
    }

    // Variants: known names, no repeats, at most the schema's 4.
    const rawNames = pairs.find(([k]) => k === "variants")?.[1];
    const names: VariantName[] = [];
    for (const n of (rawNames ?? DEFAULT_EXPERIMENT.variants.map((x) => x.name).join(","))
      .split(",")
      .filter(Boolean)) {
      if (!(VARIANT_NAMES as readonly string[]).includes(n))
        ignore(
          "variants",
          `unknown variant '${shortValue(n)}' (known: ${VARIANT_NAMES.join(", ")})`,
        );
      else if (names.includes(n as VariantName)) ignore("variants", `'${n}' appears twice`);
      else if (names.length >= MAX_VARIANTS)
        ignore("variants", `'${n}': at most ${MAX_VARIANTS} variants`);
      else names.push(n as VariantName);
    }
    if (names.length === 0) {
      if (rawNames !== undefined)
        ignore("variants", "no known variant left; the default ones are used");
      names.push(...DEFAULT_EXPERIMENT.variants.map((x) => x.name));
    }

    const def = baseFlat(DEFAULT_EXPERIMENT);
    const entries: LinkEntry[] = [];
    for (const [key, raw] of pairs) {
      try {
        if (key === "v" || key === "variants" || key === PRESET_KEY) continue;
        if (key === "seed") entries.push({ key, path: ["seed"], value: convert(key, raw, 0) });
        else if (key === "seeds")
          entries.push({ key, path: ["seeds"], value: parseSeedsText(raw) });
        else if (Object.hasOwn(def, key))
          entries.push({ key, path: key.split("."), value: convert(key, raw, def[key]) });
        else {
          const [vname, ...rest] = key.split(".");
          const index = names.indexOf(vname as VariantName);
          if (rest.length === 0 || !(VARIANT_NAMES as readonly string[]).includes(vname))
            throw new Error("unknown setting");
          if (index < 0)
            throw new Error(
              `names variant '${vname}', which is not in variants=${names.join(",")}`,
            );
          // The variant's own settings: its weights (variant table), judge noise, overrides.
          const known = flatten(variantDefaults(vname), "", {});
          const sub = rest.join(".");
          const like = Object.hasOwn(known, sub)
            ? known[sub]
            : Object.hasOwn(OPTIONAL_VARIANT_FIELDS, sub)
              ? OPTIONAL_VARIANT_FIELDS[sub]
              : undefined;
          if (like === undefined || sub === "name") throw new Error("unknown setting");
          entries.push({ key, path: ["variants", index, ...rest], value: convert(key, raw, like) });
        }
      } catch (e) {
        ignore(key, (e as Error).message.replace(`'${key}' `, ""));
      }
    }

    // Validate; drop the entry of the schema's first issue (naming the reason), then try
    // again: each try drops one entry, so a constraint between two settings keeps one of them.
    const tries = entries.length + 1;
    for (let t = 0; t < tries; t++) {
      const input = Object.create(null) as Record<string | number, unknown>;
      input.schemaVersion = URL_SCHEMA_VERSION;
      input.variants = names.map((name) => Object.assign(Object.create(null), { name }));
      for (const e of entries) setPath(input, e.path, e.value);
      const r = ExperimentSchema.safeParse(input);
      if (r.success) {
        const experiment = parseExperiment(r.data);
        if (ignored.length === 0) return { experiment, error: null };
        const list = ignored.map((i) => `'${i.key}' (${i.reason})`).join("; ");
        return {
          experiment,
          ignored,
          error: `Some settings in this link were ignored: ${list}. The rest of the link was applied.`,
        };
      }
      let dropped = false;
      for (const issue of r.error.issues) {
        const at = entries.findIndex(
          (e) => startsWith(issue.path, e.path) || startsWith(e.path, issue.path),
        );
        if (at < 0 || issue.path.length === 0) continue;
        const [e] = entries.splice(at, 1);
        ignore(e.key, `${issue.path.join(".")}: ${issue.message}`);
        dropped = true;
        break;
      }
      if (!dropped)
        return refuse(
          r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "),
        );
    }
    return refuse("its settings do not fit together");
  } catch (e) {
    return refuse(e instanceof Error ? e.message : String(e));
  }
}
