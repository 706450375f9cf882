/**
 * TrainGraph's forward (./graph.ts) as prepared dispatches for one parameter
 * buffer: patches → patch embedding → token and position embeddings → the
 * blocks (pre-norm attention and MLP, residuals fused into the matmuls) →
 * lnf → head → logits [B, T, V] (llm.c gpt2_forward).
 *
 * Variants, chosen at construction (TrainGraphOptions):
 *   compacted last layer  the last block from its attention on (or after it),
 *                         lnf and head run on the packed loss rows only; the
 *                         logits are spread back to [B, T, V] (zeros elsewhere);
 *   shared prefix         every row-wise call runs on the prefix layout's rows
 *                         (src/layout/prefix-layout.ts), the embedding and the
 *                         attention are the prefix-layout kernels, the patches
 *                         are those of one image per group.
 */
import type { KernelCall } from "../gpu/context";
import { patchDim } from "./config";
import * as K from "../kernels";
import type { GraphParts } from "./graph-buffers";

/** The last residual stream [BT, C] (input of lnf). */
export function finalResidual(g: GraphParts): GPUBuffer {
  const { layers } = g.bufs;
  return layers.length ? layers[layers.length - 1].res3 : g.bufs.encoded;
}

/** Sizes of the prefix-layout kernels at S = 0; setBatch sets S per batch (onLayout). */
export function prefixDims(g: GraphParts) {
  const G = g.sharedPrefix ?? 1;
  return { nG: g.B / G, G, S: 0, T: g.T, C: g.config.dModel, P: g.P, L: g.L };
}

/** Images of a step: one per group when a shared prefix holds the patches, else one per rollout. */
export function imageCount(g: GraphParts, S: number): number {
  return S > 0 && g.sharedPrefix ? g.B / g.sharedPrefix : g.B;
}

