/**
 * The whole tiny VLM on the CPU in f64, forward AND backward: the lab's
 * `train_gpt2.c`. Used by tests only (GPU forward/backward, KV-cache
 * generation and ONNX export are all checked against it). Slow by design:
 * plain loops, no tricks.
 *
 * Model semantics (docs/design.md "The tiny VLM"; every engine must match):
 *   sequence = [P patch tokens][L text tokens], T = P + L
 *   x = embed(images, tokens)                                  // [B, T, C]
 *   per layer l:  x += attn(ln1(x));  x += mlp(ln2(x))         // pre-norm
 *   logits = lnf(x)[text rows] · head.w                        // [B, L, V]
 * Attention masks PAD text tokens as keys (patch keys never masked).
 *
 * Per-layer functions are the CPU references of the kernel families
 * (src/kernels/<family>/reference.ts), re-exported here with the losses.
 */
import { numPatches, paramLayout, patchDim, type ModelConfig } from "./config";
import {
  policyLoss,
  sftLoss,
  type PolicyLossInputs,
  type PolicyLossResult,
} from "../kernels/loss/reference";
import { matmulBackward, matmulForward } from "../kernels/matmul/reference";
import { attentionBackward, attentionForward } from "../kernels/attention/reference";
import { layernormBackward, layernormForward } from "../kernels/layernorm/reference";
import { geluBackward, geluForward } from "../kernels/gelu/reference";
import { embedBackward, embedForward, patchify } from "../kernels/embed/reference";

export * from "../kernels/matmul/reference";
export * from "../kernels/attention/reference";
export * from "../kernels/layernorm/reference";
export * from "../kernels/gelu/reference";
export * from "../kernels/embed/reference";
export * from "../kernels/loss/reference";

type F64 = Float64Array;

// Residual add and log-softmax: no kernel of their own (the residual add is
// fused into matmul_forward, the log-softmax into loss_token).

/** out [N] = a + b. */
function residualForward(out: F64, a: ArrayLike<number>, b: ArrayLike<number>, N: number): void {
  for (let i = 0; i < N; i++) out[i] = a[i] + b[i];
}

/** out [N, V] = logits − logsumexp(logits) per row (max-subtracted). */
export function logSoftmaxForward(out: F64, logits: ArrayLike<number>, N: number, V: number): void {
  for (let n = 0; n < N; n++) {
    let m = -Infinity;
    for (let v = 0; v < V; v++) m = Math.max(m, logits[n * V + v]);
    let s = 0;
    for (let v = 0; v < V; v++) s += Math.exp(logits[n * V + v] - m);
    const lse = m + Math.log(s);
    for (let v = 0; v < V; v++) out[n * V + v] = logits[n * V + v] - lse;
  }
}

/** One batch of examples for the reference model. */
export interface RefBatch {
  B: number;
  /** L: text tokens per example. P + L must not exceed config.maxSeqLen. */
  textLen: number;
  /** [B, H·W·C] pixels, each image H×W×C row-major. */
  images: Float32Array | F64;
  /** [B, L] token ids (prompt left-padded with padId, then response). */
  tokens: Int32Array | ArrayLike<number>;
  /** The PAD id: PAD text tokens are masked as attention keys. */
  padId: number;
}

/** Activations saved by the forward pass for the backward pass (llm.c ActivationTensors). */
interface Acts {
  patches: F64; // [B, P, pd]
  keyOk: Uint8Array; // [B, T]
  encoded: F64; // [B, T, C]
  layers: Array<{
    xin: F64; // [B, T, C] residual stream entering the block
    ln1: F64;
    ln1Mean: F64;
    ln1Rstd: F64; // [B, T, C], [B, T], [B, T]
    qkv: F64; // [B, T, 3C]
    att: F64; // [B, NH, T, T]
    atty: F64; // [B, T, C] attention output before wo
    res2: F64; // [B, T, C] xin + attn
    ln2: F64;
    ln2Mean: F64;
    ln2Rstd: F64;
    fch: F64; // [B, T, 4C] pre-GELU
    fchGelu: F64; // [B, T, 4C]
    res3: F64; // [B, T, C] block output
  }>;
  lnfIn: F64; // [B, L, C] text rows of the final residual
  lnf: F64;
  lnfMean: F64;
  lnfRstd: F64; // [B, L, C], [B, L], [B, L]
  logits: F64; // [B, L, V]
}

