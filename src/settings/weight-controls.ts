/**
 * A variant's weights as the page's controls see them: the weight names of
 * a variant, the typed patch a slider or choice writes, and a slider's range
 * from the schema (src/settings/variant-table.ts). The patch is checked once,
 * where it enters the trainer (applyVariantPatch).
 */
import {
  variantEntry,
  type VariantName,
  type WeightKey,
  type WeightPatch,
  type WeightValue,
} from "./variant-table";

/** Variant N's weight names, in the table's order. */
export function weightKeys<N extends VariantName>(name: N): WeightKey<N>[] {
  return Object.keys(variantEntry(name).weightInfo) as WeightKey<N>[];
}

/**
 * The patch that sets variant N's weight `key` to `value`: what a slider, a
 * choice or the CLI's `--set` writes. Typed as N's weights; the value is
 * the control's (a slider within sliderRange, a choice among the entry's
 * options, a flag's text read as the field's type) and is checked once by
 * the schema where it enters the trainer (applyVariantPatch).
 */
export function weightPatch<N extends VariantName>(
  _name: N,
  key: WeightKey<N>,
  value: WeightValue,
): WeightPatch<N> {
  return { [key]: value } as WeightPatch<N>;
}

/**
 * A slider's range for number weight `key` of variant `name`: the schema's
 * minimum, the entry's `pageMax` where the page shows less than the schema
 * allows, else the schema's maximum; step 1 for an integer weight, else 0.01.
 * @throws Error naming an unknown variant or a key that is not a number weight.
 */
export function sliderRange(name: string, key: string): { min: number; max: number; step: number } {
  const entry = variantEntry(name);
  const range = entry.ranges[key];
  const info = entry.weightInfo[key];
  if (!range || info?.kind !== "number") throw new Error(`${name} has no number weight '${key}'`);
  return { min: range.min, max: info.pageMax ?? range.max, step: range.integer ? 1 : 0.01 };
}
