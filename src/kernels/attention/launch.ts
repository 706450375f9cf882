/**
 * Launchers of the attention kernels (specs in ./spec.ts, WGSL in
 * shaders/attention/). Each prepares its SpecCall(s) once at setup.
 *
 * Versions (llm.c dev/cuda style; each passes the same checker,
 * test/gpu/attention/attention.test.ts):
 *   scalar   one invocation per (b, h, t) row, any head size
 *   vec4     same, vec4 along the head channels (head size % 4 = 0)
 *   tiled    64 rows of one (sequence, head) per workgroup, the k / v (or q /
 *            dout) rows they all read staged in workgroup memory 32 at a
 *            time; head size ≤ 32; for real GPUs, not timed on one yet
 *   decode   one query per row over the KV cache, online softmax; its head
 *            size is a compile-time constant (VEC when % 4 = 0, else SCAL)
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import {
  attentionBackwardKVScalar,
  attentionBackwardKVVec4,
  attentionBackwardQRowsVec4,
  attentionBackwardQScalar,
  attentionBackwardQVec4,
  attentionForwardRowsVec4,
  attentionForwardScalar,
  attentionForwardVec4,
  attentionPrefixSpecs,
  attentionTiledSpecs,
  decodeAttentionSpec,
  TILED_MAX_HEAD,
  kvAppend,
} from "./spec";

export { PREFIX_MAX_HEAD } from "./spec";

/** Sizes shared by the training attention kernels: T = P + L positions, NH heads of C/NH channels. */
export interface AttnDims {
  B: number;
  T: number;
  C: number;
  NH: number;
  P: number;
  L: number;
  padId: number;
}

/**
 * Attention variants: "tiled" (workgroup memory; head size ≤ 32), "vec4"
 * (vec4 loads along the head channels; needs the head size C/NH to be a
 * multiple of 4) or "scalar"; "auto" picks tiled on an adapter that is not a
 * CPU fallback and allows 8 KB of workgroup memory, else vec4 when allowed.
 */
export type AttnVariant = "auto" | "tiled" | "vec4" | "scalar";

/**
 * True when the tiled kernels run: asked for, or "auto" off CPU adapters.
 * @throws Error when "tiled" is asked for and the head size is over TILED_MAX_HEAD.
 */
function tiledAttention(ctx: GpuContext, d: AttnDims, variant: AttnVariant): boolean {
  const fits = d.C / d.NH <= TILED_MAX_HEAD && Number.isInteger(d.C / d.NH);
  if (variant === "tiled" && !fits)
    throw new Error(
      `attention: the tiled variant needs the head size C/NH = ${d.C / d.NH} to be an integer ≤ ${TILED_MAX_HEAD}`,
    );
  const gpu = !ctx.adapter.isFallback && ctx.adapter.limits.maxComputeWorkgroupStorageSize >= 8192;
  return variant === "tiled" || (variant === "auto" && fits && gpu);
}

/** @throws Error when "vec4" is asked for and the head size is not a multiple of 4. */
function attnVec4(d: AttnDims, variant: AttnVariant): boolean {
  const ok = (d.C / d.NH) % 4 === 0;
  if (variant === "vec4" && !ok)
    throw new Error(
      `attention: the vec4 variant needs the head size C/NH = ${d.C / d.NH} to be a multiple of 4`,
    );
  return variant === "vec4" || (variant === "auto" && ok);
}

/**
 * Causal attention with the PAD key mask: out [B, T, C], att [B, NH, T, T]
 * from qkv [B, T, 3C] and tokens [B, L].
 * @throws Error when the variant does not fit or B·NH·T rows exceed one dispatch dimension.
 */
