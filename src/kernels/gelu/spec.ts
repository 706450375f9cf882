/**
 * Specs of the GELU kernels (shaders/gelu/): elementwise forward and
 * backward of the tanh approximation over N floats, one per invocation
 * (f32) or four (vec4f, N % 4 = 0; the same bits). Launchers: ./launch.ts;
 * CPU reference: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import forwardCode from "../../../shaders/gelu/gelu_forward.wgsl?raw";
import backwardCode from "../../../shaders/gelu/gelu_backward.wgsl?raw";

/** Element type of a variant and its floats per element. */
const ELEM = { f32: { E: "f32", VW: 1 }, vec4: { E: "vec4f", VW: 4 } } as const;

function forward(e: keyof typeof ELEM) {
  const { E, VW } = ELEM[e];
  /** out [N] = gelu(inp [N]). */
  return defineKernel({
    name: e === "f32" ? "gelu_forward" : "gelu_forward_vec4",
    source: forwardCode,
    consts: { VW },
    types: { E },
    uniforms: { N: "u32" }, // floats
    bindings: {
      inp: ["read", E], // [N]
      out: ["read_write", E], // [N]
    },
    workgroupSize: 64,
    grid: { kind: "spill", threads: (u) => Math.ceil(u.N / VW) },
  });
}

function backward(e: keyof typeof ELEM) {
  const { E, VW } = ELEM[e];
  /** dinp [N] = gelu'(inp)·dout (written). */
  return defineKernel({
    name: e === "f32" ? "gelu_backward" : "gelu_backward_vec4",
    source: backwardCode,
    consts: { VW },
    types: { E },
    uniforms: { N: "u32" }, // floats
    bindings: {
      inp: ["read", E], // [N] pre-activation
      dout: ["read", E], // [N]
      dinp: ["read_write", E], // [N]
    },
    workgroupSize: 64,
    grid: { kind: "spill", threads: (u) => Math.ceil(u.N / VW) },
  });
}

export const geluForwardSpec = forward("f32");
export const geluForwardVec4 = forward("vec4");
export const geluBackwardSpec = backward("f32");
export const geluBackwardVec4 = backward("vec4");

/** Every GELU kernel (spec tests). */
export const GELU_SPECS: KernelSpec[] = [
  geluForwardSpec,
  geluForwardVec4,
  geluBackwardSpec,
  geluBackwardVec4,
];
