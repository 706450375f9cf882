/**
 * TrainGraph's backward (./graph.ts) as prepared dispatches: from the loss's
 * per-token gradients through the logits, lnf and the blocks in reverse to
 * every parameter gradient (llm.c gpt2_backward), in the variants of the
 * forward (./graph-forward.ts): a compacted last layer on the packed loss
 * rows, whose gradients are spread back to every row before its attention;
 * and a shared prefix, where the attention's kv pass and the embedding sum
 * the gradients flowing into a group's shared positions over its rollouts
 * once, and every row-wise call runs on the prefix layout's rows.
 */
import type { KernelCall } from "../gpu/context";
import { patchDim } from "./config";
import * as K from "../kernels";
import type { GraphParts } from "./graph-buffers";
import { finalResidual, imageCount, prefixDims } from "./graph-forward";

/**
 * Prepares the backward dispatches (from the loss's per-token gradients to
 * every parameter gradient) for the graph's parameters `params` and gradient
 * buffer `grads`.
 * @returns the calls in run order and the first one (its uniform carries τ).
 */
export function buildBackward(
  g: GraphParts,
  params: GPUBuffer,
  grads: GPUBuffer,
): { calls: KernelCall[]; logitsGrad: K.LossLogitsGradCall } {
  const { ctx, config, B, P, T, L, bufs } = g;
  const C = config.dModel;
  const H4 = config.mlpRatio * C;
  const V = config.vocabSize;
  const BT = B * T;
  const w = (name: string) => g.slot(params, name);
  const gr = (name: string) => g.slot(grads, name);
  const dummy = bufs.dummy;
  const calls: KernelCall[] = [];
  // loss → dlogits
  const logitsGrad = K.lossLogitsGrad(
    ctx,
    {
      logits: bufs.logits,
      tokens: bufs.tokens,
      g: bufs.tokenGrad,
      tok: bufs.tok,
      dlogits: bufs.dlogits,
    },
    { B, T, L, P, V },
  );
  calls.push(logitsGrad);
  // A compacted graph runs the head, lnf and the last block's MLP and output
  // projection on the packed loss rows (pk), then spreads d atty and d res back.
  const pk = g.packed;
  const R = pk ? g.rows : BT;
  const rowsOf = <T extends KernelCall>(c: T, per: "M" | "N" | "NH4"): T =>
    pk ? g.packedCall(c, per) : g.layoutCall(c, per);
  let dlogits = bufs.dlogits;
  if (pk) {
    calls.push(
      g.packedCall(K.rowsGather(ctx, { idx: pk.idxLogits, x: bufs.dlogits, y: pk.dlogits }, R, V)),
    );
    dlogits = pk.dlogits;
  }
  // logits = lnf · head.w
  calls.push(
    rowsOf(K.matmulBackwardDx(ctx, { dy: dlogits, w: w("head.w"), dx: bufs.dln }, R, C, V), "M"),
  );
  calls.push(
    rowsOf(
      K.matmulBackwardDw(
        ctx,
        { x: bufs.lnf, dy: dlogits, dw: gr("head.w"), dbias: null, dummy },
        R,
        C,
        V,
      ),
      "M",
    ),
  );
  // lnf: dres = LN'(dln) starts the residual-stream gradient
  const xf = finalResidual(g);
  calls.push(
    rowsOf(
      K.layernormBackwardDx(
        ctx,
        {
          dout: bufs.dln,
          inp: xf,
          g: w("lnf.g"),
          mean: bufs.lnfMean,
          rstd: bufs.lnfRstd,
          dinp: pk?.dres ?? bufs.dres,
        },
        R,
        C,
        false,
      ),
      "N",
    ),
  );
  calls.push(
    rowsOf(
      K.layernormBackwardParams(
        ctx,
        {
          dout: bufs.dln,
          inp: xf,
          mean: bufs.lnfMean,
          rstd: bufs.lnfRstd,
          dg: gr("lnf.g"),
          db: gr("lnf.b"),
        },
        R,
        C,
      ),
      "N",
    ),
  );
  const attnDims = { B, T, C, NH: config.nHeads, P, L, padId: g.padId };
  for (let l = config.nLayers - 1; l >= 0; l--) {
    const a = bufs.layers[l];
    const xin = l === 0 ? bufs.encoded : bufs.layers[l - 1].res3;
    const hw = (n: string) => w(`h.${l}.${n}`);
    const hg = (n: string) => gr(`h.${l}.${n}`);
    // The last block of a compacted graph: packed rows up to the output projection.
    const lpk = l === config.nLayers - 1 ? pk : null;
    const Rl = lpk ? R : BT;
    const full = <T extends KernelCall>(c: T, per: "M" | "N"): T => g.layoutCall(c, per);
    const rowsOfL = <T extends KernelCall>(c: T, per: "M" | "N" | "NH4"): T =>
      lpk ? g.packedCall(c, per) : g.layoutCall(c, per);
    const dres = lpk?.dres ?? bufs.dres;
    // res3 = res2 + fchGelu·wproj + bproj
    calls.push(
      rowsOfL(
        K.matmulBackwardDx(ctx, { dy: dres, w: hw("mlp.wproj"), dx: bufs.dfchGelu }, Rl, H4, C),
        "M",
      ),
    );
    calls.push(
      rowsOfL(
        K.matmulBackwardDw(
          ctx,
          { x: a.fchGelu, dy: dres, dw: hg("mlp.wproj"), dbias: hg("mlp.bproj"), dummy },
          Rl,
          H4,
          C,
        ),
        "M",
      ),
    );
    // fchGelu = gelu(fch)
    calls.push(
      rowsOfL(
        K.geluBackward(
          ctx,
          { inp: a.fch, dout: bufs.dfchGelu, dinp: bufs.dfch },
          Rl * H4,
          H4 % 4 === 0 ? "vec4" : "scalar", // N = rows·H4 stays a multiple of 4 (the same bits)
        ),
        "NH4",
      ),
    );
    // fch = ln2·wfc + bfc
    calls.push(
      rowsOfL(
        K.matmulBackwardDx(ctx, { dy: bufs.dfch, w: hw("mlp.wfc"), dx: bufs.dln }, Rl, C, H4),
        "M",
      ),
    );
    calls.push(
      rowsOfL(
        K.matmulBackwardDw(
          ctx,
          { x: a.ln2, dy: bufs.dfch, dw: hg("mlp.wfc"), dbias: hg("mlp.bfc"), dummy },
          Rl,
          C,
          H4,
        ),
        "M",
      ),
    );
    // ln2 = LN(res2): dres += LN'(dln)  (dres now holds d res2)
    calls.push(
      rowsOfL(
        K.layernormBackwardDx(
          ctx,
          {
            dout: bufs.dln,
            inp: a.res2,
            g: hw("ln2.g"),
            mean: a.ln2Mean,
            rstd: a.ln2Rstd,
            dinp: dres,
          },
          Rl,
          C,
          true,
        ),
        "N",
      ),
    );
    calls.push(
      rowsOfL(
        K.layernormBackwardParams(
          ctx,
          {
            dout: bufs.dln,
            inp: a.res2,
            mean: a.ln2Mean,
            rstd: a.ln2Rstd,
            dg: hg("ln2.g"),
            db: hg("ln2.b"),
          },
          Rl,
          C,
        ),
        "N",
      ),
    );
    // res2 = xin + atty·wo + bo
    calls.push(
      rowsOfL(
        K.matmulBackwardDx(
          ctx,
          { dy: dres, w: hw("attn.wo"), dx: lpk?.datty ?? bufs.datty },
          Rl,
          C,
          C,
        ),
        "M",
      ),
    );
    calls.push(
      rowsOfL(
        K.matmulBackwardDw(
          ctx,
          { x: lpk?.atty ?? a.atty, dy: dres, dw: hg("attn.wo"), dbias: hg("attn.bo"), dummy },
          Rl,
          C,
          C,
        ),
        "M",
      ),
    );
    if (lpk) {
      // Back to every row: d xin (= d res2 through the residual) and d atty are 0 off the loss rows.
      const back = (x: GPUBuffer, y: GPUBuffer) =>
        g.layoutCall(K.rowsGather(ctx, { idx: lpk.invRows, x, y }, BT, C), "R");
      calls.push(back(lpk.dres, bufs.dres), back(lpk.datty, bufs.datty));
    }
    // atty = attention(qkv)
    if (lpk && g.packedAttention) {
      // dpre and dqkv were cleared (recordBackward): the q pass writes the packed rows only.
      const [qPass, kvPass] = K.attentionBackwardRows(
        ctx,
        {
          doutPacked: lpk.datty,
          dout: bufs.datty,
          qkv: a.qkv,
          att: a.att,
          dpre: bufs.dpre,
          dqkv: bufs.dqkv,
          idx: lpk.idxRows,
        },
        attnDims,
        R,
      );
      calls.push(g.packedCall(qPass), kvPass);
    } else if (g.sharedPrefix) {
      const passes = K.attentionPrefixBackward(
        ctx,
        { dout: bufs.datty, qkv: a.qkv, att: a.att, dpre: bufs.dpre, dqkv: bufs.dqkv },
        { ...prefixDims(g), NH: config.nHeads, padId: g.padId },
      );
      g.onLayout((lay) => {
        for (const c of passes) c.set({ S: lay.S, Rs: lay.Rs });
      });
      calls.push(...passes);
    } else {
      calls.push(
        ...K.attentionBackward(
          ctx,
          { dout: bufs.datty, qkv: a.qkv, att: a.att, dpre: bufs.dpre, dqkv: bufs.dqkv },
          attnDims,
        ),
      );
    }
    // qkv = ln1·wqkv + bqkv
    calls.push(
      full(
        K.matmulBackwardDx(ctx, { dy: bufs.dqkv, w: hw("attn.wqkv"), dx: bufs.dln }, BT, C, 3 * C),
        "M",
      ),
    );
    calls.push(
      full(
        K.matmulBackwardDw(
          ctx,
          { x: a.ln1, dy: bufs.dqkv, dw: hg("attn.wqkv"), dbias: hg("attn.bqkv"), dummy },
          BT,
          C,
          3 * C,
        ),
        "M",
      ),
    );
    // ln1 = LN(xin): dres += LN'(dln)  (dres now holds d xin)
    calls.push(
      full(
        K.layernormBackwardDx(
          ctx,
          {
            dout: bufs.dln,
            inp: xin,
            g: hw("ln1.g"),
            mean: a.ln1Mean,
            rstd: a.ln1Rstd,
            dinp: bufs.dres,
          },
          BT,
          C,
          true,
        ),
        "N",
      ),
    );
    calls.push(
      full(
        K.layernormBackwardParams(
          ctx,
          {
            dout: bufs.dln,
            inp: xin,
            mean: a.ln1Mean,
            rstd: a.ln1Rstd,
            dg: hg("ln1.g"),
            db: hg("ln1.b"),
          },
          BT,
          C,
        ),
        "N",
      ),
    );
  }
  // encoded = embeddings
  const embedBindings = {
    dout: bufs.dres,
    order: bufs.tokenOrder,
    start: bufs.tokenStart,
    dwte: gr("wte"),
    dwpe: gr("wpe"),
    dpatchEmb: bufs.dpatchEmb,
  };
  const patchDw = K.matmulBackwardDw(
    ctx,
    { x: bufs.patches, dy: bufs.dpatchEmb, dw: gr("patch.w"), dbias: gr("patch.b"), dummy },
    B * P,
    patchDim(config),
    C,
  );
  if (g.sharedPrefix) {
    const embed = K.embedPrefixBackward(
      ctx,
      embedBindings,
      { ...prefixDims(g), posOff: g.posOff },
      V,
    );
    g.onLayout((lay) => {
      embed.set({ S: lay.S, Rs: lay.Rs });
      patchDw.set({ M: imageCount(g, lay.S) * P });
    });
    g.embedCalls.push(embed);
    calls.push(embed);
  } else {
    const embed = K.embedBackward(ctx, embedBindings, B, P, L, C, V, g.posOff);
    g.embedCalls.push(embed);
    calls.push(embed);
  }
  calls.push(patchDw);
  return { calls, logitsGrad };
}