export function attentionForward(
  ctx: GpuContext,
  b: { qkv: Binding; tokens: Binding; att: Binding; out: Binding },
  d: AttnDims,
  variant: AttnVariant = "auto",
): SpecCall<typeof attentionForwardScalar.uniforms> {
  const { B, T, C, NH, P, L, padId } = d;
  const bindings = { qkv: b.qkv, tokens: b.tokens, att: b.att, out: b.out };
  const u = { B, T, C, NH, P, L, padId, scale: 1 / Math.sqrt(C / NH) };
  if (tiledAttention(ctx, d, variant))
    return attentionTiledSpecs(C / NH).forward.call(ctx, bindings, u);
  const spec = attnVec4(d, variant) ? attentionForwardVec4 : attentionForwardScalar;
  return spec.call(ctx, bindings, u);
}

/**
 * Attention backward, both passes: [q-pass, kv-pass] writing dqkv [B, T, 3C]
 * (dpre is scratch [B, NH, T, T]).
 * @throws Error as attentionForward.
 */
export function attentionBackward(
  ctx: GpuContext,
  b: { dout: Binding; qkv: Binding; att: Binding; dpre: Binding; dqkv: Binding },
  d: AttnDims,
  variant: AttnVariant = "auto",
): [
  SpecCall<typeof attentionBackwardQScalar.uniforms>,
  SpecCall<typeof attentionBackwardQScalar.uniforms>,
] {
  const u = { B: d.B, T: d.T, C: d.C, NH: d.NH, scale: 1 / Math.sqrt(d.C / d.NH) };
  const bindings = { dout: b.dout, qkv: b.qkv, att: b.att, dpre: b.dpre, dqkv: b.dqkv };
  if (tiledAttention(ctx, d, variant)) {
    const s = attentionTiledSpecs(d.C / d.NH);
    return [s.backQ.call(ctx, bindings, u), s.backKV.call(ctx, bindings, u)];
  }
  const v4 = attnVec4(d, variant);
  return [
    (v4 ? attentionBackwardQVec4 : attentionBackwardQScalar).call(ctx, bindings, u),
    (v4 ? attentionBackwardKVVec4 : attentionBackwardKVScalar).call(ctx, bindings, u),
  ];
}

/**
 * Attention of a compacted last layer, forward: the queries at the packed
 * rows idx [R] (i32 absolute rows b·T + i; −1: padding, output 0) only, out
 * [R, C] packed, their att rows (others not written: clear att first when a
 * later pass reads every row, as attentionBackwardRows' kv pass does). The full kernel's
 * arithmetic for every written value. R may change per step (set({ R })).
 * @throws Error when the head size C/NH is not a multiple of 4.
 */
export function attentionForwardRows(
  ctx: GpuContext,
  b: { qkv: Binding; tokens: Binding; idx: Binding; att: Binding; out: Binding },
  d: AttnDims,
  R: number,
): SpecCall<typeof attentionForwardRowsVec4.uniforms> {
  attnVec4(d, "vec4");
  const { B, T, C, NH, P, L, padId } = d;
  const u = { B, T, C, NH, P, L, padId, R, scale: 1 / Math.sqrt(C / NH) };
  const { qkv, tokens, idx, att, out } = b;
  return attentionForwardRowsVec4.call(ctx, { qkv, tokens, idx, att, out }, u);
}

/**
 * Attention backward of a compacted last layer, both passes: the gradient is
 * on the packed query rows only (doutPacked [R, C], idx [R] their absolute
 * rows, −1 padding; dout [B, T, C] the same spread with zeros elsewhere).
 * The q pass runs on the packed rows, the kv pass is the full one. The
 * caller must clear dpre and dqkv first, and att before attentionForwardRows
 * (the kv pass reads every row of both): then dqkv [B, T, 3C] is what
 * attentionBackward computes from dout (the rows skipped give exactly 0).
 * R may change per step (set({ R }) on the q pass).
 * @throws Error when the head size C/NH is not a multiple of 4.
 */
