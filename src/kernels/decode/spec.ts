/**
 * Specs of the generator's plumbing kernels (shaders/decode/): the row
 * gather that keeps each prompt's last row after a prefill, and the step
 * counter advanced after every decode step. Launchers: ./launch.ts; CPU
 * reference: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import gatherCode from "../../../shaders/decode/decode_gather.wgsl?raw";
import advanceCode from "../../../shaders/decode/decode_advance.wgsl?raw";

/** y [R, W] = rows (r / div)·stride + offset of x [rows, W] (W % 4 = 0); one invocation per (row, vec4). */
export const decodeGatherSpec = defineKernel({
  name: "decode_gather",
  source: gatherCode,
  uniforms: { R: "u32", W: "u32", stride: "u32", offset: "u32", div: "u32" },
  bindings: {
    x: ["read", "vec4f"], // [rows, W/4]
    y: ["read_write", "vec4f"], // [R, W/4]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.R * (u.W / 4) },
});

/** state[0] += inc (one invocation). */
export const decodeAdvanceSpec = defineKernel({
  name: "decode_advance",
  source: advanceCode,
  uniforms: { inc: "u32" },
  bindings: {
    state: ["read_write", "u32"], // [step, pad, ...]
  },
  workgroupSize: 1,
  grid: { kind: "fixed", workgroups: () => 1 },
});

/** Every decode plumbing kernel (spec tests). */
export const DECODE_SPECS: KernelSpec[] = [decodeGatherSpec, decodeAdvanceSpec];
