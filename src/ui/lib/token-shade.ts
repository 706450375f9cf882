/**
 * The token view's shading: a token's update weight (the trainer's
 * `tokenWeights` answer, `coef`: the negative of ∂loss/∂logπ(token), so
 * positive = the update raises the token's log-probability) as a colour on a
 * diverging blue–white–red scale: blue reinforced, red suppressed, white
 * untouched. The two ends are ColorBrewer RdBu's (Brewer, colorbrewer2.org,
 * "colour-blind safe"), checked under the three dichromacies with
 * ./color-vision.ts (test/ui/token-shade.test.ts). The intensity is
 * |coef| / scale, where scale is the largest |coef| of the rollouts shown
 * side by side, so the same colour means the same weight in both. Pure.
 */
import { parseHex } from "./color-vision";

/** Full reinforcement (RdBu's darkest blue). */
export const REINFORCED = "#2166ac";
/** Full suppression (RdBu's darkest red). */
export const SUPPRESSED = "#b2182b";

const hex2 = (v: number) =>
  Math.round(Math.min(1, Math.max(0, v)) * 255)
    .toString(16)
    .padStart(2, "0");

/** `#rrggbb` between white (t = 0) and `end` (t = 1), mixed in sRGB. */
function mixWhite(end: string, t: number): string {
  const [r, g, b] = parseHex(end);
  return `#${hex2(1 - t + t * r)}${hex2(1 - t + t * g)}${hex2(1 - t + t * b)}`;
}

/**
 * The background of a token with weight `coef` on a scale whose end is
 * `scale` (> 0), and the text colour that reads on it.
 * Non-finite coef or scale ≤ 0: white.
 */
export function tokenShade(coef: number, scale: number): { background: string; color: string } {
  if (!Number.isFinite(coef) || !(scale > 0) || coef === 0)
    return { background: "#ffffff", color: "#1d2733" };
  const t = Math.min(1, Math.abs(coef) / scale);
  return {
    background: mixWhite(coef > 0 ? REINFORCED : SUPPRESSED, t),
    color: t > 0.55 ? "#ffffff" : "#1d2733",
  };
}

/** The largest |value| over arrays (0 when none is finite): the shading's shared scale. */
export function shadeScale(arrays: readonly (readonly number[])[]): number {
  let m = 0;
  for (const a of arrays) for (const v of a) if (Number.isFinite(v)) m = Math.max(m, Math.abs(v));
  return m;
}
