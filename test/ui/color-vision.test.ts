// The charts' variant colours stay apart for people with the common colour
// vision deficiencies: every pair of the variant table's colours, simulated
// with Machado et al. (2009) at severity 1.0, is at least MIN_DELTA_E apart
// in CIELAB (ΔE*ab, CIE 1976) under normal vision, protanopia, deuteranopia
// and tritanopia. Plus worked values of the simulation and the distance.
import { describe, expect, it } from "vitest";
import { VARIANT_TABLE } from "../../src/settings/variant-table";
import {
  closestPair,
  deltaE,
  linearToLab,
  parseHex,
  simulate,
  VISIONS,
} from "../../src/ui/lib/color-vision";

/**
 * Least ΔE*ab between two variant colours (lab choice, 2026-12-03): 10 was
 * set first and the earlier palette failed it (prm vs acre 9.6 under
 * deuteranopia); the Okabe–Ito palette that replaced it clears 15, which is
 * kept as the bar so a new colour needs a real margin.
 */
const MIN_DELTA_E = 15;

describe("variant colours under colour vision deficiencies", () => {
  const colors = VARIANT_TABLE.map((v) => ({ name: v.name, color: v.color }));
  for (const vision of VISIONS)
    it(`every pair is at least ΔE ${MIN_DELTA_E} apart (${vision})`, () => {
      const c = closestPair(colors, vision);
      expect(c.deltaE, `${c.a} vs ${c.b} under ${vision}`).toBeGreaterThanOrEqual(MIN_DELTA_E);
    });

  it("a red/green pair that normal vision tells apart collapses under protanopia and deuteranopia", () => {
    // Pure red vs a green of the same lightness: far apart normally, close for the red–green dichromacies.
    const red = "#d62728";
    const green = "#2ca02c";
    expect(deltaE(red, green, "normal")).toBeGreaterThan(80);
    expect(deltaE(red, green, "deuteranopia")).toBeLessThan(deltaE(red, green, "normal") / 2);
    expect(deltaE(red, green, "protanopia")).toBeLessThan(deltaE(red, green, "normal") / 2);
  });

  it("worked values: white is L* 100, the Machado rows of white sum to one, tritanopia keeps grey grey", () => {
    expect(parseHex("#ff8000")).toEqual([1, 128 / 255, 0]);
    const white = linearToLab(simulate("#ffffff", "normal"));
    expect(white[0]).toBeCloseTo(100, 3);
    expect(Math.abs(white[1])).toBeLessThan(0.01);
    expect(Math.abs(white[2])).toBeLessThan(0.01);
    // Each Machado row sums to 1 (white stays white); grey stays grey under every simulation.
    for (const vision of VISIONS)
      for (const c of simulate("#808080", vision)) expect(c).toBeCloseTo(0.2158605, 5);
    // Protanopia of pure linear red is the matrix's first column.
    const r = simulate("#ff0000", "protanopia");
    expect(r[0]).toBeCloseTo(0.152286, 6);
    expect(r[1]).toBeCloseTo(0.114503, 6);
    expect(r[2]).toBe(0); // -0.003882 clamped to the gamut
  });

  it("refuses a colour that is not #rrggbb", () => {
    expect(() => parseHex("red")).toThrow(/'red' is not a #rrggbb colour/);
  });
});