export function attentionBackwardRows(
  ctx: GpuContext,
  b: {
    doutPacked: Binding;
    dout: Binding;
    qkv: Binding;
    att: Binding;
    dpre: Binding;
    dqkv: Binding;
    idx: Binding;
  },
  d: AttnDims,
  R: number,
): [
  SpecCall<typeof attentionBackwardQRowsVec4.uniforms>,
  SpecCall<typeof attentionBackwardKVVec4.uniforms>,
] {
  attnVec4(d, "vec4");
  const u = { B: d.B, T: d.T, C: d.C, NH: d.NH, scale: 1 / Math.sqrt(d.C / d.NH) };
  const { dout, qkv, att, dpre, dqkv, idx } = b;
  return [
    attentionBackwardQRowsVec4.call(
      ctx,
      { dout: b.doutPacked, qkv, att, idx, dpre, dqkv },
      { ...u, R },
    ),
    attentionBackwardKVVec4.call(ctx, { dout, qkv, att, dpre, dqkv }, u),
  ];
}

/**
 * Sizes of the training attention on the prefix layout of a shared-prefix
 * step (src/layout/prefix-layout.ts): B = nG·G sequences of T = P + L
 * positions, the first S of them shared within each group (S = 0: none).
 */
export interface PrefixAttnDims {
  nG: number;
  G: number;
  S: number;
  /** Positions per sequence, T = P + L. */
  T: number;
  C: number;
  NH: number;
  P: number;
  L: number;
  padId: number;
}

/** Uniform values shared by the three prefix-layout passes. */
function prefixUniforms(d: PrefixAttnDims) {
  const { nG, G, S, T, C, NH } = d;
  if (!(Number.isInteger(S) && S >= 0 && S < T))
    throw new Error(`attention_prefix: S = ${S} must be an integer in [0, T = ${T})`);
  return { nG, G, S, Rs: T - S, T, C, NH, scale: 1 / Math.sqrt(C / NH) };
}

type PrefixSpecs = ReturnType<typeof attentionPrefixSpecs>;

/**
 * How the prefix-layout passes run (the same bits every way; see
 * shaders/attention/attention_prefix.wgsl): "row" one invocation per row,
 * "quad" per quad of 4 rows, "auto" (the default) starts on "row" and moves to
 * "quad" once its pipeline is built in the background (CallOptions.upgrade;
 * lab choice: the quads build 3–4× slower on SwiftShader and the first RL
 * step does not wait for them).
 */
export type PrefixWay = "row" | "quad" | "auto";

/** The spec a pass starts on and the one it moves to. */
function prefixPass<K extends keyof PrefixSpecs>(hd: number, way: PrefixWay, pass: K) {
  const start = attentionPrefixSpecs(hd, way === "quad" ? "quad" : "row")[pass];
  const upgrade = way === "auto" ? attentionPrefixSpecs(hd, "quad")[pass] : undefined;
  return { start, opts: upgrade ? { upgrade } : {} };
}

/**
 * Causal attention with the PAD key mask on the prefix layout: out [rows,
 * C], att [rows, NH, T] from qkv [rows, 3C] and tokens [B, L]. S may change
 * per step: set({ S, Rs: T − S }).
 * @param way per row, per quad of rows, or "auto" (rows, then quads once built; PrefixWay): the same bits.
 * @throws Error when the head size C/NH is not a multiple of 4 up to 32 or S is not in [0, T).
 */
export function attentionPrefixForwardCall(
  ctx: GpuContext,
  b: { qkv: Binding; tokens: Binding; att: Binding; out: Binding },
  d: PrefixAttnDims,
  way: PrefixWay = "auto",
): SpecCall<PrefixSpecs["forward"]["uniforms"]> {
  const { start, opts } = prefixPass(d.C / d.NH, way, "forward");
  const u = { ...prefixUniforms(d), P: d.P, L: d.L, padId: d.padId };
  return start.call(ctx, { qkv: b.qkv, tokens: b.tokens, att: b.att, out: b.out }, u, opts);
}

