/**
 * CPU reference of the generator's plumbing kernels (shaders/decode/). Tests only.
 */

/**
 * Row gather: y [R, W] with y[r] = x[(r / div)·stride + offset] (integer
 * division), as decode_gather.wgsl.
 */
export function gatherRows(
  x: ArrayLike<number>,
  W: number,
  d: { R: number; stride: number; offset: number; div: number },
): Float64Array {
  const y = new Float64Array(d.R * W);
  for (let r = 0; r < d.R; r++) {
    const src = Math.floor(r / d.div) * d.stride + d.offset;
    for (let c = 0; c < W; c++) y[r * W + c] = x[src * W + c];
  }
  return y;
}
