/**
 * CPU reference of the indexed row gather (shaders/rows/rows_gather.wgsl). Tests only.
 */

/** y [R, W] with y[r] = x[idx[r]], 0 where idx[r] < 0, as rows_gather.wgsl (R = idx.length). */
export function gatherRowsIndexed(
  x: ArrayLike<number>,
  W: number,
  idx: ArrayLike<number>,
): Float64Array {
  const y = new Float64Array(idx.length * W);
  for (let r = 0; r < idx.length; r++) {
    const src = idx[r];
    if (src < 0) continue;
    for (let c = 0; c < W; c++) y[r * W + c] = x[src * W + c];
  }
  return y;
}