/**
 * Attention backward on the prefix layout, both passes: [q-pass, kv-pass]
 * writing dqkv [rows, 3C] (every value: no clearing needed; dpre is scratch
 * [rows, NH, T]). The kv pass sums a prefix key's gradient over its group's
 * prefix queries and its G sequences' suffix queries (its uniform sumG = G;
 * tests lower it to break the sum). S may change per step, as the forward.
 * @param way as attentionPrefixForwardCall's.
 * @throws Error as attentionPrefixForwardCall.
 */
export function attentionPrefixBackward(
  ctx: GpuContext,
  b: { dout: Binding; qkv: Binding; att: Binding; dpre: Binding; dqkv: Binding },
  d: PrefixAttnDims,
  way: PrefixWay = "auto",
): [SpecCall<PrefixSpecs["backQ"]["uniforms"]>, SpecCall<PrefixSpecs["backKV"]["uniforms"]>] {
  const hd = d.C / d.NH;
  const q = prefixPass(hd, way, "backQ");
  const kv = prefixPass(hd, way, "backKV");
  const u = prefixUniforms(d);
  const bindings = { dout: b.dout, qkv: b.qkv, att: b.att, dpre: b.dpre, dqkv: b.dqkv };
  return [
    q.start.call(ctx, bindings, u, q.opts),
    kv.start.call(ctx, bindings, { ...u, sumG: d.G }, kv.opts),
  ];
}

/** Where the rows of a decode dispatch sit: rowsPerSeq rows per sequence from posBase (+ state[0] when useState). */
export interface DecodeRows {
  /** Rows (R). */
  R: number;
  rowsPerSeq: number;
  posBase: number;
  /** 1: add the step counter state[0] (a decode step); 0: a prefill. */
  useState: number;
}

/** KV-cache geometry: cache [layers, N, H, S, hd]; layerOff is the float offset of one layer's slab. */
export interface CacheDims {
  D: number;
  H: number;
  S: number;
  layerOff: number;
}

/**
 * Appends the keys and values of qkv [R, 3D] to one layer's slab of kc, vc,
 * `copies` times (the G sequences of a shared prompt; 1 otherwise).
 */
export function kvAppendCall(
  ctx: GpuContext,
  b: { qkv: Binding; state: Binding; kc: Binding; vc: Binding },
  rows: DecodeRows,
  cache: CacheDims,
  copies: number,
): SpecCall<typeof kvAppend.uniforms> {
  const bindings = { qkv: b.qkv, state: b.state, kc: b.kc, vc: b.vc };
  const { R, rowsPerSeq, posBase, useState } = rows;
  const { D, H, S, layerOff } = cache;
  return kvAppend.call(ctx, bindings, {
    R,
    rowsPerSeq,
    posBase,
    useState,
    D,
    H,
    S,
    layerOff,
    hd: D / H,
    copies,
  });
}

/**
 * Attention of the R query rows in qkv [R, 3D] over the KV cache, PAD text
 * keys masked (text [N, textCap], P patch positions); row r reads sequence
 * (r / rowsPerSeq)·seqMul. Writes out [R, D].
 * @param forceScalar use the SCAL variant even when hd % 4 = 0 (tests).
 */
export function decodeAttention(
  ctx: GpuContext,
  b: { qkv: Binding; kc: Binding; vc: Binding; text: Binding; state: Binding; out: Binding },
  rows: DecodeRows,
  cache: CacheDims,
  seq: { P: number; textCap: number; seqMul: number },
  forceScalar = false,
): SpecCall<ReturnType<typeof decodeAttentionSpec>["uniforms"]> {
  const { R, rowsPerSeq, posBase, useState } = rows;
  const { D, H, S, layerOff } = cache;
  const { qkv, kc, vc, text, state, out } = b;
  const hd = D / H;
  return decodeAttentionSpec(hd, forceScalar).call(
    ctx,
    { qkv, kc, vc, text, state, out },
    {
      R,
      rowsPerSeq,
      posBase,
      useState,
      D,
      H,
      S,
      layerOff,
      P: seq.P,
      textCap: seq.textCap,
      seqMul: seq.seqMul,
      scale: 1 / Math.sqrt(hd),
    },
  );
}
