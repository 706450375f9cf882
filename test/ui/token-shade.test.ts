// The token view's shading (src/ui/lib/token-shade.ts): worked colours on the
// white–blue and white–red scales, the shared scale, and the two ends told
// apart, and from white, under normal vision and the three dichromacies
// (ΔE*ab after Machado et al. 2009, src/ui/lib/color-vision.ts), with the
// same bar of 15 as the variant colours.
import { describe, expect, it } from "vitest";
import { deltaE, VISIONS } from "../../src/ui/lib/color-vision";
import { REINFORCED, SUPPRESSED, shadeScale, tokenShade } from "../../src/ui/lib/token-shade";

describe("token shading", () => {
  it("mixes white with blue for a reinforced token and red for a suppressed one, by |coef| / scale", () => {
    expect(tokenShade(0.02, 0.02).background).toBe(REINFORCED);
    expect(tokenShade(-0.05, 0.02).background).toBe(SUPPRESSED); // beyond the scale: the end
    // Half-way to #2166ac: 1 − 0.5 + 0.5·(0x21/255) = 0.5647 → 144 = 0x90; 0x66: 0.7 → 0xb3; 0xac: 0.8373 → 0xd6.
    expect(tokenShade(0.01, 0.02).background).toBe("#90b3d6");
    expect(tokenShade(0, 0.02).background).toBe("#ffffff");
    expect(tokenShade(Number.NaN, 0.02).background).toBe("#ffffff");
    expect(tokenShade(0.01, 0).background).toBe("#ffffff");
    // Dark ends carry white text, light shades dark text.
    expect(tokenShade(0.02, 0.02).color).toBe("#ffffff");
    expect(tokenShade(0.002, 0.02).color).toBe("#1d2733");
  });

  it("scales by the largest |weight| of every rollout shown", () => {
    expect(
      shadeScale([
        [0.1, -0.3],
        [0.2, Number.NaN],
      ]),
    ).toBe(0.3);
    expect(shadeScale([])).toBe(0);
  });

  for (const vision of VISIONS)
    it(`keeps reinforced, suppressed and untouched apart (${vision})`, () => {
      expect(deltaE(REINFORCED, SUPPRESSED, vision)).toBeGreaterThanOrEqual(15);
      expect(deltaE(REINFORCED, "#ffffff", vision)).toBeGreaterThanOrEqual(15);
      expect(deltaE(SUPPRESSED, "#ffffff", vision)).toBeGreaterThanOrEqual(15);
    });
});
