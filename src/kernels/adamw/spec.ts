/**
 * Specs of the optimizer kernels (shaders/adamw/): the two stages of the
 * global gradient norm (grad_norm_partial, grad_norm_finalize) and the AdamW
 * update over the whole flat parameter buffer (vec4s). Launcher: ./launch.ts
 * (class AdamW); CPU reference: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import adamwCode from "../../../shaders/adamw/adamw.wgsl?raw";
import partialCode from "../../../shaders/adamw/grad_norm_partial.wgsl?raw";
import finalizeCode from "../../../shaders/adamw/grad_norm_finalize.wgsl?raw";

/** Number of partial sums in the first reduction stage (a multiple of the workgroup size, 64). */
export const GRAD_NORM_PARTIALS = 1024;

/** partials [numPartials] = strided sums of g² over grads [n4] (vec4). */
export const gradNormPartialSpec = defineKernel({
  name: "grad_norm_partial",
  source: partialCode,
  uniforms: {
    n4: "u32", // number of vec4s in grads
    numPartials: "u32",
  },
  bindings: {
    grads: ["read", "vec4f"], // [n4]
    partials: ["read_write", "f32"], // [numPartials]
  },
  workgroupSize: 64,
  grid: { kind: "x", threads: (u) => u.numPartials },
});

/** stats [4] = [norm, clip scale, finite, Σg²] from the partial sums; one invocation. */
export const gradNormFinalizeSpec = defineKernel({
  name: "grad_norm_finalize",
  source: finalizeCode,
  uniforms: {
    numPartials: "u32",
    maxNorm: "f32", // clip threshold; ≤ 0 disables clipping
  },
  bindings: {
    partials: ["read", "f32"], // [numPartials]
    stats: ["read_write", "f32"], // [4]
  },
  workgroupSize: 1,
  grid: { kind: "fixed", workgroups: () => 1 },
});

/** At most this many AdamW workgroups (a grid-stride loop covers the rest; lab choice). */
const ADAMW_MAX_WORKGROUPS = 4096;

/** The AdamW update of params, m, v [n4] (vec4) with the clip scale of gstats applied to the gradient. */
export const adamwSpec = defineKernel({
  name: "adamw",
  source: adamwCode,
  uniforms: {
    n4: "u32", // vec4 count of params/grads/m/v
    lr: "f32",
    beta1: "f32",
    beta2: "f32",
    eps: "f32",
    weightDecay: "f32",
    bc1: "f32", // 1 − β1^t
    bc2: "f32", // 1 − β2^t
  },
  bindings: {
    params: ["read_write", "vec4f"], // [n4]
    grads: ["read", "vec4f"], // [n4]
    m: ["read_write", "vec4f"], // [n4]
    v: ["read_write", "vec4f"], // [n4]
    decayMask: ["read", "u32"], // [totalFloats / 64]
    gstats: ["read", "f32"], // [norm, scale, finite, Σg²]
  },
  workgroupSize: 64,
  grid: {
    kind: "fixed",
    workgroups: (u, max) => Math.max(1, Math.min(Math.ceil(u.n4 / 64), ADAMW_MAX_WORKGROUPS, max)),
  },
});

/** Every optimizer kernel (spec tests). */
export const ADAMW_SPECS: KernelSpec[] = [gradNormPartialSpec, gradNormFinalizeSpec, adamwSpec];