/** Named f64 views of a flat parameter (or gradient) vector. */
function views(config: ModelConfig, flat: F64): Map<string, F64> {
  const m = new Map<string, F64>();
  for (const t of paramLayout(config).tensors)
    m.set(t.name, flat.subarray(t.offset, t.offset + t.size));
  return m;
}

function checkBatch(config: ModelConfig, params: ArrayLike<number>, batch: RefBatch): void {
  const P = numPatches(config);
  const { B, textLen: L } = batch;
  const layout = paramLayout(config);
  if (params.length < layout.totalFloats)
    throw new Error(`params has ${params.length} floats, layout needs ${layout.totalFloats}`);
  if (P + L > config.maxSeqLen)
    throw new Error(`P + textLen = ${P + L} exceeds config.maxSeqLen ${config.maxSeqLen}`);
  const pixels = config.imageHeight * config.imageWidth * config.imageChannels;
  if (batch.images.length !== B * pixels)
    throw new Error(`images has ${batch.images.length} values, expected B·H·W·C = ${B * pixels}`);
  if (batch.tokens.length !== B * L)
    throw new Error(`tokens has ${batch.tokens.length} ids, expected B·textLen = ${B * L}`);
  for (let i = 0; i < B * L; i++) {
    const id = batch.tokens[i];
    if (!Number.isInteger(id) || id < 0 || id >= config.vocabSize)
      throw new Error(`token ${id} at ${i} is outside [0, ${config.vocabSize})`);
  }
}

function forwardActs(config: ModelConfig, params: ArrayLike<number>, batch: RefBatch): Acts {
  checkBatch(config, params, batch);
  const pw = views(config, Float64Array.from(params));
  const get = (n: string) => pw.get(n)!;
  const { B, textLen: L } = batch;
  const P = numPatches(config);
  const T = P + L;
  const C = config.dModel;
  const NH = config.nHeads;
  const H4 = config.mlpRatio * C;
  const V = config.vocabSize;
  const pd = patchDim(config);
  const BT = B * T;

  const patches = new Float64Array(B * P * pd);
  patchify(patches, batch.images, config, B);
  const keyOk = new Uint8Array(BT);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++)
      keyOk[b * T + t] = t < P || batch.tokens[b * L + t - P] !== batch.padId ? 1 : 0;
  const encoded = new Float64Array(BT * C);
  embedForward(
    encoded,
    patches,
    batch.tokens,
    get("patch.w"),
    get("patch.b"),
    get("wte"),
    get("wpe"),
    B,
    P,
    L,
    pd,
    C,
  );

  const layers: Acts["layers"] = [];
  let x = encoded;
  for (let l = 0; l < config.nLayers; l++) {
    const p = (n: string) => get(`h.${l}.${n}`);
    const a = {
      xin: x,
      ln1: new Float64Array(BT * C),
      ln1Mean: new Float64Array(BT),
      ln1Rstd: new Float64Array(BT),
      qkv: new Float64Array(BT * 3 * C),
      att: new Float64Array(B * NH * T * T),
      atty: new Float64Array(BT * C),
      res2: new Float64Array(BT * C),
      ln2: new Float64Array(BT * C),
      ln2Mean: new Float64Array(BT),
      ln2Rstd: new Float64Array(BT),
      fch: new Float64Array(BT * H4),
      fchGelu: new Float64Array(BT * H4),
      res3: new Float64Array(BT * C),
    };
    const tmp = new Float64Array(BT * C);
    layernormForward(a.ln1, a.ln1Mean, a.ln1Rstd, x, p("ln1.g"), p("ln1.b"), BT, C);
    matmulForward(a.qkv, a.ln1, p("attn.wqkv"), p("attn.bqkv"), BT, C, 3 * C);
    attentionForward(a.atty, a.att, a.qkv, keyOk, B, T, C, NH);
    matmulForward(tmp, a.atty, p("attn.wo"), p("attn.bo"), BT, C, C);
    residualForward(a.res2, x, tmp, BT * C);
    layernormForward(a.ln2, a.ln2Mean, a.ln2Rstd, a.res2, p("ln2.g"), p("ln2.b"), BT, C);
    matmulForward(a.fch, a.ln2, p("mlp.wfc"), p("mlp.bfc"), BT, C, H4);
    geluForward(a.fchGelu, a.fch, BT * H4);
    matmulForward(tmp, a.fchGelu, p("mlp.wproj"), p("mlp.bproj"), BT, H4, C);
    residualForward(a.res3, a.res2, tmp, BT * C);
    layers.push(a);
    x = a.res3;
  }
  // final LayerNorm and head on the text rows only
  const lnfIn = new Float64Array(B * L * C);
  for (let b = 0; b < B; b++) lnfIn.set(x.subarray((b * T + P) * C, (b * T + T) * C), b * L * C);
  const lnf = new Float64Array(B * L * C);
  const lnfMean = new Float64Array(B * L);
  const lnfRstd = new Float64Array(B * L);
  layernormForward(lnf, lnfMean, lnfRstd, lnfIn, get("lnf.g"), get("lnf.b"), B * L, C);
  const logits = new Float64Array(B * L * V);
  matmulForward(logits, lnf, get("head.w"), null, B * L, C, V);
  return { patches, keyOk, encoded, layers, lnfIn, lnf, lnfMean, lnfRstd, logits };
}

