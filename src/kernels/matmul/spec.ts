/**
 * Specs of the matmul kernels (shaders/matmul/): the training matmuls
 * (forward with fused bias and residual, dX, dW + bias sums, each in a scalar
 * and a vec4 version, the forward also with a 16×8 tile; every version of a
 * kernel comes from its one source through blocks, constants and types) and
 * the decode matmul with its epilogues. Shapes are row-major; w is [K, N] (the lab's
 * [in, out] layout). Launchers: ./launch.ts; CPU reference: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import forwardCode from "../../../shaders/matmul/matmul_forward.wgsl?raw";
import dxCode from "../../../shaders/matmul/matmul_backward_dx.wgsl?raw";
import dwCode from "../../../shaders/matmul/matmul_backward_dw.wgsl?raw";
import decodeCode from "../../../shaders/matmul/decode_matmul.wgsl?raw";
import tiledCode from "../../../shaders/matmul/matmul_tiled.wgsl?raw";

/** Sizes of every training matmul; flags: forward bit 0 bias, bit 1 residual; dX bit 0 accumulate; dW bit 0 bias. */
const MKN = { M: "u32", K: "u32", N: "u32", flags: "u32" } as const;
const cdiv = (a: number, b: number) => Math.ceil(a / b);

/**
 * Template parameters of the register-blocked dX and dW kernels (see their
 * shader headers): SCAL binds f32 (VW = 1 float per element), 4-row blocks;
 * VEC binds vec4f (VW = 4), 8-row blocks. The forward adds COLS and ACC.
 */
const BACK_SCAL = { blocks: ["SCAL", "NARROW"], consts: { VW: 1, ROWS: 4 } } as const;
const BACK_VEC = { blocks: ["VEC", "NARROW"], consts: { VW: 4, ROWS: 8 } } as const;
/** The wide block of dX and dW: 16 × 8 (two vec4 columns per invocation). */
const BACK_WIDE = { blocks: ["VEC", "WIDE"], consts: { VW: 4, ROWS: 16 } } as const;

