/**
 * Specs of the loss kernels (shaders/loss/): per-token log-softmax, entropy
 * and loss terms (loss_token), their aggregation into the loss, statistics
 * and weighted per-token gradients (loss_reduce), and the logits gradient
 * (loss_logits_grad). Launchers: ./launch.ts; CPU reference: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import tokenCode from "../../../shaders/loss/loss_token.wgsl?raw";
import reduceCode from "../../../shaders/loss/loss_reduce.wgsl?raw";
import logitsGradCode from "../../../shaders/loss/loss_logits_grad.wgsl?raw";

/** Sizes: B sequences of T = P + L positions, L text tokens, vocabulary V. */
const DIMS = { B: "u32", T: "u32", L: "u32", P: "u32", V: "u32" } as const;

/** logprobs [B, L] and the per-token records tok [B·L, 8]; one invocation per text token. */
export const lossTokenSpec = defineKernel({
  name: "loss_token",
  source: tokenCode,
  uniforms: {
    ...DIMS,
    mode: "u32", // LOSS_MODE (launch.ts)
    clipEps: "f32", // PPO clip ε
    beta: "f32", // k3 KL coefficient β
    invTemp: "f32", // 1 / τ
  },
  bindings: {
    logits: ["read", "f32"], // [B, T, V]
    tokens: ["read", "i32"], // [B, L]
    mask: ["read", "f32"], // [B, L]
    advantages: ["read", "f32"], // [B]
    oldLogprobs: ["read", "f32"], // [B, L]
    refLogprobs: ["read", "f32"], // [B, L]
    logprobs: ["read_write", "f32"], // [B, L]
    tok: ["read_write", "f32"], // [B·L, 8]
  },
  workgroupSize: 64,
  grid: { kind: "x", threads: (u) => u.B * u.L },
});

/** loss and stats [8], weighted gradient g [B, L]; one invocation walks every record in order. */
export const lossReduceSpec = defineKernel({
  name: "loss_reduce",
  source: reduceCode,
  uniforms: {
    B: "u32",
    L: "u32",
    agg: "u32", // AGGREGATION (launch.ts)
    normLength: "f32", // constant normaliser of "seq-mean-token-sum-norm"
  },
  bindings: {
    tok: ["read", "f32"], // [B·L, 8]
    g: ["read_write", "f32"], // [B, L]
    stats: ["read_write", "f32"], // [8]
  },
  workgroupSize: 1,
  grid: { kind: "fixed", workgroups: () => 1 },
});

/** dlogits [B, T, V] from g [B, L]; one invocation per logits row (others written 0). */
export const lossLogitsGradSpec = defineKernel({
  name: "loss_logits_grad",
  source: logitsGradCode,
  uniforms: { ...DIMS, invTemp: "f32" },
  bindings: {
    logits: ["read", "f32"], // [B, T, V]
    tokens: ["read", "i32"], // [B, L]
    g: ["read", "f32"], // [B, L]
    tok: ["read", "f32"], // [B·L, 8]
    dlogits: ["read_write", "f32"], // [B, T, V]
  },
  workgroupSize: 64,
  grid: { kind: "x", threads: (u) => u.B * u.T },
});

/** Every loss kernel (spec tests). */
export const LOSS_SPECS: KernelSpec[] = [lossTokenSpec, lossReduceSpec, lossLogitsGradSpec];
