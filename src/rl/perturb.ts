/**
 * SCS's visual perturbation (SCS §3.2, docs/reward-spec.md §4): each
 * continuation sees the image plus Gaussian pixel noise whose level is drawn
 * per continuation, x̃ = x + ε, ε ~ N(0, σ²) per pixel, σ ~ U(σ_min, σ_max).
 * This is input preparation for a generation pass (like the image tensors of
 * ./sequences.ts), done in the trainer from a seeded stream.
 */
import { Rng } from "../tasks/rng";

/**
 * Standard normal draws by Box–Muller from `rng` (two uniforms per pair; the
 * second value of a pair is kept for the next call).
 */
class NormalStream {
  private spare: number | null = null;
  constructor(private readonly rng: Rng) {}
  next(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    // 1 − u keeps the logarithm finite (u ∈ [0, 1)).
    const r = Math.sqrt(-2 * Math.log(1 - this.rng.next()));
    const t = 2 * Math.PI * this.rng.next();
    this.spare = r * Math.sin(t);
    return r * Math.cos(t);
  }
}

/** Noise range of SCS's perturbation, on pixels in [0, 1]. */
export interface NoiseRange {
  sigmaMin: number;
  sigmaMax: number;
}

/**
 * `perturbImages(images, pixels, copies, range, seed)`: for every image of
 * `images` [R, pixels] (row-major, values in [0, 1]), `copies` perturbed
 * copies, image-major: out [R·copies, pixels], row r·copies + t = image r
 * plus N(0, σ_{r,t}²) noise, σ_{r,t} ~ U(σ_min, σ_max). Not clamped: the
 * paper's x̃ = x + ε (SCS eq. 9). Deterministic for a seed.
 * @returns the perturbed images and σ [R·copies].
 * @throws Error naming the field for a range outside 0 ≤ σ_min ≤ σ_max ≤ 1,
 *   copies not a positive integer, or images not a multiple of `pixels`.
 */
export function perturbImages(
  images: Float32Array,
  pixels: number,
  copies: number,
  range: NoiseRange,
  seed: number,
): { images: Float32Array; sigmas: Float32Array } {
  const { sigmaMin, sigmaMax } = range;
  if (!(sigmaMin >= 0 && sigmaMin <= sigmaMax && sigmaMax <= 1))
    throw new Error(
      `perturbImages: need 0 <= sigmaMin <= sigmaMax <= 1, got sigmaMin ${sigmaMin}, sigmaMax ${sigmaMax}`,
    );
  if (!Number.isInteger(copies) || copies < 1)
    throw new Error(`perturbImages: copies must be a positive integer, got ${copies}`);
  if (!Number.isInteger(pixels) || pixels < 1 || images.length % pixels !== 0)
    throw new Error(`perturbImages: ${images.length} values are not whole images of ${pixels}`);
  const rows = images.length / pixels;
  const rng = new Rng(seed >>> 0);
  const normal = new NormalStream(rng);
  const out = new Float32Array(rows * copies * pixels);
  const sigmas = new Float32Array(rows * copies);
  for (let r = 0; r < rows; r++) {
    const src = images.subarray(r * pixels, (r + 1) * pixels);
    for (let t = 0; t < copies; t++) {
      const k = r * copies + t;
      const sigma = sigmaMin + (sigmaMax - sigmaMin) * rng.next();
      sigmas[k] = sigma;
      const base = k * pixels;
      for (let p = 0; p < pixels; p++) out[base + p] = src[p] + sigma * normal.next();
    }
  }
  return { images: out, sigmas };
}