/**
 * Forward pass of the whole model.
 * @param params flat f32 parameters in `paramLayout(config)` order.
 * @returns logits [B, textLen, V] at the text positions only (row s predicts token s+1).
 * @throws Error on shape mismatches, out-of-range token ids, or P + textLen > maxSeqLen.
 */
export function referenceForward(
  config: ModelConfig,
  params: ArrayLike<number>,
  batch: RefBatch,
): { logits: F64 } {
  return { logits: forwardActs(config, params, batch).logits };
}

function backwardActs(
  config: ModelConfig,
  params: ArrayLike<number>,
  batch: RefBatch,
  acts: Acts,
  dlogits: F64,
): F64 {
  const layout = paramLayout(config);
  const pw = views(config, Float64Array.from(params));
  const grads = new Float64Array(layout.totalFloats);
  const gw = views(config, grads);
  const get = (n: string) => pw.get(n)!;
  const gget = (n: string) => gw.get(n)!;
  const { B, textLen: L } = batch;
  const P = numPatches(config);
  const T = P + L;
  const C = config.dModel;
  const NH = config.nHeads;
  const H4 = config.mlpRatio * C;
  const V = config.vocabSize;
  const BT = B * T;

  // logits = lnf · head.w
  const dlnf = new Float64Array(B * L * C);
  matmulBackward(dlnf, gget("head.w"), null, dlogits, acts.lnf, get("head.w"), B * L, C, V);
  const dlnfIn = new Float64Array(B * L * C);
  layernormBackward(
    dlnfIn,
    gget("lnf.g"),
    gget("lnf.b"),
    dlnf,
    acts.lnfIn,
    get("lnf.g"),
    acts.lnfMean,
    acts.lnfRstd,
    B * L,
    C,
  );
  // gradient of the residual stream (patch rows get nothing from the head)
  let dx = new Float64Array(BT * C);
  for (let b = 0; b < B; b++) dx.set(dlnfIn.subarray(b * L * C, (b + 1) * L * C), (b * T + P) * C);

  for (let l = config.nLayers - 1; l >= 0; l--) {
    const a = acts.layers[l];
    const p = (n: string) => get(`h.${l}.${n}`);
    const g = (n: string) => gget(`h.${l}.${n}`);
    // res3 = res2 + fchGelu·wproj + bproj: dres2 = dx, plus the MLP branch
    const dres2 = Float64Array.from(dx);
    const dfchGelu = new Float64Array(BT * H4);
    matmulBackward(
      dfchGelu,
      g("mlp.wproj"),
      g("mlp.bproj"),
      dx,
      a.fchGelu,
      p("mlp.wproj"),
      BT,
      H4,
      C,
    );
    const dfch = new Float64Array(BT * H4);
    geluBackward(dfch, a.fch, dfchGelu, BT * H4);
    const dln2 = new Float64Array(BT * C);
    matmulBackward(dln2, g("mlp.wfc"), g("mlp.bfc"), dfch, a.ln2, p("mlp.wfc"), BT, C, H4);
    layernormBackward(
      dres2,
      g("ln2.g"),
      g("ln2.b"),
      dln2,
      a.res2,
      p("ln2.g"),
      a.ln2Mean,
      a.ln2Rstd,
      BT,
      C,
    );
    // res2 = xin + atty·wo + bo
    const dxin = Float64Array.from(dres2);
    const datty = new Float64Array(BT * C);
    matmulBackward(datty, g("attn.wo"), g("attn.bo"), dres2, a.atty, p("attn.wo"), BT, C, C);
    const dqkv = new Float64Array(BT * 3 * C);
    attentionBackward(dqkv, datty, a.qkv, a.att, B, T, C, NH);
    const dln1 = new Float64Array(BT * C);
    matmulBackward(dln1, g("attn.wqkv"), g("attn.bqkv"), dqkv, a.ln1, p("attn.wqkv"), BT, C, 3 * C);
    layernormBackward(
      dxin,
      g("ln1.g"),
      g("ln1.b"),
      dln1,
      a.xin,
      p("ln1.g"),
      a.ln1Mean,
      a.ln1Rstd,
      BT,
      C,
    );
    dx = dxin;
  }
  embedBackward(
    gget("patch.w"),
    gget("patch.b"),
    gget("wte"),
    gget("wpe"),
    dx,
    acts.patches,
    batch.tokens,
    B,
    P,
    L,
    patchDim(config),
    C,
  );
  return grads;
}

