/**
 * Spec of the sampling kernel (shaders/sample/sample.wgsl): picks the next
 * token of every sequence (forced prefix, greedy, or seeded sampling with
 * temperature, top-k and top-p) from logits [N, V] and writes it where the
 * next decode step reads it. Launcher: ./launch.ts; CPU reference of the
 * PRNG and the sampling distribution: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import code from "../../../shaders/sample/sample.wgsl?raw";

/** One invocation per sequence. */
export const sampleSpec = defineKernel({
  name: "sample",
  source: code,
  uniforms: {
    N: "u32",
    V: "u32",
    M: "u32", // columns of out.tokens / out.logprobs (maxNew of this batch)
    cap: "u32", // columns of `forced` (the Generator's maxNew)
    promptLen: "u32",
    textCap: "u32",
    seed: "u32",
    eos: "i32",
    pad: "i32",
    greedy: "u32", // 1: argmax
    topK: "u32", // 0: off
    invT: "f32", // 1 / temperature
    topP: "f32", // ≥ 1: off
  },
  bindings: {
    logits: ["read", "f32"], // [N, V]
    ework: ["read_write", "f32"], // [N, V] scratch
    forced: ["read", "i32"], // [N, cap] then forcedLen [N]
    state: ["read", "u32"], // [step, pad, 0, 0, prefilled tokens per sequence [N]]
    text: ["read_write", "i32"], // [N, textCap]
    out: ["read_write", "i32"], // tokens [N, M] | logprobs [N, M] (f32 bits) | lengths [N] | done [N]
  },
  workgroupSize: 64,
  grid: { kind: "x", threads: (u) => u.N },
});

/** Every sampling kernel (spec tests). */
export const SAMPLE_SPECS: KernelSpec[] = [sampleSpec];
