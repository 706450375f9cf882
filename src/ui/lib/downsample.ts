/**
 * Largest-Triangle-Three-Buckets downsampling (Steinarsson 2013): keeps the
 * first and last point and, per bucket, the point that spans the largest
 * triangle with its neighbours, so peaks and dips of a long run stay visible.
 * @returns indices into xs/ys, increasing; all indices when n ≤ threshold
 */
export function lttbIndices(
  xs: readonly number[],
  ys: readonly number[],
  threshold: number,
): number[] {
  const n = xs.length;
  if (ys.length !== n) throw new Error(`lttbIndices: ${n} x values but ${ys.length} y values`);
  if (threshold >= n || threshold <= 0) return Array.from({ length: n }, (_, i) => i);
  if (threshold < 3) return threshold === 1 ? [n - 1] : [0, n - 1];
  const out: number[] = [0];
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let i = 0; i < threshold - 2; i++) {
    // Average of the next bucket (the third triangle vertex).
    const nextStart = Math.floor((i + 1) * every) + 1;
    const nextEnd = Math.min(Math.floor((i + 2) * every) + 1, n);
    let avgX = 0;
    let avgY = 0;
    for (let j = nextStart; j < nextEnd; j++) {
      avgX += xs[j];
      avgY += ys[j];
    }
    const len = Math.max(nextEnd - nextStart, 1);
    avgX /= len;
    avgY /= len;
    const start = Math.floor(i * every) + 1;
    const end = Math.floor((i + 1) * every) + 1;
    let best = start;
    let bestArea = -1;
    for (let j = start; j < end; j++) {
      const area = Math.abs((xs[a] - avgX) * (ys[j] - ys[a]) - (xs[a] - xs[j]) * (avgY - ys[a]));
      if (area > bestArea) {
        bestArea = area;
        best = j;
      }
    }
    out.push(best);
    a = best;
  }
  out.push(n - 1);
  return out;
}
