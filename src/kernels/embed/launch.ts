/**
 * Launchers of the embedding kernels (specs in ./spec.ts, WGSL in
 * shaders/embed/); each prepares one SpecCall at setup. Checker:
 * test/gpu/embed/embed.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import {
  decodeEmbedSpec,
  embedBackwardSpec,
  embedForwardSpec,
  embedPrefixBackwardSpec,
  embedPrefixForwardSpec,
  patchifySpec,
} from "./spec";
import { rowSeq, type PrefixLayout } from "../../layout/prefix-layout";

/** Image geometry for patchify: B images of H×W×Ch pixels in patchSize² patches. */
export interface PatchDims {
  B: number;
  H: number;
  W: number;
  Ch: number;
  patchSize: number;
}

/** patches [B·P, p·p·Ch] from images [B, H·W·Ch] (P = (H/p)·(W/p)). */
export function patchify(
  ctx: GpuContext,
  b: { images: Binding; patches: Binding },
  d: PatchDims,
): SpecCall<typeof patchifySpec.uniforms> {
  const { B, H, W, Ch } = d;
  return patchifySpec.call(
    ctx,
    { images: b.images, patches: b.patches },
    { B, H, W, Ch, ps: d.patchSize },
  );
}

/**
 * out [B, T, C] = patch/token embeddings + positions, T = P + L, from
 * patchEmb [B·P, C], tokens [B, L], wte [V, C], wpe [≥T + posOff, C]. Text
 * column s takes position P + posOff + s (posOff > 0: a window of a longer
 * text whose first posOff columns were PAD; change it with `call.set({ posOff })`).
 */
export function embedForward(
  ctx: GpuContext,
  b: { patchEmb: Binding; tokens: Binding; wte: Binding; wpe: Binding; out: Binding },
  B: number,
  P: number,
  L: number,
  C: number,
  posOff = 0,
): SpecCall<typeof embedForwardSpec.uniforms> {
  const { patchEmb, tokens, wte, wpe, out } = b;
  return embedForwardSpec.call(ctx, { patchEmb, tokens, wte, wpe, out }, { B, P, L, C, posOff });
}

/**
 * The text positions of each token id, for embed_backward: a stable counting
 * sort of tokens [B, L] (linear in B·L + V). order [B·L] lists the positions
 * b·L + s by id, ascending within an id; id v's are order[start[v] ..
 * start[v + 1]) (start [V + 1]).
 * @throws Error naming the position of an id outside [0, V).
 */
export function tokenOrder(
  tokens: Int32Array,
  V: number,
): { order: Int32Array; start: Int32Array } {
  const start = new Int32Array(V + 1);
  for (let i = 0; i < tokens.length; i++) {
    const id = tokens[i];
    if (!(id >= 0 && id < V))
      throw new Error(`tokenOrder: token ${id} at ${i} is outside [0, ${V})`);
    start[id + 1]++;
  }
  for (let v = 0; v < V; v++) start[v + 1] += start[v];
  const next = start.slice(0, V);
  const order = new Int32Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) order[next[tokens[i]]++] = i;
  return { order, start };
}

/**
 * dwte [V, C], dwpe [≥T + posOff, C] += and dpatchEmb [B·P, C] = from dout
 * [B, T, C]; posOff as embedForward (text row P + s adds to wpe row P + posOff + s).
 * `order` and `start` are tokenOrder(tokens [B, L], V), the lookup of dwte.
 * @throws Error when C is not a multiple of 4 (the kernel reads vec4).
 */
export function embedBackward(
  ctx: GpuContext,
  b: {
    dout: Binding;
    order: Binding;
    start: Binding;
    dwte: Binding;
    dwpe: Binding;
    dpatchEmb: Binding;
  },
  B: number,
  P: number,
  L: number,
  C: number,
  V: number,
  posOff = 0,
): SpecCall<typeof embedBackwardSpec.uniforms> {
  if (C % 4 !== 0) throw new Error(`embed_backward: C = ${C} must be a multiple of 4`);
  const { dout, order, start, dwte, dwpe, dpatchEmb } = b;
  const u = { B, P, L, C, V, posOff };
  return embedBackwardSpec.call(ctx, { dout, order, start, dwte, dwpe, dpatchEmb }, u);
}

/** Uniform values of decode_embed (see its spec for the fields). */
export type DecodeEmbedUniforms = Parameters<typeof decodeEmbedSpec.pack>[0];

/**
 * Decode embedding: x [R, D] for R (sequence, position) rows; image, text
 * and parameters as the spec's bindings.
 */
