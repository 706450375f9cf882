/**
 * Specs of the attention kernels (shaders/attention/): the training
 * attention (causal, PAD key mask, probabilities stored for the backward;
 * forward and the two backward passes, each scalar and vec4 along the head
 * channels, generated from one source per kernel by `variant`) and the
 * decode path's KV cache (kv_append) and cached attention
 * (decode_attention, online softmax). Launchers: ./launch.ts; CPU reference:
 * ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import forwardCode from "../../../shaders/attention/attention_forward.wgsl?raw";
import backQCode from "../../../shaders/attention/attention_backward_q.wgsl?raw";
import backKVCode from "../../../shaders/attention/attention_backward_kv.wgsl?raw";
import kvAppendCode from "../../../shaders/attention/kv_append.wgsl?raw";
import tiledCode from "../../../shaders/attention/attention_tiled.wgsl?raw";
import decodeCode from "../../../shaders/attention/decode_attention.wgsl?raw";
import prefixCode from "../../../shaders/attention/attention_prefix.wgsl?raw";

/** Sizes of the training attention backward; scale = 1/sqrt(C/NH). */
const BACKWARD = { B: "u32", T: "u32", C: "u32", NH: "u32", scale: "f32" } as const;
/** The forward also masks PAD text keys: P patch positions, L text positions, the PAD id. */
const FORWARD = { ...BACKWARD, P: "u32", L: "u32", padId: "i32" } as const;
/** One invocation per (b, h, t) row of [B, NH, T], x only. */
const rows = {
  kind: "x",
  threads: (u: { B: number; NH: number; T: number }) => u.B * u.NH * u.T,
} as const;

/**
 * Template parameters of a training attention kernel (see the shader
 * headers): the element type E of its head-channel bindings, VW floats per
 * element, and its blocks (FULL: every query row; ROWS: the packed rows).
 */
function variant(vec: boolean, rows = false) {
  return {
    consts: { VW: vec ? 4 : 1 },
    types: { E: vec ? "vec4f" : "f32" },
    blocks: [vec ? "VEC" : "SCAL", rows ? "ROWS" : "FULL"],
  };
}

/** Bindings of the forward, scalar (elem "f32") or vec4 along the head channels. */
function forwardBindings<E extends string>(elem: E) {
  return {
    qkv: ["read", elem], // [B, T, 3C]
    tokens: ["read", "i32"], // [B, L]
    att: ["read_write", "f32"], // [B, NH, T, T]
    out: ["read_write", elem], // [B, T, C]
  } as const;
}

/** out [B, T, C], att [B, NH, T, T] from qkv [B, T, 3C] and tokens [B, L] (PAD keys masked). */
export const attentionForwardScalar = defineKernel({
  name: "attention_forward",
  source: forwardCode,
  ...variant(false),
  uniforms: FORWARD,
  bindings: forwardBindings("f32"),
  workgroupSize: 64,
  grid: rows,
});

/** As attentionForwardScalar for head sizes C/NH % 4 = 0 (vec4 along the head channels). */
export const attentionForwardVec4 = defineKernel({
  name: "attention_forward_vec4",
  source: forwardCode,
  ...variant(true),
  uniforms: FORWARD,
  bindings: forwardBindings("vec4f"),
  workgroupSize: 64,
  grid: rows,
});

/** Bindings of both backward passes, scalar (elem "f32") or vec4 along the head channels. */
function backwardBindings<E extends string>(elem: E, dpre: "read" | "read_write") {
  return {
    dout: ["read", elem], // [B, T, C]
    qkv: ["read", elem], // [B, T, 3C]
    att: ["read", "f32"], // [B, NH, T, T]
    dpre: [dpre, "f32"], // [B, NH, T, T] scratch: written by the q pass, read by the kv pass
    dqkv: ["read_write", elem], // [B, T, 3C]
  } as const;
}

