/**
 * Converts a task image (row-major H×W×C Float32Array in [0, 1], C = 1 or 3)
 * into RGBA bytes for a canvas ImageData. Values are clamped; NaN draws black.
 */
export function imageToRgba(
  data: Float32Array,
  height: number,
  width: number,
  channels: number,
): Uint8ClampedArray {
  if (channels !== 1 && channels !== 3 && channels !== 4)
    throw new Error(`imageToRgba: ${channels} channels (expected 1, 3 or 4)`);
  if (data.length < height * width * channels) {
    throw new Error(`imageToRgba: ${data.length} values for ${height}×${width}×${channels}`);
  }
  const out = new Uint8ClampedArray(height * width * 4);
  const byte = (v: number) =>
    Number.isFinite(v) ? Math.round(Math.min(Math.max(v, 0), 1) * 255) : 0;
  for (let p = 0; p < height * width; p++) {
    const src = p * channels;
    if (channels === 1) {
      const g = byte(data[src]);
      out[p * 4] = g;
      out[p * 4 + 1] = g;
      out[p * 4 + 2] = g;
    } else {
      out[p * 4] = byte(data[src]);
      out[p * 4 + 1] = byte(data[src + 1]);
      out[p * 4 + 2] = byte(data[src + 2]);
    }
    out[p * 4 + 3] = 255;
  }
  return out;
}
