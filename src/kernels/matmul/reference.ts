/**
 * CPU reference (f64) of the matmul kernels (shaders/matmul/), llm.c
 * `train_gpt2.c` style: outputs first, then inputs, then sizes; row-major
 * flat arrays, w [C, OC] (the lab's [in, out] layout). The backward
 * ACCUMULATES (+=) into its gradient outputs, like llm.c. Tests only; the
 * whole-model reference (src/model/reference.ts) composes these.
 */

type F64 = Float64Array;

/**
 * out [N, OC] = inp [N, C] · w [C, OC] (+ bias [OC] when given).
 */
export function matmulForward(
  out: F64,
  inp: ArrayLike<number>,
  w: ArrayLike<number>,
  bias: ArrayLike<number> | null,
  N: number,
  C: number,
  OC: number,
): void {
  for (let n = 0; n < N; n++) {
    for (let o = 0; o < OC; o++) {
      let s = bias ? bias[o] : 0;
      for (let c = 0; c < C; c++) s += inp[n * C + c] * w[c * OC + o];
      out[n * OC + o] = s;
    }
  }
}

/**
 * Backward of matmulForward. Accumulates
 *   dinp [N, C]  += dout · wᵀ,   dw [C, OC] += inpᵀ · dout,   dbias [OC] += Σ_n dout[n].
 * Any gradient output may be null (skipped).
 */
export function matmulBackward(
  dinp: F64 | null,
  dw: F64 | null,
  dbias: F64 | null,
  dout: ArrayLike<number>,
  inp: ArrayLike<number>,
  w: ArrayLike<number>,
  N: number,
  C: number,
  OC: number,
): void {
  for (let n = 0; n < N; n++) {
    for (let o = 0; o < OC; o++) {
      const d = dout[n * OC + o];
      if (dbias) dbias[o] += d;
      for (let c = 0; c < C; c++) {
        if (dinp) dinp[n * C + c] += d * w[c * OC + o];
        if (dw) dw[c * OC + o] += d * inp[n * C + c];
      }
    }
  }
}
