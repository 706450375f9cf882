/**
 * CPU reference (f64) of the GELU kernels (shaders/gelu/; the decode matmul's
 * GELU epilogue is checked against it too), llm.c `train_gpt2.c` style:
 * outputs first. The backward ACCUMULATES (+=) into dinp, like llm.c. Tests
 * only; the whole-model reference (src/model/reference.ts) composes these.
 */

type F64 = Float64Array;

// GELU, tanh approximation (Hendrycks & Gimpel 2016, eq. in §2; GPT-2's gelu)

const GELU_K = Math.sqrt(2 / Math.PI);

/** out [N] = 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³))). */
export function geluForward(out: F64, inp: ArrayLike<number>, N: number): void {
  for (let i = 0; i < N; i++) {
    const x = inp[i];
    out[i] = 0.5 * x * (1 + Math.tanh(GELU_K * (x + 0.044715 * x * x * x)));
  }
}

/** dinp [N] += gelu'(inp) · dout. */
export function geluBackward(
  dinp: F64,
  inp: ArrayLike<number>,
  dout: ArrayLike<number>,
  N: number,
): void {
  for (let i = 0; i < N; i++) {
    const x = inp[i];
    const u = GELU_K * (x + 0.044715 * x * x * x);
    const t = Math.tanh(u);
    const sech2 = 1 - t * t;
    const grad = 0.5 * (1 + t) + 0.5 * x * sech2 * GELU_K * (1 + 3 * 0.044715 * x * x);
    dinp[i] += grad * dout[i];
  }
}