/** y [M, N] = x [M, K] · w [K, N] (+ bias [N]) (+ res [M, N]); any sizes, 4×4 blocks. */
export const matmulForwardScalar = defineKernel({
  name: "matmul_forward",
  source: forwardCode,
  blocks: ["SCAL"],
  consts: { VW: 1, ROWS: 4, COLS: 4 },
  types: { ACC: "vec4f" },
  uniforms: MKN,
  bindings: {
    x: ["read", "f32"], // [M, K]
    w: ["read", "f32"], // [K, N]
    bias: ["read", "f32"], // [N]
    res: ["read", "f32"], // [M, N]
    y: ["read_write", "f32"], // [M, N]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => cdiv(u.M, 4) * cdiv(u.N, 4) },
});

/** As matmulForwardScalar for K, N % 4 = 0: vec4 loads, 8×4 blocks. */
export const matmulForwardVec4 = defineKernel({
  name: "matmul_forward_vec4",
  source: forwardCode,
  blocks: ["VEC", "V8X4"],
  consts: { VW: 4, ROWS: 8, COLS: 1 },
  types: { ACC: "vec4f" },
  uniforms: MKN,
  bindings: {
    x: ["read", "vec4f"], // [M, K/4]
    w: ["read", "vec4f"], // [K, N/4]
    bias: ["read", "vec4f"], // [N/4]
    res: ["read", "vec4f"], // [M, N/4]
    y: ["read_write", "vec4f"], // [M, N/4]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => cdiv(u.M, 8) * (u.N / 4) },
});

/** As matmulForwardVec4 for K % 4 = 0, N % 8 = 0: 16×8 tiles. */
export const matmulForward16x8 = defineKernel({
  name: "matmul_forward_vec4_16x8",
  source: forwardCode,
  blocks: ["VEC", "V16X8"],
  consts: { VW: 4, ROWS: 16, COLS: 2 },
  types: { ACC: "mat2x4f" }, // two vec4 columns per row
  uniforms: MKN,
  bindings: matmulForwardVec4.bindings,
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => cdiv(u.M, 16) * (u.N / 8) },
});

/** Workgroups of a tiled matmul: 64×64 tiles of C [R, S], plus one row of S-tiles for a bias. */
function tiledGrid(
  R: (u: { M: number; K: number; N: number }) => number,
  S: typeof R,
  bias: boolean,
) {
  return {
    kind: "fixed",
    workgroups: (u: { M: number; K: number; N: number; flags: number }, max: number) => {
      const n = (cdiv(R(u), 64) + (bias && u.flags & 1 ? 1 : 0)) * cdiv(S(u), 64);
      if (n > max)
        throw new Error(`matmul_tiled: ${n} workgroups, over one dispatch dimension (${max})`);
      return Math.max(1, n);
    },
  } as const;
}

/** As matmulForwardScalar (any sizes), tiled in workgroup memory for discrete GPUs (matmul_tiled.wgsl). */
export const matmulForwardTiled = defineKernel({
  name: "matmul_tiled.fwd",
  source: tiledCode,
  blocks: ["FWD"],
  uniforms: MKN,
  bindings: matmulForwardScalar.bindings,
  workgroupSize: 256,
  grid: tiledGrid(
    (u) => u.M,
    (u) => u.N,
    false,
  ),
});

/** dx [M, K] (=, or += with flags bit 0) dy [M, N] · wᵀ; any sizes. */
export const matmulBackwardDxScalar = defineKernel({
  name: "matmul_backward_dx",
  source: dxCode,
  ...BACK_SCAL,
  uniforms: MKN,
  bindings: {
    dy: ["read", "f32"], // [M, N]
    w: ["read", "f32"], // [K, N]
    dx: ["read_write", "f32"], // [M, K]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => cdiv(u.M, 4) * cdiv(u.K, 4) },
});

/** As matmulBackwardDxScalar for N % 4 = 0: vec4 loads of dy and w, 8×4 blocks. */
export const matmulBackwardDxVec4 = defineKernel({
  name: "matmul_backward_dx_vec4",
  source: dxCode,
  ...BACK_VEC,
  uniforms: MKN,
  bindings: {
    dy: ["read", "vec4f"], // [M, N/4]
    w: ["read", "vec4f"], // [K, N/4]
    dx: ["read_write", "f32"], // [M, K]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => cdiv(u.M, 8) * cdiv(u.K, 4) },
});

/**
 * As matmulBackwardDxVec4 with 16×8 blocks (eight dx columns per invocation,
 * two mat2x4f halves): the same bits as the 8×4 block, half the loads per
 * multiply-add.
 */
export const matmulBackwardDx16x8 = defineKernel({
  name: "matmul_backward_dx_vec4_16x8",
  source: dxCode,
  ...BACK_WIDE,
  uniforms: MKN,
  bindings: matmulBackwardDxVec4.bindings,
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => cdiv(u.M, 16) * cdiv(u.K, 8) },
});

/** As matmulBackwardDxScalar (any sizes), tiled in workgroup memory (matmul_tiled.wgsl). */
export const matmulBackwardDxTiled = defineKernel({
  name: "matmul_tiled.dx",
  source: tiledCode,
  blocks: ["DX"],
  uniforms: MKN,
  bindings: matmulBackwardDxScalar.bindings,
  workgroupSize: 256,
  grid: tiledGrid(
    (u) => u.M,
    (u) => u.K,
    false,
  ),
});

/** dw [K, N] += xᵀ · dy, and dbias [N] += Σ_m dy with flags bit 0; any sizes. */
export const matmulBackwardDwScalar = defineKernel({
  name: "matmul_backward_dw",
  source: dwCode,
  ...BACK_SCAL,
  uniforms: MKN,
  bindings: {
    x: ["read", "f32"], // [M, K]
    dy: ["read", "f32"], // [M, N]
    dw: ["read_write", "f32"], // [K, N]
    dbias: ["read_write", "f32"], // [N]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => (cdiv(u.K, 4) + (u.flags & 1)) * cdiv(u.N, 4) },
});

/** As matmulBackwardDwScalar (any sizes), tiled in workgroup memory (matmul_tiled.wgsl). */
export const matmulBackwardDwTiled = defineKernel({
  name: "matmul_tiled.dw",
  source: tiledCode,
  blocks: ["DW"],
  uniforms: MKN,
  bindings: matmulBackwardDwScalar.bindings,
  workgroupSize: 256,
  grid: tiledGrid(
    (u) => u.K,
    (u) => u.N,
    true,
  ),
});

/** As matmulBackwardDwScalar for K, N % 4 = 0: vec4 throughout, 8×4 blocks. */
export const matmulBackwardDwVec4 = defineKernel({
  name: "matmul_backward_dw_vec4",
  source: dwCode,
  ...BACK_VEC,
  uniforms: MKN,
  bindings: {
    x: ["read", "vec4f"], // [M, K/4]
    dy: ["read", "vec4f"], // [M, N/4]
    dw: ["read_write", "vec4f"], // [K, N/4]
    dbias: ["read_write", "vec4f"], // [N/4]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => (cdiv(u.K, 8) + (u.flags & 1)) * (u.N / 4) },
});

/**
 * As matmulBackwardDwVec4 for N % 8 = 0 with 16×8 blocks (two vec4 columns
 * of dw per invocation, mat2x4f accumulators): the same bits as the 8×4
 * block, half the loads per multiply-add.
 */
export const matmulBackwardDw16x8 = defineKernel({
  name: "matmul_backward_dw_vec4_16x8",
  source: dwCode,
  ...BACK_WIDE,
  uniforms: MKN,
  bindings: matmulBackwardDwVec4.bindings,
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => (cdiv(u.K, 16) + (u.flags & 1)) * (u.N / 8) },
});

/** Epilogue of the decode matmul: store, GELU then store, or add into y (residual). */
export type MatmulEpilogue = "store" | "gelu" | "add";

/** Spec of one decode matmul variant (see decodeMatmulSpec). */
function makeDecodeMatmul(variant: "VEC" | "SCAL" | "V8X8", epi: MatmulEpilogue) {
  const elem = variant === "SCAL" ? "f32" : "vec4f";
  const rowsPer = variant === "V8X8" ? 8 : 4;
  const colsPer = variant === "V8X8" ? 2 : 1;
  return defineKernel({
    name: `decode_matmul.${variant}.${epi}`,
    source: decodeCode,
    blocks: [
      variant,
      epi === "add" ? "EPI_ADD" : "EPI_STORE",
      ...(epi === "gelu" ? ["EPI_GELU"] : []),
    ],
    uniforms: {
      R: "u32", // rows
      I: "u32", // input width (multiple of 4)
      O: "u32", // output width
      wOff: "u32", // float offset of W [I, O] in w
      bOff: "u32", // float offset of b [O] in w
      hasBias: "u32", // 0: no bias (the head)
      nColTiles: "u32", // ceil(O / 4)
    },
    bindings: {
      x: ["read", "vec4f"], // [R, I/4]
      w: ["read", elem], // flat parameters
      y: ["read_write", elem], // [R, O] (VEC, V8X8: [R, O/4])
    },
    workgroupSize: 64,
    grid: { kind: "spill", threads: (u) => cdiv(u.R, rowsPer) * cdiv(u.nColTiles, colsPer) },
  });
}

type DecodeMatmulSpec = ReturnType<typeof makeDecodeMatmul>;
const decodeSpecs = new Map<string, DecodeMatmulSpec>();

/**
 * Spec of the decode matmul y [R, O] = epilogue(x [R, I] · W + b) with W [I, O]
 * and b [O] read from the flat parameter buffer `w` at float offsets wOff,
 * bOff (64-float aligned): the VEC variant (4 rows × one vec4 column per
 * invocation) when O % 4 = 0, else SCAL; with `rows8`, V8X8 (8 rows × two
 * vec4 columns: twice the multiply-adds per load, for prefills of many rows)
 * when O % 8 = 0. I % 4 = 0 in all. Every variant computes each output with
 * the same expression, so they agree bit for bit.
 */
export function decodeMatmulSpec(O: number, epi: MatmulEpilogue, rows8 = false): DecodeMatmulSpec {
  const variant = rows8 && O % 8 === 0 ? "V8X8" : O % 4 === 0 ? "VEC" : "SCAL";
  const key = `${variant}.${epi}`;
  let spec = decodeSpecs.get(key);
  if (!spec) {
    spec = makeDecodeMatmul(variant, epi);
    decodeSpecs.set(key, spec);
  }
  return spec;
}

/** Every matmul kernel variant (spec tests). */
export const MATMUL_SPECS: KernelSpec[] = [
  matmulForwardScalar,
  matmulForwardVec4,
  matmulForward16x8,
  matmulBackwardDxScalar,
  matmulBackwardDxVec4,
  matmulBackwardDwScalar,
  matmulBackwardDwVec4,
  matmulBackwardDx16x8,
  matmulBackwardDw16x8,
  matmulForwardTiled,
  matmulBackwardDxTiled,
  matmulBackwardDwTiled,
  ...(["store", "gelu", "add"] as const).flatMap((e) => [
    decodeMatmulSpec(12, e),
    decodeMatmulSpec(10, e),
    decodeMatmulSpec(16, e, true),
  ]),
];
