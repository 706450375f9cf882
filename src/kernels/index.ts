/**
 * The training path's kernel launchers, one folder per family (llm.c
 * dev/cuda habit): its WGSL versions in shaders/<family>/, its spec (the
 * kernels' uniforms, bindings, workgroup size and grid; src/gpu/kernel-spec.ts),
 * launcher and f64 CPU reference in src/kernels/<family>/, its checker in
 * test/gpu/<family>/. Each launcher prepares ONE SpecCall at setup; run it
 * every step with ctx.run(call). Shapes are row-major.
 *
 *   matmul      forward (+ bias, + residual), dX, dW + bias sums; scalar, vec4, 16×8, tiled; decode
 *   attention   causal + PAD key mask, forward and two backward passes (scalar, vec4,
 *               tiled, the shared-prefix layout); KV cache and decode
 *   layernorm   forward, input and parameter gradients; decode
 *   gelu        forward, backward
 *   embed       patchify, embeddings forward and backward (plain, shared-prefix layout); decode
 *   loss        per-token log-softmax and loss terms, aggregation, logits gradient
 *   adamw       global-norm clipping and AdamW (src/kernels/adamw, used by src/engine/lab-engine.ts)
 *   advantages  group advantage estimators (src/kernels/advantages)
 *   sample      token sampling of the generator (src/kernels/sample)
 *   decode      step counter of the generator (src/kernels/decode)
 *   rows        indexed row gather: the compacted last layer of a training step, the
 *               generator's last prefill rows
 * On CPU adapters the register-blocked versions run: there workgroup memory
 * only adds barriers (docs/design.md, docs/benchmarks-log.md). The "tiled"
 * matmul and attention stage their operands in workgroup memory for real
 * GPUs, where "auto" picks them; they are checked like the others but not
 * yet timed on a real GPU.
 */
export * from "./matmul/launch";
export * from "./attention/launch";
export * from "./layernorm/launch";
export * from "./gelu/launch";
export * from "./embed/launch";
export * from "./loss/launch";
export * from "./rows/launch";