export function decodeEmbed(
  ctx: GpuContext,
  b: { image: Binding; text: Binding; state: Binding; w: Binding; x: Binding },
  u: DecodeEmbedUniforms,
): SpecCall<typeof decodeEmbedSpec.uniforms> {
  const { image, text, state, w, x } = b;
  return decodeEmbedSpec.call(ctx, { image, text, state, w, x }, u);
}

/** Sizes of the embedding on a prefix layout: its groups and shared positions, P, L, C and the window offset. */
export interface PrefixEmbedDims {
  nG: number;
  G: number;
  /** Shared positions (0, or ≥ P: the patches are shared with the prompt). */
  S: number;
  /** Positions per sequence T = P + L. */
  T: number;
  P: number;
  L: number;
  C: number;
  posOff: number;
}

/** The uniform values of a prefix-layout embedding call. @throws Error when 0 < S < P or C % 4 ≠ 0. */
function prefixEmbedUniforms(d: PrefixEmbedDims) {
  if (d.C % 4 !== 0) throw new Error(`embed_prefix: C = ${d.C} must be a multiple of 4`);
  if (!(Number.isInteger(d.S) && (d.S === 0 || (d.S >= d.P && d.S < d.T))))
    throw new Error(`embed_prefix: S = ${d.S} must be 0 or in [P = ${d.P}, T = ${d.T})`);
  const { nG, G, S, P, L, C, posOff } = d;
  return { nG, G, S, Rs: d.T - S, P, L, C, posOff };
}

/**
 * out [rows, C] on the prefix layout (src/layout/prefix-layout.ts) from
 * patchEmb [nImg·P, C] (one image per group when S > 0), tokens [B, L], wte,
 * wpe. S and posOff may change per step (set({ S, Rs, posOff })).
 * @throws Error when 0 < S < P or C % 4 ≠ 0.
 */
export function embedPrefixForward(
  ctx: GpuContext,
  b: { patchEmb: Binding; tokens: Binding; wte: Binding; wpe: Binding; out: Binding },
  d: PrefixEmbedDims,
): SpecCall<typeof embedPrefixForwardSpec.uniforms> {
  const { patchEmb, tokens, wte, wpe, out } = b;
  return embedPrefixForwardSpec.call(
    ctx,
    { patchEmb, tokens, wte, wpe, out },
    prefixEmbedUniforms(d),
  );
}

/**
 * dwte, dwpe += and dpatchEmb = from dout [rows, C] on the prefix layout;
 * `order` and `start` are prefixTokenOrder of the batch. Settable as the forward.
 * @throws Error as embedPrefixForward.
 */
export function embedPrefixBackward(
  ctx: GpuContext,
  b: {
    dout: Binding;
    order: Binding;
    start: Binding;
    dwte: Binding;
    dwpe: Binding;
    dpatchEmb: Binding;
  },
  d: PrefixEmbedDims,
  V: number,
): SpecCall<typeof embedPrefixBackwardSpec.uniforms> {
  const { dout, order, start, dwte, dwpe, dpatchEmb } = b;
  return embedPrefixBackwardSpec.call(
    ctx,
    { dout, order, start, dwte, dwpe, dpatchEmb },
    { ...prefixEmbedUniforms(d), V },
  );
}

/**
 * The text rows of a prefix layout by token id, for embed_prefix's backward:
 * a stable counting sort (linear in rows + V) of the rows holding a text
 * position (t ≥ P) by their token tokens[b, t − P]. order lists row indices,
 * ascending within an id; id v's are order[start[v] .. start[v + 1]).
 * @throws Error naming the row of an id outside [0, V).
 */
export function prefixTokenOrder(
  tokens: Int32Array,
  l: PrefixLayout,
  P: number,
  L: number,
  V: number,
): { order: Int32Array; start: Int32Array } {
  const ids = new Int32Array(l.rows).fill(-1);
  const start = new Int32Array(V + 1);
  let n = 0;
  for (let r = 0; r < l.rows; r++) {
    const { b, t } = rowSeq(l, r);
    if (t < P) continue;
    const id = tokens[b * L + t - P];
    if (!(id >= 0 && id < V))
      throw new Error(`prefixTokenOrder: token ${id} of row ${r} is outside [0, ${V})`);
    ids[r] = id;
    start[id + 1]++;
    n++;
  }
  for (let v = 0; v < V; v++) start[v + 1] += start[v];
  const next = start.slice(0, V);
  const order = new Int32Array(n);
  for (let r = 0; r < l.rows; r++) if (ids[r] >= 0) order[next[ids[r]]++] = r;
  return { order, start };
}
