/**
 * Specs of the GELU kernels (shaders/gelu/): elementwise forward and
 * backward of the tanh approximation over N values. Launchers: ./launch.ts;
 * CPU reference: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import forwardCode from "../../../shaders/gelu/gelu_forward.wgsl?raw";
import backwardCode from "../../../shaders/gelu/gelu_backward.wgsl?raw";

/** out [N] = gelu(inp [N]). */
export const geluForwardSpec = defineKernel({
  name: "gelu_forward",
  source: forwardCode,
  uniforms: { N: "u32" },
  bindings: {
    inp: ["read", "f32"], // [N]
    out: ["read_write", "f32"], // [N]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.N },
});

/** dinp [N] = gelu'(inp)·dout (written). */
export const geluBackwardSpec = defineKernel({
  name: "gelu_backward",
  source: backwardCode,
  uniforms: { N: "u32" },
  bindings: {
    inp: ["read", "f32"], // [N] pre-activation
    dout: ["read", "f32"], // [N]
    dinp: ["read_write", "f32"], // [N]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.N },
});

/** Every GELU kernel (spec tests). */
export const GELU_SPECS: KernelSpec[] = [geluForwardSpec, geluBackwardSpec];
