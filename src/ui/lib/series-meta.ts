/**
 * How the charts draw and name each series key. Three kinds of keys:
 *   - a variant of the current run ("grr"): solid line in the variant colour;
 *   - a fork of the current run ("grr@fork12", src/settings/fork-key.ts): the
 *     parent's colour, dashed, named with the fork step and what it changed
 *     ("GRR fork@12 · λ 2", from the fork's marker);
 *   - an overlaid run's variant ("r2/grr", OVERLAY_SEP): the variant colour,
 *     finely dashed and fainter, named with the run and the settings that
 *     differ from the current run ("GRR · run 2 · lr 1e-4, λ 2").
 * Pure: tested in Node.
 */
import type { Experiment } from "../../settings/experiment";
import type { OverlayInfo } from "../../store/lab-store";
import { baseVariant, parseForkKey } from "../../settings/fork-key";
import type { Marker } from "../../run/run-types";
import { configDiff, describeChanges, joinDiff } from "./config-diff";
import { variantColor, variantLabel } from "../../settings/variant-meta";

/** Separates an overlay's id from the variant key in an overlay series key ("r2/grr"). */
const OVERLAY_SEP = "/";

type SeriesKind = "variant" | "fork" | "overlay";

export interface SeriesStyle {
  kind: SeriesKind;
  color: string;
  /** SVG stroke-dasharray of the main line; undefined = solid. */
  dash?: string;
  /** Opacity of the main line. */
  opacity: number;
  /** Legend / tooltip name. */
  label: string;
}

/** The series key of `variant` of an overlaid run. */
export function overlayKey(overlayId: string, variant: string): string {
  return `${overlayId}${OVERLAY_SEP}${variant}`;
}

/** Splits an overlay series key; null for a key of the current run. */
export function parseOverlayKey(key: string): { overlayId: string; variant: string } | null {
  const i = key.indexOf(OVERLAY_SEP);
  return i < 0 ? null : { overlayId: key.slice(0, i), variant: key.slice(i + 1) };
}

/** A key as it may appear in an HTML attribute name (data-points-<key>): other characters become "_". */
export function attrKey(key: string): string {
  return key.replace(/[^A-Za-z0-9_.-]/g, "_");
}

/** Name of a fork key, from its marker when there is one: "GRR fork@12 · λ 2". */
function forkLabel(key: string, markers: readonly Marker[] | undefined): string {
  const info = parseForkKey(key);
  if (!info) return variantLabel(key);
  const m = markers?.find((x) => x.variant === key && x.fork);
  const changes = m?.fork ? joinDiff(describeChanges(m.fork.changes)) : "";
  return `${variantLabel(key)}${changes ? ` · ${changes}` : ""}`;
}

/**
 * Style and name of one series key.
 * @param ctx.current the experiment of the run the charts show (the reference for "what differs").
 * @param ctx.markers that run's markers (fork markers name its forks).
 * @param ctx.overlays the overlaid runs, by id.
 */
export function seriesStyle(
  key: string,
  ctx: { current: Experiment; markers: readonly Marker[]; overlays: readonly OverlayInfo[] },
): SeriesStyle {
  const ov = parseOverlayKey(key);
  if (ov) {
    const info = ctx.overlays.find((o) => o.id === ov.overlayId);
    const base = baseVariant(ov.variant);
    const name = parseForkKey(ov.variant)
      ? forkLabel(ov.variant, info?.markers)
      : variantLabel(ov.variant);
    const diff = info ? configDiff(ctx.current, info.experiment, base) : [];
    const label = `${name} · ${info?.label ?? ov.overlayId} · ${diff.length ? joinDiff(diff) : "same settings"}`;
    return { kind: "overlay", color: variantColor(base), dash: "2 3", opacity: 0.75, label };
  }
  if (parseForkKey(key))
    return {
      kind: "fork",
      color: variantColor(baseVariant(key)),
      dash: "6 3",
      opacity: 1,
      label: forkLabel(key, ctx.markers),
    };
  return { kind: "variant", color: variantColor(key), opacity: 1, label: variantLabel(key) };
}
