/**
 * TrainGraph's buffers (./graph.ts) and what its dispatch builders
 * (./graph-forward.ts, ./graph-backward.ts) read: the inputs, the
 * activations of every block, the backward scratch, the packed rows of a
 * compacted last layer, and the hooks that keep a call's row count in step
 * with the batch (a compacted layer's packed rows; a shared-prefix step's
 * layout, src/layout/prefix-layout.ts).
 *
 * Shapes use B rollouts of T = P + L positions ("BT" rows); a shared-prefix
 * step uses the first rows = nG·S + B·Rs ≤ B·T of each activation buffer.
 */
import type { Binding, GpuContext, KernelCall } from "../gpu/context";
import { patchDim, type ModelConfig } from "./config";
import type { ParamLayout } from "../layout/param-layout";
import type { PrefixLayout } from "../layout/prefix-layout";
import type { LayerActs } from "./graph-types";

/** Input, activation and backward buffers of a graph (shapes in the comments). */
export interface GraphBuffers {
  images: GPUBuffer; // [B, H·W·C] (one per group first in a shared-prefix step)
  tokens: GPUBuffer; // i32 [B, L]
  tokenOrder: GPUBuffer; // i32 [B·L] positions (shared prefix: layout rows) by token id
  tokenStart: GPUBuffer; // i32 [V + 1] id v's entries: tokenOrder[start[v] .. start[v+1])
  mask: GPUBuffer; // [B, L]
  advantages: GPUBuffer; // [B]
  oldLogprobs: GPUBuffer; // [B, L]
  refLogprobs: GPUBuffer; // [B, L]
  patches: GPUBuffer; // [B·P, pd]
  patchEmb: GPUBuffer; // [B·P, C]
  encoded: GPUBuffer; // [BT, C]
  layers: LayerActs[];
  lnf: GPUBuffer;
  lnfMean: GPUBuffer;
  lnfRstd: GPUBuffer;
  /** [B, T, V] logits at every position of the plain layout (text row P+s predicts token s+1). */
  logits: GPUBuffer;
  /** [B, L] per-token logprobs of the last forward (0 at s = 0). */
  logprobs: GPUBuffer;
  /** [B·L, 8] per-token loss records (see shaders/loss/loss_token.wgsl). */
  tok: GPUBuffer;
  /** [B, L] weighted per-token gradient of the loss w.r.t. the token logprobs. */
  tokenGrad: GPUBuffer;
  /** [8] loss, kl, clipFrac, entropy, tokens (see TrainGraph.readStats). */
  stats: GPUBuffer;
  dlogits: GPUBuffer; // [B, T, V]
  dln: GPUBuffer; // [BT, C]
  dres: GPUBuffer; // [BT, C]
  dfchGelu: GPUBuffer; // [BT, 4C]
  dfch: GPUBuffer; // [BT, 4C]
  datty: GPUBuffer; // [BT, C]
  dqkv: GPUBuffer; // [BT, 3C]
  dpre: GPUBuffer; // [B, NH, T, T] (shared prefix: [rows, NH, T])
  dpatchEmb: GPUBuffer; // [B·P, C]
  dummy: GPUBuffer; // stands in for an absent bias / residual
}

/**
 * Buffers of a compacted last layer (TrainGraphOptions.compactLastLayer):
 * the row maps (kernels/rows lossRows, prefixLossRows) and the packed inputs
 * and gradients. Without a shared prefix, the layout rows are the plain rows
 * b·T + t, so idxLogits is idxRows and invRows is invLogits.
 */
export interface PackedBuffers {
  /** i32 [B·T]: packed row → layout row (gathers activations). */
  idxRows: GPUBuffer;
  /** i32 [B·T]: packed row → plain row b·T + t (gathers d logits). */
  idxLogits: GPUBuffer;
  /** i32 [B·T]: layout row → packed row or −1 (spreads gradients back). */
  invRows: GPUBuffer;
  /** i32 [B·T]: plain row → packed row or −1 (spreads logits back). */
  invLogits: GPUBuffer;
  atty: GPUBuffer; // [rows, C]
  xin: GPUBuffer; // [rows, C]
  logits: GPUBuffer; // [rows, V]
  dlogits: GPUBuffer; // [rows, V]
  dres: GPUBuffer; // [rows, C]
  datty: GPUBuffer; // [rows, C]
}

/** How a call's row count is set: matmul M, layer-norm N, GELU N = rows·4C, gather R. */
export type RowField = "M" | "N" | "NH4" | "R";

