/**
 * One variant setting as text, `VARIANT.KEY=VALUE` (the CLI's `--set`), read
 * through the variant table: KEY is one of the variant's weights (`lambda`),
 * a judge setting (`sigmaJ`, `sigmaB`, `delta`, or `judge` for the judge's
 * name; only for a variant that calls a judge), `estimator` or `beta`; the URL's longer form `weights.KEY` /
 * `judge.KEY` works too. The value is read as the field's type and checked by
 * the variant's schema, so a bad value gets the schema's message naming it.
 */
import { VariantSchema, type VariantConfig } from "./experiment";
import { JUDGE_FIELDS, retargetWeights, variantEntry } from "./variant-table";
import type { EstimatorName } from "./estimator-table";

/** The config path a setting key names, and whether its value is a number. */
interface Target {
  path: string[];
  numeric: boolean;
}

function resolveKey(variant: string, key: string): Target {
  const entry = variantEntry(variant);
  const judgeKeys = Object.keys(JUDGE_FIELDS);
  const weight = key.startsWith("weights.") ? key.slice("weights.".length) : key;
  if (Object.hasOwn(entry.weightInfo, weight))
    return { path: ["weights", weight], numeric: entry.weightInfo[weight].kind === "number" };
  const judge = key.startsWith("judge.") ? key.slice("judge.".length) : key;
  if (key === "judge" || key === "judge.name") {
    if (entry.judge === "none") throw new Error(`${variant} calls no judge`);
    return { path: ["judge", "name"], numeric: false };
  }
  if (judgeKeys.includes(judge)) {
    if (entry.judge === "none")
      throw new Error(`${variant} calls no judge, so '${judge}' does not apply to it`);
    return { path: ["judge", judge], numeric: true };
  }
  if (key === "estimator") return { path: ["estimator"], numeric: false };
  if (key === "beta") return { path: ["beta"], numeric: true };
  const known = [
    ...Object.keys(entry.weightInfo),
    ...(entry.judge === "none" ? [] : ["judge", ...judgeKeys]),
    "estimator",
    "beta",
  ];
  throw new Error(`${variant} has no setting '${key}'; known: ${known.join(", ")}`);
}

/**
 * Applies one `VARIANT.KEY=VALUE` setting to the variants of an experiment.
 * @param variants the run's variants (parsed); not changed.
 * @returns a copy with the setting applied and the variant re-parsed (defaults filled in).
 * @throws Error naming the setting when it is not VARIANT.KEY=VALUE, names
 *   an unknown variant or one that is not in `variants`, names a key the
 *   variant does not have, or when the schema refuses the value (its message,
 *   with the field's path, e.g. "grr.weights.lambda: Invalid input: expected
 *   number, received NaN").
 */
export function applyVariantSetting(
  variants: readonly VariantConfig[],
  setting: string,
): VariantConfig[] {
  const fail = (why: string): never => {
    throw new Error(`'${setting}': ${why}`);
  };
  const eq = setting.indexOf("=");
  const dot = setting.indexOf(".");
  if (eq < 0 || dot < 0 || dot > eq) fail("expected VARIANT.KEY=VALUE, e.g. grr.lambda=0.5");
  const name = setting.slice(0, dot).trim();
  const key = setting.slice(dot + 1, eq).trim();
  const raw = setting.slice(eq + 1).trim();
  let target: Target | undefined;
  try {
    target = resolveKey(name, key);
  } catch (e) {
    fail((e as Error).message);
  }
  const i = variants.findIndex((v) => v.name === name);
  if (i < 0)
    fail(
      `variant '${name}' is not in this run (${variants.map((v) => v.name).join(", ")}); add it with --variants`,
    );
  const { path, numeric } = target!;
  const value = numeric ? (raw === "" ? Number.NaN : Number(raw)) : raw;
  const input = structuredClone(variants[i]) as unknown as Record<string, Record<string, unknown>>;
  // A new estimator moves the weights that follow it (SCS's k, m) unless they were changed.
  if (path[0] === "estimator")
    input.weights = retargetWeights(
      name,
      variants[i].weights,
      variants[i].estimator,
      value as EstimatorName,
    );
  if (path.length === 1) (input as Record<string, unknown>)[path[0]] = value;
  else input[path[0]] = { ...(input[path[0]] ?? {}), [path[1]]: value };
  const parsed = VariantSchema.safeParse(input);
  if (!parsed.success)
    fail(
      parsed.error.issues
        .map((issue) => `${[name, ...issue.path].join(".")}: ${issue.message}`)
        .join("; "),
    );
  return variants.map((v, j) => (j === i ? parsed.data! : v));
}