/**
 * SFT loss (mean cross-entropy over masked tokens; mask [B, L] aligned with
 * tokens, s = 0 ignored) and its gradients.
 * @returns loss, logits [B, L, V], grads (flat, paramLayout order).
 */
export function referenceSft(
  config: ModelConfig,
  params: ArrayLike<number>,
  batch: RefBatch,
  mask: ArrayLike<number>,
): { loss: number; logits: F64; grads: F64 } {
  const acts = forwardActs(config, params, batch);
  const r = sftLoss(acts.logits, batch.tokens, mask, batch.B, batch.textLen, config.vocabSize);
  return {
    loss: r.loss,
    logits: acts.logits,
    grads: backwardActs(config, params, batch, acts, r.dlogits),
  };
}

/**
 * Policy-gradient loss (docs/reward-spec.md §1, see `policyLoss`) and its gradients.
 * @returns the loss result plus logits [B, L, V] and grads (flat, paramLayout order).
 */
export function referencePolicy(
  config: ModelConfig,
  params: ArrayLike<number>,
  batch: RefBatch,
  inputs: PolicyLossInputs,
): PolicyLossResult & { logits: F64; grads: F64 } {
  const acts = forwardActs(config, params, batch);
  const r = policyLoss(acts.logits, batch.tokens, inputs, batch.B, batch.textLen, config.vocabSize);
  return { ...r, logits: acts.logits, grads: backwardActs(config, params, batch, acts, r.dlogits) };
}
