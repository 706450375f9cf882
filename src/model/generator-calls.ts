/**
 * The GPU buffers and prepared KernelCalls of a Generator (./generate.ts):
 * the three prefill segments (patches, prompt, tail; ./prefill-plan.ts),
 * the calls after the tail (each sequence's last row gathered, the last
 * layer's attention output and MLP, lnf, head), one decode step, the step
 * counter and the sampler. Every call is built once; a segment's rows are
 * set per batch through its `set`.
 */
import type { GpuContext, KernelCall } from "../gpu/context";
import { paramLayout, type ModelConfig } from "./config";
import { decodeAdvance } from "../kernels/decode/launch";
import { decodeEmbed } from "../kernels/embed/launch";
import { decodeLayernorm } from "../kernels/layernorm/launch";
import { decodeAttention, kvAppendCall } from "../kernels/attention/launch";
import { decodeMatmul, type MatmulEpilogue } from "../kernels/matmul/launch";
import { rowsGather } from "../kernels/rows/launch";
import { sampleTokens, type SampleCall } from "../kernels/sample/launch";

/** Bytes of one buffer element: f32, i32 and u32 alike. */
const ELEMENT_BYTES = 4;

/** Decode steps of at least this many sequences use the decode matmul's 8-row tile (lab choice). */
const ROWS8_MIN = 128;

/** Where the rows of one prefill segment sit (the decode kernels' row → (sequence, position) map). */
interface SegmentRows {
  /** Rows of the segment. */
  R: number;
  rowsPerSeq: number;
  posBase: number;
  /** Text and cache row of row r: (r / rowsPerSeq)·seqMul; kv_append writes seqMul copies. */
  seqMul: number;
}

/** The prepared calls of one prefill segment and the setter of their rows. */
export interface Segment {
  calls: KernelCall[];
  set(rows: SegmentRows): void;
}

/** Sizes of a Generator (see its constructor). */
export interface GeneratorDims {
  n: number;
  promptLen: number;
  maxNew: number;
  /** Patch tokens P. */
  P: number;
  /** Activation rows: the largest segment (at least N, a decode step's). */
  rows: number;
}

/** What buildGeneratorCalls makes. */
export interface GeneratorCalls {
  /** Flat parameters (a copy of the caller's, made per batch). */
  params: GPUBuffer;
  /** [N, H·W·C] images (one per group when a group shares them). */
  images: GPUBuffer;
  /** i32 [N, promptLen + maxNew]: prompt | response columns. */
  text: GPUBuffer;
  /** i32 [N, maxNew] forced tokens | [N] forced lengths. */
  forced: GPUBuffer;
  /** u32 [4 + N]: step, pad, 0, 0, prefilled tokens per sequence. */
  state: GPUBuffer;
  /** i32 tokens [N, M] | logprobs [N, M] (f32 bits) | lengths [N] | done [N]. */
  out: GPUBuffer;
  /** [N, V] logits of the next sample. */
  logits: GPUBuffer;
  /** i32 [N]: each sequence's last row of the tail segment. */
  lastIdx: GPUBuffer;
  segments: { patches: Segment; prompt: Segment; tail: Segment };
  /** After the tail segment: the last rows gathered, the last layer's rest, lnf, head. */
  tailCalls: KernelCall[];
  /** One decode step of N rows. */
  decode: KernelCall[];
  advance: KernelCall;
  sample: SampleCall;
}

/**
 * Allocates a Generator's buffers (KV cache, activations, inputs, outputs)
 * and prepares every dispatch.
 * @throws Error when a buffer exceeds the adapter's limits or a kernel does not fit its sizes.
 */