/** Backward pass 1: dpre and the q part of dqkv, one invocation per query row. */
export const attentionBackwardQScalar = defineKernel({
  name: "attention_backward_q",
  source: backQCode,
  ...variant(false),
  uniforms: BACKWARD,
  bindings: backwardBindings("f32", "read_write"),
  workgroupSize: 64,
  grid: rows,
});

/** As attentionBackwardQScalar, vec4 along the head channels. */
export const attentionBackwardQVec4 = defineKernel({
  name: "attention_backward_q_vec4",
  source: backQCode,
  ...variant(true),
  uniforms: BACKWARD,
  bindings: backwardBindings("vec4f", "read_write"),
  workgroupSize: 64,
  grid: rows,
});

/** Backward pass 2: the k and v parts of dqkv, one invocation per key row. */
export const attentionBackwardKVScalar = defineKernel({
  name: "attention_backward_kv",
  source: backKVCode,
  ...variant(false),
  uniforms: BACKWARD,
  bindings: backwardBindings("f32", "read"),
  workgroupSize: 64,
  grid: rows,
});

/** As attentionBackwardKVScalar, vec4 along the head channels. */
export const attentionBackwardKVVec4 = defineKernel({
  name: "attention_backward_kv_vec4",
  source: backKVCode,
  ...variant(true),
  uniforms: BACKWARD,
  bindings: backwardBindings("vec4f", "read"),
  workgroupSize: 64,
  grid: rows,
});

/** Workgroups of the tiled attention: one per 64 rows of each (sequence, head). */
const tiledGrid = {
  kind: "fixed",
  workgroups: (u: { B: number; NH: number; T: number }, max: number) => {
    const n = u.B * u.NH * Math.ceil(u.T / 64);
    if (n > max)
      throw new Error(`attention_tiled: ${n} workgroups, over one dispatch dimension (${max})`);
    return Math.max(1, n);
  },
} as const;

/** The tiled variant's three kernels for head size hd (a compile-time array size). */
function makeTiled(hd: number) {
  const consts = { HD: hd };
  return {
    forward: defineKernel({
      name: `attention_tiled.fwd.hd${hd}`,
      source: tiledCode,
      blocks: ["FWD"],
      consts,
      uniforms: FORWARD,
      bindings: attentionForwardScalar.bindings,
      workgroupSize: 64,
      grid: tiledGrid,
    }),
    backQ: defineKernel({
      name: `attention_tiled.bq.hd${hd}`,
      source: tiledCode,
      blocks: ["BQ"],
      consts,
      uniforms: BACKWARD,
      bindings: backwardBindings("f32", "read_write"),
      workgroupSize: 64,
      grid: tiledGrid,
    }),
    backKV: defineKernel({
      name: `attention_tiled.bkv.hd${hd}`,
      source: tiledCode,
      blocks: ["BKV"],
      consts,
      uniforms: BACKWARD,
      bindings: backwardBindings("f32", "read"),
      workgroupSize: 64,
      grid: tiledGrid,
    }),
  };
}

type TiledSpecs = ReturnType<typeof makeTiled>;
const tiledSpecs = new Map<number, TiledSpecs>();

/** Largest head size of the tiled attention: two 32-row tiles of it fit in 8 KB of workgroup memory. */
export const TILED_MAX_HEAD = 32;

/**
 * The tiled training attention (forward, backward q and kv passes) for head
 * size `hd` (an integer in [1, TILED_MAX_HEAD]).
 * @throws Error for any other head size.
 */
export function attentionTiledSpecs(hd: number): TiledSpecs {
  if (!(Number.isInteger(hd) && hd >= 1 && hd <= TILED_MAX_HEAD))
    throw new Error(
      `attention: the tiled variant needs a head size in 1..${TILED_MAX_HEAD}, got ${hd}`,
    );
  let s = tiledSpecs.get(hd);
  if (!s) {
    s = makeTiled(hd);
    tiledSpecs.set(hd, s);
  }
  return s;
}