/** Prepares the forward dispatches up to the logits with the parameters in `params`. */
export function buildForward(g: GraphParts, params: GPUBuffer): KernelCall[] {
  const { ctx, config, B, P, T, L, bufs } = g;
  const C = config.dModel;
  const H4 = config.mlpRatio * C;
  const BT = B * T;
  const pd = patchDim(config);
  const w = (name: string) => g.slot(params, name);
  const dummy = bufs.dummy;
  const calls: KernelCall[] = [];
  const patchify = K.patchify(
    ctx,
    { images: bufs.images, patches: bufs.patches },
    {
      B,
      H: config.imageHeight,
      W: config.imageWidth,
      Ch: config.imageChannels,
      patchSize: config.patchSize,
    },
  );
  const patchMatmul = K.matmulForward(
    ctx,
    { x: bufs.patches, w: w("patch.w"), bias: w("patch.b"), res: null, y: bufs.patchEmb, dummy },
    B * P,
    pd,
    C,
  );
  calls.push(patchify, patchMatmul);
  const embedBindings = {
    patchEmb: bufs.patchEmb,
    tokens: bufs.tokens,
    wte: w("wte"),
    wpe: w("wpe"),
    out: bufs.encoded,
  };
  if (g.sharedPrefix) {
    const embed = K.embedPrefixForward(ctx, embedBindings, { ...prefixDims(g), posOff: g.posOff });
    g.onLayout((l) => {
      const n = imageCount(g, l.S);
      patchify.set({ B: n });
      patchMatmul.set({ M: n * P });
      embed.set({ S: l.S, Rs: l.Rs });
    });
    g.embedCalls.push(embed);
    calls.push(embed);
  } else {
    const embed = K.embedForward(ctx, embedBindings, B, P, L, C, g.posOff);
    g.embedCalls.push(embed);
    calls.push(embed);
  }
  const attnDims = { B, T, C, NH: config.nHeads, P, L, padId: g.padId };
  let x = bufs.encoded;
  bufs.layers.forEach((a, l) => {
    const h = (n: string) => w(`h.${l}.${n}`);
    const full = <T extends KernelCall>(c: T, per: "M" | "N" | "NH4"): T => g.layoutCall(c, per);
    calls.push(
      full(
        K.layernormForward(
          ctx,
          { inp: x, g: h("ln1.g"), b: h("ln1.b"), out: a.ln1, mean: a.ln1Mean, rstd: a.ln1Rstd },
          BT,
          C,
        ),
        "N",
      ),
    );
    calls.push(
      full(
        K.matmulForward(
          ctx,
          { x: a.ln1, w: h("attn.wqkv"), bias: h("attn.bqkv"), res: null, y: a.qkv, dummy },
          BT,
          C,
          3 * C,
        ),
        "M",
      ),
    );
    // The last block of a compacted graph continues on the loss rows only (packed):
    // with a head size % 4 = 0 from its attention queries on, else after the attention.
    const pk = l === config.nLayers - 1 ? g.packed : null;
    const R = pk ? g.rows : BT;
    if (pk && g.packedAttention) {
      const bind = { qkv: a.qkv, tokens: bufs.tokens, idx: pk.idxRows, att: a.att, out: pk.atty };
      calls.push(g.packedCall(K.attentionForwardRows(ctx, bind, attnDims, R)));
    } else if (g.sharedPrefix) {
      const attn = K.attentionPrefixForwardCall(
        ctx,
        { qkv: a.qkv, tokens: bufs.tokens, att: a.att, out: a.atty },
        { ...prefixDims(g), NH: config.nHeads, padId: g.padId },
      );
      g.onLayout((lay) => attn.set({ S: lay.S, Rs: lay.Rs }));
      calls.push(attn);
    } else {
      calls.push(
        K.attentionForward(
          ctx,
          { qkv: a.qkv, tokens: bufs.tokens, att: a.att, out: a.atty },
          attnDims,
        ),
      );
    }
    let atty = a.atty;
    let xin = x;
    if (pk) {
      if (!g.packedAttention)
        calls.push(
          g.packedCall(K.rowsGather(ctx, { idx: pk.idxRows, x: a.atty, y: pk.atty }, R, C)),
        );
      calls.push(g.packedCall(K.rowsGather(ctx, { idx: pk.idxRows, x, y: pk.xin }, R, C)));
      atty = pk.atty;
      xin = pk.xin;
    }
    const rowsOf = <T extends KernelCall>(c: T, per: "M" | "N" | "NH4"): T =>
      pk ? g.packedCall(c, per) : full(c, per);
    calls.push(
      rowsOf(
        K.matmulForward(
          ctx,
          { x: atty, w: h("attn.wo"), bias: h("attn.bo"), res: xin, y: a.res2, dummy },
          R,
          C,
          C,
        ),
        "M",
      ),
    );
    calls.push(
      rowsOf(
        K.layernormForward(
          ctx,
          {
            inp: a.res2,
            g: h("ln2.g"),
            b: h("ln2.b"),
            out: a.ln2,
            mean: a.ln2Mean,
            rstd: a.ln2Rstd,
          },
          R,
          C,
        ),
        "N",
      ),
    );
    calls.push(
      rowsOf(
        K.matmulForward(
          ctx,
          { x: a.ln2, w: h("mlp.wfc"), bias: h("mlp.bfc"), res: null, y: a.fch, dummy },
          R,
          C,
          H4,
        ),
        "M",
      ),
    );
    // Four floats per invocation when every row count keeps N = rows·H4 a multiple of 4 (the same bits).
    const gv = H4 % 4 === 0 ? "vec4" : "scalar";
    calls.push(rowsOf(K.geluForward(ctx, { inp: a.fch, out: a.fchGelu }, R * H4, gv), "NH4"));
    calls.push(
      rowsOf(
        K.matmulForward(
          ctx,
          {
            x: a.fchGelu,
            w: h("mlp.wproj"),
            bias: h("mlp.bproj"),
            res: a.res2,
            y: a.res3,
            dummy,
          },
          R,
          H4,
          C,
        ),
        "M",
      ),
    );
    x = a.res3;
  });
  const pk = g.packed;
  const R = pk ? g.rows : BT;
  const rowsOf = <T extends KernelCall>(c: T, per: "M" | "N"): T =>
    pk ? g.packedCall(c, per) : g.layoutCall(c, per);
  calls.push(
    rowsOf(
      K.layernormForward(
        ctx,
        {
          inp: x,
          g: w("lnf.g"),
          b: w("lnf.b"),
          out: bufs.lnf,
          mean: bufs.lnfMean,
          rstd: bufs.lnfRstd,
        },
        R,
        C,
      ),
      "N",
    ),
  );
  const V = config.vocabSize;
  calls.push(
    rowsOf(
      K.matmulForward(
        ctx,
        {
          x: bufs.lnf,
          w: w("head.w"),
          bias: null,
          res: null,
          y: pk?.logits ?? bufs.logits,
          dummy,
        },
        R,
        C,
        V,
      ),
      "M",
    ),
  );
  // Spread the packed logits back to [B, T, V] (zeros on the rows the loss does not read).
  if (pk) calls.push(K.rowsGather(ctx, { idx: pk.invLogits, x: pk.logits, y: bufs.logits }, BT, V));
  return calls;
}
