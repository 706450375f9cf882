/**
 * Colour distances as people with the common colour vision deficiencies see
 * them: a colour is simulated for protanopia, deuteranopia and tritanopia
 * with the matrices of Machado, Oliveira and Fernandes (2009), "A
 * physiologically-based model for simulation of color vision deficiency",
 * IEEE TVCG 15(6), severity 1.0 (applied to linear RGB), and two colours are
 * compared by their CIE 1976 distance ΔE*ab in CIELAB (D65 white). The
 * variant colours of the charts (src/settings/variant-table.ts) are checked
 * with it (test/ui/color-vision.test.ts). Pure.
 */

type Vec3 = [number, number, number];
type Mat3 = [Vec3, Vec3, Vec3];

/** Vision kinds: normal, and the three dichromacies at severity 1.0. */
export type Vision = "normal" | "protanopia" | "deuteranopia" | "tritanopia";

/** Machado et al. (2009), Table 1, severity 1.0 (linear RGB in, linear RGB out). */
const MACHADO: Record<Exclude<Vision, "normal">, Mat3> = {
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};

export const VISIONS: readonly Vision[] = ["normal", "protanopia", "deuteranopia", "tritanopia"];

/**
 * sRGB channels in [0, 1] of a `#rrggbb` colour.
 * @throws Error naming a colour that is not `#rrggbb`.
 */
export function parseHex(hex: string): Vec3 {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) throw new Error(`'${hex}' is not a #rrggbb colour`);
  return [1, 2, 3].map((i) => Number.parseInt(m[i], 16) / 255) as Vec3;
}

/** sRGB transfer function, inverse (IEC 61966-2-1). */
const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

const mul = (m: Mat3, v: Vec3): Vec3 =>
  m.map((row) => row[0] * v[0] + row[1] * v[1] + row[2] * v[2]) as Vec3;

/** Linear RGB of `hex` as seen with `vision` (clamped to the display's gamut). */
export function simulate(hex: string, vision: Vision): Vec3 {
  const lin = parseHex(hex).map(toLinear) as Vec3;
  if (vision === "normal") return lin;
  return mul(MACHADO[vision], lin).map((c) => Math.min(1, Math.max(0, c))) as Vec3;
}

/** sRGB (D65) linear RGB → XYZ (IEC 61966-2-1). */
const RGB_TO_XYZ: Mat3 = [
  [0.4124564, 0.3575761, 0.1804375],
  [0.2126729, 0.7151522, 0.072175],
  [0.0193339, 0.119192, 0.9503041],
];
const D65: Vec3 = [0.95047, 1, 1.08883];

/** CIELAB of a linear RGB colour (CIE 1976, D65 white). */
export function linearToLab(rgb: Vec3): Vec3 {
  const xyz = mul(RGB_TO_XYZ, rgb);
  const f = (t: number) => (t > (6 / 29) ** 3 ? Math.cbrt(t) : t / (3 * (6 / 29) ** 2) + 4 / 29);
  const [fx, fy, fz] = xyz.map((v, i) => f(v / D65[i]));
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** ΔE*ab (CIE 1976) between two colours as seen with `vision`. */
export function deltaE(a: string, b: string, vision: Vision): number {
  const la = linearToLab(simulate(a, vision));
  const lb = linearToLab(simulate(b, vision));
  return Math.hypot(la[0] - lb[0], la[1] - lb[1], la[2] - lb[2]);
}

/** The closest pair of `colors` under `vision`, and its ΔE*ab. */
export function closestPair(
  colors: readonly { name: string; color: string }[],
  vision: Vision,
): { a: string; b: string; deltaE: number } {
  let best = { a: "", b: "", deltaE: Infinity };
  for (let i = 0; i < colors.length; i++)
    for (let j = i + 1; j < colors.length; j++) {
      const d = deltaE(colors[i].color, colors[j].color, vision);
      if (d < best.deltaE) best = { a: colors[i].name, b: colors[j].name, deltaE: d };
    }
  return best;
}
