/**
 * Colour and display name of a series key, from the variant table
 * (src/settings/variant-table.ts): a variant keeps its colour on every chart, a
 * fork key ("grr@fork12") takes its base variant's.
 */
import { baseVariant, parseForkKey } from "./fork-key";
import { isVariantName, variantEntry } from "./variant-table";

const FALLBACK_COLORS = ["#9b59b6", "#c0392b", "#16a085", "#7f8c8d"];

/** Colour of a variant's line (table variants fixed; others by name hash); a fork key ("grr@fork12") takes its base variant's colour. */
export function variantColor(key: string): string {
  const name = baseVariant(key);
  if (isVariantName(name)) return variantEntry(name).color;
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return FALLBACK_COLORS[h % FALLBACK_COLORS.length];
}

/** Display name of a variant ("GRR"); a fork key reads "GRR fork@12" ("GRR fork@12.2" for a second fork at that step); any other key as it is. */
export function variantLabel(key: string): string {
  const fork = parseForkKey(key);
  if (fork)
    return `${variantLabel(fork.parent)} fork@${fork.step}${fork.n > 1 ? `.${fork.n}` : ""}`;
  return isVariantName(key) ? variantEntry(key).label : key;
}
