/**
 * CPU reference layers of the tiny VLM, in f64 (llm.c `train_gpt2.c` style).
 * Used by tests only: every WGSL kernel is checked against the function of the
 * same name here, and `../reference.ts` composes them into the whole model.
 *
 * Conventions: outputs first, then inputs, then sizes; letters as in llm.c
 * (B batch, T positions, C channels, OC output channels, NH heads, V vocab,
 * N = rows). All tensors are row-major flat Float64Arrays. Backward functions
 * ACCUMULATE (+=) into their gradient outputs, like llm.c, so callers zero them.
 */

export type F64 = Float64Array;

// ---------------------------------------------------------------------------
// residual add and log-softmax

/** out [N] = a + b. */
export function residualForward(
  out: F64,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  N: number,
): void {
  for (let i = 0; i < N; i++) out[i] = a[i] + b[i];
}

/** out [N, V] = logits − logsumexp(logits) per row (max-subtracted). */
export function logSoftmaxForward(out: F64, logits: ArrayLike<number>, N: number, V: number): void {
  for (let n = 0; n < N; n++) {
    let m = -Infinity;
    for (let v = 0; v < V; v++) m = Math.max(m, logits[n * V + v]);
    let s = 0;
    for (let v = 0; v < V; v++) s += Math.exp(logits[n * V + v] - m);
    const lse = m + Math.log(s);
    for (let v = 0; v < V; v++) out[n * V + v] = logits[n * V + v] - lse;
  }
}
