import { describe, expect, it } from "vitest";
import { perturbImages } from "../../src/rl/perturb";

const pixels = 28 * 56;
const images = Float32Array.from({ length: 2 * pixels }, (_, i) => (i % 7) / 7);

describe("SCS image perturbation", () => {
  it("adds per-copy Gaussian noise with σ drawn in the range; same seed, same images", () => {
    const range = { sigmaMin: 0.01, sigmaMax: 0.4 };
    const a = perturbImages(images, pixels, 4, range, 11);
    expect(a.images.length).toBe(8 * pixels);
    expect(a.sigmas.length).toBe(8);
    for (let k = 0; k < 8; k++) {
      const sigma = a.sigmas[k];
      expect(sigma).toBeGreaterThanOrEqual(0.01);
      expect(sigma).toBeLessThanOrEqual(0.4);
      const src = Math.floor(k / 4);
      let sum = 0;
      let sq = 0;
      for (let p = 0; p < pixels; p++) {
        const d = a.images[k * pixels + p] - images[src * pixels + p];
        sum += d;
        sq += d * d;
      }
      // 1,568 draws: the sample mean is within 4 standard errors of 0 and the sample SD within 10 % of σ.
      expect(Math.abs(sum / pixels)).toBeLessThan((4 * sigma) / Math.sqrt(pixels));
      expect(Math.sqrt(sq / pixels) / sigma).toBeGreaterThan(0.9);
      expect(Math.sqrt(sq / pixels) / sigma).toBeLessThan(1.1);
    }
    // The copies differ from the original and from each other.
    expect(a.images.subarray(0, pixels)).not.toEqual(images.subarray(0, pixels));
    expect(a.images.subarray(0, pixels)).not.toEqual(a.images.subarray(pixels, 2 * pixels));
    const b = perturbImages(images, pixels, 4, range, 11);
    expect(b.images).toEqual(a.images);
    expect(b.sigmas).toEqual(a.sigmas);
    expect(perturbImages(images, pixels, 4, range, 12).images).not.toEqual(a.images);
  });

  it("σ_min = σ_max = 0 leaves the images as they are", () => {
    const a = perturbImages(images, pixels, 2, { sigmaMin: 0, sigmaMax: 0 }, 1);
    expect(a.images.subarray(0, pixels)).toEqual(images.subarray(0, pixels));
    expect(a.images.subarray(3 * pixels)).toEqual(images.subarray(pixels));
  });

  it("names a bad range, copy count or image size", () => {
    expect(() => perturbImages(images, pixels, 2, { sigmaMin: 0.5, sigmaMax: 0.1 }, 1)).toThrow(
      /sigmaMin <= sigmaMax/,
    );
    expect(() => perturbImages(images, pixels, 0, { sigmaMin: 0, sigmaMax: 0.1 }, 1)).toThrow(
      /copies/,
    );
    expect(() => perturbImages(images, 1000, 1, { sigmaMin: 0, sigmaMax: 0.1 }, 1)).toThrow(
      /whole images/,
    );
  });
});
