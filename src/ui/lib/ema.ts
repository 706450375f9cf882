/**
 * TensorBoard's debiased exponential moving average (the "Smoothing" slider).
 * Same recurrence as TensorBoard's scalar dashboard: an EMA started at 0 and
 * divided by (1 − w^n) so the first points are not pulled towards 0.
 * Non-finite values pass through unchanged and do not enter the average.
 * @param values raw values in x order
 * @param weight smoothing weight w in [0, 1); 0 = no smoothing
 */
export function debiasedEma(values: readonly number[], weight: number): number[] {
  const w = Math.min(Math.max(weight, 0), 0.999);
  const out = new Array<number>(values.length);
  let last = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * w + (1 - w) * v;
    n++;
    const debias = w === 0 ? 1 : 1 - w ** n;
    out[i] = last / debias;
  }
  return out;
}
