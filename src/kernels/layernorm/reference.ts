/**
 * CPU reference (f64) of the LayerNorm kernels (shaders/layernorm/), llm.c
 * `train_gpt2.c` style: outputs first, then inputs, then sizes; row-major
 * flat arrays. The backward ACCUMULATES (+=) into its gradient outputs, like
 * llm.c. Tests only; the whole-model reference (src/model/reference.ts)
 * composes these.
 */

type F64 = Float64Array;

/** LayerNorm epsilon (nanoGPT / PyTorch default), biased variance. */
const LN_EPS = 1e-5;

/**
 * out [N, C] = (inp − mean) · rstd · g + b; also writes mean [N] and rstd [N]
 * (rstd = 1/sqrt(var + 1e-5), biased variance) for the backward pass.
 */
export function layernormForward(
  out: F64,
  mean: F64,
  rstd: F64,
  inp: ArrayLike<number>,
  g: ArrayLike<number>,
  b: ArrayLike<number>,
  N: number,
  C: number,
): void {
  for (let n = 0; n < N; n++) {
    let m = 0;
    for (let c = 0; c < C; c++) m += inp[n * C + c];
    m /= C;
    let v = 0;
    for (let c = 0; c < C; c++) {
      const x = inp[n * C + c] - m;
      v += x * x;
    }
    v /= C;
    const r = 1 / Math.sqrt(v + LN_EPS);
    for (let c = 0; c < C; c++) out[n * C + c] = (inp[n * C + c] - m) * r * g[c] + b[c];
    mean[n] = m;
    rstd[n] = r;
  }
}

/**
 * Backward of layernormForward (llm.c doc/layernorm): with x̂ = (x − mean)·rstd
 * and dnorm = dout·g,  dinp += rstd · (dnorm − mean(dnorm) − x̂ · mean(dnorm·x̂)),
 * dg += Σ_n dout·x̂,  db += Σ_n dout. All accumulate.
 */
export function layernormBackward(
  dinp: F64,
  dg: F64,
  db: F64,
  dout: ArrayLike<number>,
  inp: ArrayLike<number>,
  g: ArrayLike<number>,
  mean: ArrayLike<number>,
  rstd: ArrayLike<number>,
  N: number,
  C: number,
): void {
  for (let n = 0; n < N; n++) {
    const m = mean[n];
    const r = rstd[n];
    let dnormMean = 0;
    let dnormNormMean = 0;
    for (let c = 0; c < C; c++) {
      const xh = (inp[n * C + c] - m) * r;
      const dn = g[c] * dout[n * C + c];
      dnormMean += dn;
      dnormNormMean += dn * xh;
    }
    dnormMean /= C;
    dnormNormMean /= C;
    for (let c = 0; c < C; c++) {
      const xh = (inp[n * C + c] - m) * r;
      const d = dout[n * C + c];
      db[c] += d;
      dg[c] += xh * d;
      dinp[n * C + c] += (g[c] * d - dnormMean - xh * dnormNormMean) * r;
    }
  }
}
