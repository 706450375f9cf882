/**
 * Spec of the generator's plumbing kernel (shaders/decode/): the step
 * counter advanced after every decode step. Launcher: ./launch.ts. (The
 * prefill's last rows are gathered by kernels/rows.)
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import advanceCode from "../../../shaders/decode/decode_advance.wgsl?raw";

/** state[0] += inc (one invocation). */
export const decodeAdvanceSpec = defineKernel({
  name: "decode_advance",
  source: advanceCode,
  uniforms: { inc: "u32" },
  bindings: {
    state: ["read_write", "u32"], // [step, pad, 0, 0, prefilled tokens per sequence [N]]
  },
  workgroupSize: 1,
  grid: { kind: "fixed", workgroups: () => 1 },
});

/** Every decode plumbing kernel (spec tests). */
export const DECODE_SPECS: KernelSpec[] = [decodeAdvanceSpec];
