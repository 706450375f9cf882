/**
 * Specs of the LayerNorm kernels (shaders/layernorm/): the training forward
 * (also writing mean and rstd), the input gradient and the parameter
 * gradients, and the decode LayerNorm that reads g and b from the flat
 * parameter buffer and can gather rows. Rows are read as vec4 (C % 4 = 0).
 * Launchers: ./launch.ts; CPU reference: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import forwardCode from "../../../shaders/layernorm/layernorm_forward.wgsl?raw";
import dxCode from "../../../shaders/layernorm/layernorm_backward_dx.wgsl?raw";
import paramsCode from "../../../shaders/layernorm/layernorm_backward_params.wgsl?raw";
import decodeCode from "../../../shaders/layernorm/decode_layernorm.wgsl?raw";

/** out [N, C], mean [N], rstd [N] from inp [N, C], g, b [C]; one invocation per row. */
export const layernormForwardSpec = defineKernel({
  name: "layernorm_forward",
  source: forwardCode,
  uniforms: { N: "u32", C: "u32" },
  bindings: {
    inp: ["read", "vec4f"], // [N, C/4]
    g: ["read", "vec4f"], // [C/4]
    b: ["read", "vec4f"], // [C/4]
    out: ["read_write", "vec4f"], // [N, C/4]
    mean: ["read_write", "f32"], // [N]
    rstd: ["read_write", "f32"], // [N]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.N },
});

/** dinp [N, C] (=, or += with flags bit 0) from dout, inp, g and the forward's mean, rstd. */
export const layernormBackwardDxSpec = defineKernel({
  name: "layernorm_backward_dx",
  source: dxCode,
  uniforms: { N: "u32", C: "u32", flags: "u32" },
  bindings: {
    dout: ["read", "vec4f"], // [N, C/4]
    inp: ["read", "vec4f"], // [N, C/4]
    g: ["read", "vec4f"], // [C/4]
    mean: ["read", "f32"], // [N]
    rstd: ["read", "f32"], // [N]
    dinp: ["read_write", "vec4f"], // [N, C/4]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.N },
});

/** dg, db [C] += column sums over the N rows; one invocation per 4 columns. */
export const layernormBackwardParamsSpec = defineKernel({
  name: "layernorm_backward_params",
  source: paramsCode,
  uniforms: { N: "u32", C: "u32" },
  bindings: {
    dout: ["read", "vec4f"], // [N, C/4]
    inp: ["read", "vec4f"], // [N, C/4]
    mean: ["read", "f32"], // [N]
    rstd: ["read", "f32"], // [N]
    dg: ["read_write", "vec4f"], // [C/4]
    db: ["read_write", "vec4f"], // [C/4]
  },
  workgroupSize: 64,
  grid: { kind: "x", threads: (u) => u.C / 4 },
});

/** y [R, D] = LayerNorm of x rows r·inStride + inOffset, g and b at float offsets gOff, bOff of w. */
export const decodeLayernormSpec = defineKernel({
  name: "decode_layernorm",
  source: decodeCode,
  uniforms: {
    R: "u32", // output rows
    D: "u32", // channels (multiple of 4)
    inStride: "u32",
    inOffset: "u32",
    gOff: "u32", // float offset of the gain [D]
    bOff: "u32", // float offset of the bias [D]
  },
  bindings: {
    x: ["read", "vec4f"], // [rows, D/4]
    w: ["read", "vec4f"], // flat parameters
    y: ["read_write", "vec4f"], // [R, D/4]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.R },
});

/** Every LayerNorm kernel (spec tests). */
export const LAYERNORM_SPECS: KernelSpec[] = [
  layernormForwardSpec,
  layernormBackwardDxSpec,
  layernormBackwardParamsSpec,
  decodeLayernormSpec,
];