export function buildGeneratorCalls(
  ctx: GpuContext,
  config: ModelConfig,
  dims: GeneratorDims,
): GeneratorCalls {
  const { n, promptLen, maxNew, P, rows } = dims;
  const T0 = P + promptLen;
  const d = config.dModel;
  const H = config.nHeads;
  const hd = d / H;
  const hid = config.mlpRatio * d;
  const V = config.vocabSize;
  const nLayers = config.nLayers;
  const S = T0 + maxNew; // cache positions per sequence
  const textCap = promptLen + maxNew;
  const layout = paramLayout(config);
  const off = (name: string) => layout.byName.get(name)!.offset;

  // ---- buffers (all allocated here, once) ----
  const params = ctx.createBuffer("gen.params", layout.totalFloats * ELEMENT_BYTES);
  const images = ctx.createBuffer(
    "gen.images",
    n * config.imageHeight * config.imageWidth * config.imageChannels * ELEMENT_BYTES,
  );
  const text = ctx.createBuffer("gen.text", n * textCap * ELEMENT_BYTES); // [N, textCap] i32
  const forced = ctx.createBuffer("gen.forced", (n * maxNew + n) * ELEMENT_BYTES); // [N, maxNew] | lens [N]
  const state = ctx.createBuffer("gen.state", (4 + n) * ELEMENT_BYTES); // [step, pad, 0, 0, prefilled [N]] u32
  const out = ctx.createBuffer("gen.out", (2 * n * maxNew + 2 * n) * ELEMENT_BYTES);
  const logits = ctx.createBuffer("gen.logits", n * V * ELEMENT_BYTES);
  const lastIdx = ctx.createBuffer("gen.lastIdx", n * ELEMENT_BYTES); // i32 [N]: each sequence's last tail row
  const ework = ctx.createBuffer("gen.ework", n * V * ELEMENT_BYTES);
  const x = ctx.createBuffer("gen.x", rows * d * ELEMENT_BYTES); // residual stream [R, d]
  const xn = ctx.createBuffer("gen.xn", rows * d * ELEMENT_BYTES); // LayerNorm output [R, d]
  const qkv = ctx.createBuffer("gen.qkv", rows * 3 * d * ELEMENT_BYTES); // [R, 3d]
  const att = ctx.createBuffer("gen.att", rows * d * ELEMENT_BYTES); // attention output [R, d]
  const h = ctx.createBuffer("gen.h", rows * hid * ELEMENT_BYTES); // MLP hidden [R, 4d]
  const kc = ctx.createBuffer("gen.kcache", nLayers * n * H * S * hd * ELEMENT_BYTES); // [layers, N, H, S, hd]
  const vc = ctx.createBuffer("gen.vcache", nLayers * n * H * S * hd * ELEMENT_BYTES);

  // ---- prepared calls ----
  // Each call keeps a setter of its rows (R, and the row → (sequence, position) map).
  type Setter = (r: SegmentRows) => void;
  const matmul = (
    inp: GPUBuffer,
    outBuf: GPUBuffer,
    R: number,
    I: number,
    O: number,
    w: string,
    b: string | null,
    epi: MatmulEpilogue,
    setters: Setter[],
    rows8: boolean,
  ) => {
    const c = decodeMatmul(
      ctx,
      { x: inp, w: params, y: outBuf },
      { R, I, O, wOff: off(w), bOff: b ? off(b) : null },
      epi,
      rows8,
    );
    setters.push((r) => c.set({ R: r.R }));
    return c;
  };
  const layernorm = (
    inp: GPUBuffer,
    outBuf: GPUBuffer,
    R: number,
    g: string,
    b: string,
    setters: Setter[],
  ) => {
    const c = decodeLayernorm(
      ctx,
      { x: inp, w: params, y: outBuf },
      { R, D: d, inStride: 1, inOffset: 0, gOff: off(g), bOff: off(b) },
    );
    setters.push((r) => c.set({ R: r.R }));
    return c;
  };
  const embed = (r: SegmentRows, useState: number, setters: Setter[]) => {
    const c = decodeEmbed(
      ctx,
      { image: images, text: text, state: state, w: params, x },
      {
        R: r.R,
        D: d,
        rowsPerSeq: r.rowsPerSeq,
        posBase: r.posBase,
        useState,
        P,
        textCap,
        gridW: config.imageWidth / config.patchSize,
        ps: config.patchSize,
        C: config.imageChannels,
        imgW: config.imageWidth,
        imgSize: config.imageHeight * config.imageWidth * config.imageChannels,
        patchWOff: off("patch.w"),
        patchBOff: off("patch.b"),
        wteOff: off("wte"),
        wpeOff: off("wpe"),
        seqMul: r.seqMul,
      },
    );
    setters.push((s) =>
      c.set({ R: s.R, rowsPerSeq: s.rowsPerSeq, posBase: s.posBase, seqMul: s.seqMul }),
    );
    return c;
  };
  // Attention half of layer l up to the cache append: xr [R, d] → qkvr [R, 3d] → cache.
  const attnIn = (
    l: number,
    r: SegmentRows,
    useState: number,
    xr: GPUBuffer,
    qkvr: GPUBuffer,
    setters: Setter[],
    rows8: boolean,
  ) => {
    const pre = `h.${l}.`;
    const append = kvAppendCall(
      ctx,
      { qkv: qkvr, state: state, kc, vc },
      { R: r.R, rowsPerSeq: r.rowsPerSeq, posBase: r.posBase, useState },
      { D: d, H, S, layerOff: l * n * H * S * hd },
      r.seqMul,
    );
    setters.push((s) =>
      append.set({ R: s.R, rowsPerSeq: s.rowsPerSeq, posBase: s.posBase, copies: s.seqMul }),
    );
    return [
      layernorm(xr, xn, r.R, `${pre}ln1.g`, `${pre}ln1.b`, setters),
      matmul(
        xn,
        qkvr,
        r.R,
        d,
        3 * d,
        `${pre}attn.wqkv`,
        `${pre}attn.bqkv`,
        "store",
        setters,
        rows8,
      ),
      append,
    ];
  };
  // Rest of layer l: attention of the R query rows in qkvr over the cache, wo, MLP; residual in xr.
  const attnOutMlp = (
    l: number,
    r: SegmentRows,
    useState: number,
    xr: GPUBuffer,
    qkvr: GPUBuffer,
    setters: Setter[],
    rows8: boolean,
  ) => {
    const pre = `h.${l}.`;
    const attention = decodeAttention(
      ctx,
      { qkv: qkvr, kc, vc, text: text, state: state, out: att },
      { R: r.R, rowsPerSeq: r.rowsPerSeq, posBase: r.posBase, useState },
      { D: d, H, S, layerOff: l * n * H * S * hd },
      { P, textCap, seqMul: r.seqMul },
    );
    setters.push((s) =>
      attention.set({ R: s.R, rowsPerSeq: s.rowsPerSeq, posBase: s.posBase, seqMul: s.seqMul }),
    );
    return [
      attention,
      matmul(att, xr, r.R, d, d, `${pre}attn.wo`, `${pre}attn.bo`, "add", setters, rows8),
      layernorm(xr, xn, r.R, `${pre}ln2.g`, `${pre}ln2.b`, setters),
      matmul(xn, h, r.R, d, hid, `${pre}mlp.wfc`, `${pre}mlp.bfc`, "gelu", setters, rows8),
      matmul(h, xr, r.R, hid, d, `${pre}mlp.wproj`, `${pre}mlp.bproj`, "add", setters, rows8),
    ];
  };
  // Final LayerNorm and head (no bias) on N rows of xr → logits [N, V].
  const final = (xr: GPUBuffer, rows8: boolean) => [
    layernorm(xr, xn, n, "lnf.g", "lnf.b", []),
    matmul(xn, logits, n, d, V, "head.w", null, "store", [], rows8),
  ];

  // The matmuls of a generator of many sequences use the 8-row tile (the same values as the
  // 4-row one): its prefill segments from N = 64, its decode steps from N = 128 (lab choice;
  // a rollout generator of 32 then builds no second set of pipelines before the first step).
  const segRows8 = n >= ROWS8_MIN / 2;
  const stepRows8 = n >= ROWS8_MIN;

  // A prefill segment: its rows through layers 0..nLayers-2 and the last layer's
  // K/V append (only the K/V of a prefill row are read later, except each
  // sequence's last row, which the tail calls take on).
  const segment = (): Segment => {
    const setters: Setter[] = [];
    const r: SegmentRows = { R: rows, rowsPerSeq: 1, posBase: 0, seqMul: 1 };
    const calls: KernelCall[] = [embed(r, 0, setters)];
    for (let l = 0; l < nLayers - 1; l++)
      calls.push(
        ...attnIn(l, r, 0, x, qkv, setters, segRows8),
        ...attnOutMlp(l, r, 0, x, qkv, setters, segRows8),
      );
    calls.push(...attnIn(nLayers - 1, r, 0, x, qkv, setters, segRows8));
    return {
      calls,
      set: (s) => {
        for (const f of setters) f(s);
      },
    };
  };
  const segments = { patches: segment(), prompt: segment(), tail: segment() };
  // Each sequence's last prefilled row (lastIdx) gathered (xLast, qkvLast [N, ·]), then the
  // last layer's attention output and MLP, lnf and head at its position T0 − 1 + prefilled[n].
  const xLast = ctx.createBuffer("gen.xLast", n * d * ELEMENT_BYTES);
  const qkvLast = ctx.createBuffer("gen.qkvLast", n * 3 * d * ELEMENT_BYTES);
  const lastRows: SegmentRows = { R: n, rowsPerSeq: 1, posBase: T0 - 1, seqMul: 1 };
  const tailCalls: KernelCall[] = [];
  tailCalls.push(
    rowsGather(ctx, { idx: lastIdx, x: qkv, y: qkvLast }, n, 3 * d),
    rowsGather(ctx, { idx: lastIdx, x, y: xLast }, n, d),
    ...attnOutMlp(nLayers - 1, lastRows, 1, xLast, qkvLast, [], stepRows8),
    ...final(xLast, stepRows8),
  );
  // Decode step: N rows at position T0 + state[0] + prefilled[n].
  const stepRows: SegmentRows = { R: n, rowsPerSeq: 1, posBase: T0, seqMul: 1 };
  const decode: KernelCall[] = [embed(stepRows, 1, [])];
  for (let l = 0; l < nLayers; l++)
    decode.push(
      ...attnIn(l, stepRows, 1, x, qkv, [], stepRows8),
      ...attnOutMlp(l, stepRows, 1, x, qkv, [], stepRows8),
    );
  decode.push(...final(x, stepRows8));
  const advance = decodeAdvance(ctx, { state: state }, 1);
  // The per-batch fields (M, seed, eos, pad, greedy, topK, invT, topP) are set by generate().
  const sample: SampleCall = sampleTokens(
    ctx,
    {
      logits: logits,
      ework,
      forced: forced,
      state: state,
      text: text,
      out: out,
    },
    {
      N: n,
      V,
      M: maxNew,
      cap: maxNew,
      promptLen,
      textCap,
      seed: 0,
      eos: 0,
      pad: 0,
      greedy: 1,
      topK: 0,
      invT: 1,
      topP: 1,
    },
  );
  return {
    params,
    images,
    text,
    forced,
    state,
    out,
    logits,
    lastIdx,
    segments,
    tailCalls,
    decode,
    advance,
    sample,
  };
}
