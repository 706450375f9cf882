/**
 * Spec of the indexed row gather (shaders/rows/rows_gather.wgsl), which packs
 * the rows a training step needs and spreads them back (TrainGraph's
 * compacted last layer). Launcher: ./launch.ts; CPU reference: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import gatherCode from "../../../shaders/rows/rows_gather.wgsl?raw";

/** y [R, W] = x rows idx[r] (0 where idx[r] < 0; W % 4 = 0); one invocation per (row, vec4). */
export const rowsGatherSpec = defineKernel({
  name: "rows_gather",
  source: gatherCode,
  uniforms: { R: "u32", W: "u32" },
  bindings: {
    idx: ["read", "i32"], // [≥ R]
    x: ["read", "vec4f"], // [rows, W/4]
    y: ["read_write", "vec4f"], // [≥ R, W/4]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.R * (u.W / 4) },
});

/** Every row kernel (spec tests). */
export const ROWS_SPECS: KernelSpec[] = [rowsGatherSpec];