/** What the dispatch builders read from a graph (see the file header). */
export interface GraphParts {
  ctx: GpuContext;
  config: ModelConfig;
  layout: ParamLayout;
  B: number;
  P: number;
  T: number;
  /** Text tokens per sequence. */
  L: number;
  padId: number;
  bufs: GraphBuffers;
  /** The compacted last layer's buffers, or null. */
  packed: PackedBuffers | null;
  /** The compacted last layer runs its attention on the packed query rows (head size % 4 = 0, no shared prefix). */
  packedAttention: boolean;
  /** Group size of a shared-prefix graph, or null. */
  sharedPrefix: number | null;
  /** Packed row count of the current batch. */
  rows: number;
  /** The current text offset (setTextOffset). */
  posOff: number;
  /** Calls whose text offset setTextOffset sets. */
  embedCalls: { set(v: { posOff: number }): void }[];
  /** Registers a call of the compacted last layer whose row count follows the packed rows. */
  packedCall<C extends KernelCall>(c: C, per?: RowField): C;
  /** Registers a call whose row count follows a shared-prefix step's layout rows (no-op without one). */
  layoutCall<C extends KernelCall>(c: C, per: RowField): C;
  /** Registers a setter run with every new shared-prefix layout (and at once, for the current one). */
  onLayout(set: (l: PrefixLayout) => void): void;
  /** A tensor of a flat parameter-like buffer as a 256-byte aligned binding. */
  slot(buf: GPUBuffer, name: string): Binding;
}

/**
 * Allocates (or, through `buffer`, borrows) every buffer of a graph of B
 * rows of T = P + L positions.
 * @param buffer makes or borrows the buffer `label` of `floats` floats.
 * @param packedBuffer makes or borrows a packed buffer of `width` floats per row (compacted graphs).
 */
export function allocGraphBuffers(
  config: ModelConfig,
  B: number,
  L: number,
  P: number,
  buffer: (label: string, floats: number) => GPUBuffer,
  packedBuffer: ((label: string, width: number) => GPUBuffer) | null,
  shared: boolean,
): { bufs: GraphBuffers; packed: PackedBuffers | null } {
  const T = P + L;
  const C = config.dModel;
  const H4 = config.mlpRatio * C;
  const NH = config.nHeads;
  const V = config.vocabSize;
  const BT = B * T;
  const pixels = config.imageHeight * config.imageWidth * config.imageChannels;
  const layers: LayerActs[] = [];
  for (let l = 0; l < config.nLayers; l++) {
    layers.push({
      ln1: buffer(`h${l}.ln1`, BT * C),
      ln1Mean: buffer(`h${l}.ln1Mean`, BT),
      ln1Rstd: buffer(`h${l}.ln1Rstd`, BT),
      qkv: buffer(`h${l}.qkv`, BT * 3 * C),
      att: buffer(`h${l}.att`, B * NH * T * T),
      atty: buffer(`h${l}.atty`, BT * C),
      res2: buffer(`h${l}.res2`, BT * C),
      ln2: buffer(`h${l}.ln2`, BT * C),
      ln2Mean: buffer(`h${l}.ln2Mean`, BT),
      ln2Rstd: buffer(`h${l}.ln2Rstd`, BT),
      fch: buffer(`h${l}.fch`, BT * H4),
      fchGelu: buffer(`h${l}.fchGelu`, BT * H4),
      res3: buffer(`h${l}.res3`, BT * C),
    });
  }
  const bufs: GraphBuffers = {
    images: buffer("images", B * pixels),
    tokens: buffer("tokens", B * L),
    tokenOrder: buffer("tokenOrder", B * L),
    tokenStart: buffer("tokenStart", V + 1),
    mask: buffer("mask", B * L),
    advantages: buffer("advantages", B),
    oldLogprobs: buffer("oldLogprobs", B * L),
    refLogprobs: buffer("refLogprobs", B * L),
    patches: buffer("patches", B * P * patchDim(config)),
    patchEmb: buffer("patchEmb", B * P * C),
    encoded: buffer("encoded", BT * C),
    layers,
    lnf: buffer("lnf", BT * C),
    lnfMean: buffer("lnfMean", BT),
    lnfRstd: buffer("lnfRstd", BT),
    logits: buffer("logits", BT * V),
    logprobs: buffer("logprobs", B * L),
    tok: buffer("tok", B * L * 8),
    tokenGrad: buffer("tokenGrad", B * L),
    stats: buffer("stats", 8),
    dlogits: buffer("dlogits", BT * V),
    dln: buffer("dln", BT * C),
    dres: buffer("dres", BT * C),
    dfchGelu: buffer("dfchGelu", BT * H4),
    dfch: buffer("dfch", BT * H4),
    datty: buffer("datty", BT * C),
    dqkv: buffer("dqkv", BT * 3 * C),
    dpre: buffer("dpre", B * NH * T * T),
    dpatchEmb: buffer("dpatchEmb", B * P * C),
    dummy: buffer("dummy", 4),
  };
  if (!packedBuffer) return { bufs, packed: null };
  const idxRows = packedBuffer("rows.idx", 1);
  const invLogits = packedBuffer("rows.inv", 1);
  const packed: PackedBuffers = {
    idxRows,
    idxLogits: shared ? packedBuffer("rows.idxLogits", 1) : idxRows,
    invRows: shared ? packedBuffer("rows.invRows", 1) : invLogits,
    invLogits,
    atty: packedBuffer("rows.atty", C),
    xin: packedBuffer("rows.xin", C),
    logits: packedBuffer("rows.logits", V),
    dlogits: packedBuffer("rows.dlogits", V),
    dres: packedBuffer("rows.dres", C),
    datty: packedBuffer("rows.datty", C),
  };
  return { bufs, packed };
}
