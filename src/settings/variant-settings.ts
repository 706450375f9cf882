/**
 * One variant setting as text, `VARIANT.KEY=VALUE` (the CLI's `--set`), read
 * through the variant table: KEY is one of the variant's weights (`lambda`),
 * a judge setting (`sigmaJ`, `sigmaB`, `delta`, or `judge` for the judge's
 * name; only for a variant that calls a judge), `estimator` or `beta`; the URL's longer form `weights.KEY` /
 * `judge.KEY` works too. The value is read as the field's type and checked by
 * the variant's schema, so a bad value gets the schema's message naming it.
 */
import { VariantSchema, type VariantConfig, type VariantPatch } from "./experiment";
import {
  JUDGE_FIELDS,
  retargetWeights,
  variantEntry,
  type VariantName,
  type WeightPatch,
} from "./variant-table";
import type { EstimatorName } from "./estimator-table";

/**
 * A live change as a chart marker shows it: "lambda=2, sigmaJ=0.3" (weights,
 * then judge settings); a long text value (a written reward's code) by its
 * length, "code (93 characters)".
 */
export function patchLabel(patch: { weights?: object; judge?: object }): string {
  return [...Object.entries(patch.weights ?? {}), ...Object.entries(patch.judge ?? {})]
    .map(([k, v]) =>
      typeof v === "string" && v.length > 24
        ? `${k} (${v.length} characters)`
        : `${k}=${String(v)}`,
    )
    .join(", ");
}

/**
 * The one check of a live setting, where it enters the trainer: the page's
 * `setWeights` (the run controller) and the CLI's `--set` (applyVariantSetting)
 * both come here. `current` with `patch` applied (weights and judge settings
 * merged key by key; a new estimator moves the weights that follow it, SCS's
 * k and m, unless the patch or an earlier change set them), parsed by the
 * variant's schema in the variant table. Everything downstream (the RL step,
 * the passes, the reward worker, the scorers) takes the result as it is.
 * @returns the variant parsed, defaults filled in; `current` is not changed.
 * @throws Error listing each refused field as `VARIANT.PATH: message`,
 *   joined by "; " (e.g. "grr.weights.lambda: Too big: expected number to be <=10").
 */
export function applyVariantPatch<C extends VariantConfig>(
  current: C,
  patch: VariantPatch<C["name"]>,
): C {
  const weights =
    patch.estimator !== undefined && patch.estimator !== current.estimator
      ? retargetWeights(current.name, current.weights, current.estimator, patch.estimator)
      : current.weights;
  const input = {
    ...current,
    ...(patch.estimator !== undefined && { estimator: patch.estimator }),
    ...(patch.beta !== undefined && { beta: patch.beta }),
    weights: { ...weights, ...patch.weights },
    judge: { ...current.judge, ...patch.judge },
  };
  const parsed = VariantSchema.safeParse(input);
  if (!parsed.success)
    throw new Error(
      parsed.error.issues
        .map((issue) => `${[current.name, ...issue.path].join(".")}: ${issue.message}`)
        .join("; "),
    );
  // Parsed from a config named current.name: the result is that variant's.
  return parsed.data as C;
}

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
  // The text read as the field's type; applyVariantPatch's schema checks it.
  const patch: VariantPatch<VariantName> =
    path[0] === "weights"
      ? { weights: { [path[1]]: value } as WeightPatch<VariantName> }
      : path[0] === "judge"
        ? { judge: { [path[1]]: value } }
        : path[0] === "estimator"
          ? { estimator: value as EstimatorName }
          : { beta: value as number };
  try {
    const next = applyVariantPatch(variants[i], patch);
    return variants.map((v, j) => (j === i ? next : v));
  } catch (e) {
    return fail((e as Error).message);
  }
}
