/** Tiny RGB rasterizer for the procedural families (H×W×3 Float32Array in [0, 1]). */

/** RGB triple in [0, 1]. */
export type RGB = readonly [number, number, number];

/** Sets pixel (row r, col c) of an H×W×3 image; out-of-bounds writes are ignored. */
export function setPixel(
  img: Float32Array,
  width: number,
  height: number,
  r: number,
  c: number,
  rgb: RGB,
): void {
  if (r < 0 || c < 0 || r >= height || c >= width) return;
  const o = (r * width + c) * 3;
  img[o] = rgb[0];
  img[o + 1] = rgb[1];
  img[o + 2] = rgb[2];
}

/** Fills the axis-aligned rectangle rows [r0, r1), cols [c0, c1). */
export function fillRect(
  img: Float32Array,
  width: number,
  height: number,
  r0: number,
  c0: number,
  r1: number,
  c1: number,
  rgb: RGB,
): void {
  for (let r = r0; r < r1; r++)
    for (let c = c0; c < c1; c++) setPixel(img, width, height, r, c, rgb);
}