/**
 * Row → (sequence, position) of the decode kernels: rowsPerSeq rows per
 * sequence from position posBase, plus, when useState = 1, the step counter
 * state[0] and the sequence's prefilled tokens state[4 + n] (decode_pos in
 * shaders/prelude.wgsl).
 */
const DECODE_ROWS = { rowsPerSeq: "u32", posBase: "u32", useState: "u32" } as const;

/** Appends the k, v of R rows of qkv [R, 3D] to one layer's slab of kc, vc [layers, N, H, S, hd]. */
export const kvAppend = defineKernel({
  name: "kv_append",
  source: kvAppendCode,
  uniforms: {
    R: "u32",
    D: "u32",
    H: "u32",
    hd: "u32", // D / H
    S: "u32", // cache positions per sequence
    ...DECODE_ROWS,
    layerOff: "u32", // float offset of this layer's slab in kc / vc
    copies: "u32", // sequences per row (G in a shared-prompt prefill, else 1)
  },
  bindings: {
    qkv: ["read", "f32"], // [R, 3D]
    state: ["read", "u32"], // [step, pad, 0, 0, prefilled tokens per sequence [N]]
    kc: ["read_write", "f32"], // [layers, N, H, S, hd]
    vc: ["read_write", "f32"], // [layers, N, H, S, hd]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.R * u.D },
});

/** Spec of one decode attention variant (see decodeAttentionSpec). */
function makeDecodeAttention(hd: number, variant: "REG" | "VEC" | "SCAL") {
  const elem = variant === "SCAL" ? "f32" : "vec4f";
  return defineKernel({
    name: `decode_attention.${variant}.hd${hd}`,
    source: decodeCode,
    blocks: [variant],
    consts: { HD: hd },
    uniforms: {
      R: "u32",
      D: "u32",
      H: "u32",
      S: "u32",
      ...DECODE_ROWS,
      layerOff: "u32",
      P: "u32",
      textCap: "u32",
      scale: "f32", // 1 / sqrt(hd)
      seqMul: "u32",
    },
    bindings: {
      qkv: ["read", elem], // [R, 3D]
      kc: ["read", elem], // [layers, N, H, S, HD]
      vc: ["read", elem], // [layers, N, H, S, HD]
      text: ["read", "i32"], // [N, textCap]
      state: ["read", "u32"], // [step, pad, 0, 0, prefilled tokens per sequence [N]]
      out: ["read_write", "f32"], // [R, D]
    },
    workgroupSize: 64,
    grid: { kind: "spill", threads: (u) => u.R * u.H },
  });
}

type DecodeAttentionSpec = ReturnType<typeof makeDecodeAttention>;
const decodeSpecs = new Map<string, DecodeAttentionSpec>();

/** Largest head size of the decode attention's register variant (8 vec4 registers). */
const DECODE_REG_MAX_HEAD = 32;

/**
 * Spec of the cached decode attention for head size `hd` (a compile-time
 * constant): REG when hd % 4 = 0 and hd ≤ 32, VEC when hd % 4 = 0 beyond,
 * SCAL otherwise or when `forceScalar`.
 */
export function decodeAttentionSpec(hd: number, forceScalar = false): DecodeAttentionSpec {
  const variant = hd % 4 !== 0 || forceScalar ? "SCAL" : hd <= DECODE_REG_MAX_HEAD ? "REG" : "VEC";
  const key = `${variant}.${hd}`;
  let spec = decodeSpecs.get(key);
  if (!spec) {
    spec = makeDecodeAttention(hd, variant);
    decodeSpecs.set(key, spec);
  }
  return spec;
}

/** Every attention kernel variant (spec tests). */
/**
 * The forward on packed query rows (a compacted last layer): out [R, C] for
 * the queries at rows idx [R] of [B, T] (−1: 0), their att rows; vec4 head channels.
 */
export const attentionForwardRowsVec4 = defineKernel({
  name: "attention_forward_rows_vec4",
  source: forwardCode,
  ...variant(true, true),
  uniforms: { ...FORWARD, R: "u32" },
  bindings: {
    qkv: ["read", "vec4f"], // [B, T, 3C/4]
    tokens: ["read", "i32"], // [B, L]
    idx: ["read", "i32"], // [R] absolute query rows b·T + i, −1 padding
    att: ["read_write", "f32"], // [B, NH, T, T] (the packed rows' rows only)
    out: ["read_write", "vec4f"], // [R, C/4]
  },
  workgroupSize: 64,
  grid: { kind: "x", threads: (u) => u.R * u.NH },
});

/**
 * Backward q pass with the gradient on packed query rows only: dout [R, C]
 * packed, idx [R] their absolute rows (−1 padding); writes those rows' dpre
 * and dq only.
 */
export const attentionBackwardQRowsVec4 = defineKernel({
  name: "attention_backward_q_rows_vec4",
  source: backQCode,
  ...variant(true, true),
  uniforms: { ...BACKWARD, R: "u32" },
  bindings: {
    dout: ["read", "vec4f"], // [R, C/4] packed
    qkv: ["read", "vec4f"], // [B, T, 3C/4]
    att: ["read", "f32"], // [B, NH, T, T]
    idx: ["read", "i32"], // [R] absolute query rows, −1 padding
    dpre: ["read_write", "f32"], // [B, NH, T, T] scratch (the packed rows' rows)
    dqkv: ["read_write", "vec4f"], // [B, T, 3C/4] (q part of the packed rows)
  },
  workgroupSize: 64,
  grid: { kind: "x", threads: (u) => u.R * u.NH },
});

/**
 * Sizes of the shared-prefix attention (src/layout/prefix-layout.ts): nG
 * groups of G sequences, S shared positions, Rs own positions per sequence,
 * T = S + Rs; C channels in NH heads (C/NH % 4 = 0); scale = 1/sqrt(C/NH).
 */
const PREFIX = {
  nG: "u32",
  G: "u32",
  S: "u32",
  Rs: "u32",
  T: "u32",
  C: "u32",
  NH: "u32",
  scale: "f32",
} as const;
/** ROW: one invocation per (row, head) of the prefix layout's nG·S + nG·G·Rs rows. */
const prefixRows = {
  kind: "x",
  threads: (u: { nG: number; G: number; S: number; Rs: number; NH: number }) =>
    (u.nG * u.S + u.nG * u.G * u.Rs) * u.NH,
} as const;

/**
 * QUAD: one invocation per (quad, head), a quad being up to 4 consecutive
 * rows of one segment (a group's S prefix rows, a sequence's Rs suffix
 * rows), so nG·⌈S/4⌉ + nG·G·⌈Rs/4⌉ quads.
 */
const prefixQuads = {
  kind: "x",
  threads: (u: { nG: number; G: number; S: number; Rs: number; NH: number }) =>
    (u.nG * Math.ceil(u.S / 4) + u.nG * u.G * Math.ceil(u.Rs / 4)) * u.NH,
} as const;

/** Bindings of the prefix layout's backward passes (vec4 along the head channels). */
function prefixBackwardBindings(dpre: "read" | "read_write") {
  return {
    dout: ["read", "vec4f"], // [rows, C/4]
    qkv: ["read", "vec4f"], // [rows, 3C/4]
    att: ["read", "f32"], // [rows, NH, T]
    dpre: [dpre, "f32"], // [rows, NH, T] scratch: written by the q pass, read by the kv pass
    dqkv: ["read_write", "vec4f"], // [rows, 3C/4]
  } as const;
}

/**
 * The three prefix-layout passes for head size hd (a compile-time constant),
 * one invocation per row ("row") or per quad of rows ("quad"): the same bits
 * (see the shader's header).
 */
function makePrefix(hd: number, way: "row" | "quad") {
  const consts = { HD: hd };
  const block = way === "row" ? "ROW" : "QUAD";
  const suffix = way === "row" ? "" : ".quad";
  const grid = way === "row" ? prefixRows : prefixQuads;
  return {
    /** Forward: out [rows, C], att [rows, NH, T] from qkv [rows, 3C] and tokens [B, L]. */
    forward: defineKernel({
      name: `attention_prefix.fwd${suffix}.hd${hd}`,
      source: prefixCode,
      blocks: [block, "FWD"],
      consts,
      uniforms: { ...PREFIX, P: "u32", L: "u32", padId: "i32" },
      bindings: {
        qkv: ["read", "vec4f"], // [rows, 3C/4]
        tokens: ["read", "i32"], // [B, L]
        att: ["read_write", "f32"], // [rows, NH, T]
        out: ["read_write", "vec4f"], // [rows, C/4]
      },
      workgroupSize: 64,
      grid,
    }),
    /** Backward pass 1: dpre and the q part of dqkv. */
    backQ: defineKernel({
      name: `attention_prefix.bq${suffix}.hd${hd}`,
      source: prefixCode,
      blocks: [block, "BQ", "BACK"],
      consts,
      uniforms: PREFIX,
      bindings: prefixBackwardBindings("read_write"),
      workgroupSize: 64,
      grid,
    }),
    /** Backward pass 2: the k and v parts of dqkv, a prefix key summed over its group's queries (sumG sequences). */
    backKV: defineKernel({
      name: `attention_prefix.bkv${suffix}.hd${hd}`,
      source: prefixCode,
      blocks: [block, "BKV", "BACK"],
      consts,
      uniforms: { ...PREFIX, sumG: "u32" },
      bindings: prefixBackwardBindings("read"),
      workgroupSize: 64,
      grid,
    }),
  };
}

type PrefixSpecs = ReturnType<typeof makePrefix>;
const prefixSpecs = new Map<string, PrefixSpecs>();

/** Largest head size of the prefix-layout attention (8 vec4 registers per vector). */
export const PREFIX_MAX_HEAD = 32;

/**
 * The prefix-layout attention (forward, backward q and kv passes) for head
 * size `hd`: a multiple of 4 up to PREFIX_MAX_HEAD; one invocation per row
 * (`way` "row", the default) or per quad of 4 rows ("quad"), the same bits.
 * @throws Error for any other head size.
 */
export function attentionPrefixSpecs(hd: number, way: "row" | "quad" = "row"): PrefixSpecs {
  if (!(Number.isInteger(hd) && hd % 4 === 0 && hd >= 4 && hd <= PREFIX_MAX_HEAD))
    throw new Error(
      `attention_prefix: the head size C/NH = ${hd} must be a multiple of 4 up to ${PREFIX_MAX_HEAD}`,
    );
  const key = `${hd}.${way}`;
  let s = prefixSpecs.get(key);
  if (!s) {
    s = makePrefix(hd, way);
    prefixSpecs.set(key, s);
  }
  return s;
}

export const ATTENTION_SPECS: KernelSpec[] = [
  attentionForwardScalar,
  attentionForwardVec4,
  attentionBackwardQScalar,
  attentionBackwardQVec4,
  attentionBackwardKVScalar,
  attentionBackwardKVVec4,
  attentionForwardRowsVec4,
  attentionBackwardQRowsVec4,
  ...Object.values(attentionPrefixSpecs(16)),
  ...Object.values(attentionPrefixSpecs(8)),
  ...Object.values(attentionPrefixSpecs(16, "quad")),
  ...Object.values(attentionPrefixSpecs(32, "quad")),
  ...Object.values(attentionTiledSpecs(16)),
  ...Object.values(attentionTiledSpecs(6)),
  kvAppend,
  decodeAttentionSpec(8),
  decodeAttentionSpec(32),
  decodeAttentionSpec(48),
  decodeAttentionSpec(6),
];
