/**
 * The tiny VLM (src/model/config.ts layout) written as a standard ONNX graph:
 * default-domain operators only, opset ONNX_OPSET (17, for LayerNormalization),
 * IR ONNX_IR_VERSION (8). It mirrors the engine's forward (src/model/reference.ts
 * is its CPU reference; docs/design.md "The tiny VLM", "ONNX export"):
 *
 *   patches = patchify(images) · patch.w + patch.b + wpe[0..P)          // [B, P, d]
 *   text    = wte[tokens] + wpe[P..P+L)                                 // [B, L, d]
 *   x = concat(patches, text);  per layer: x += attn(LN1(x)); x += mlp(LN2(x))
 *   logits = LN_f(x[:, P:]) · head.w                                    // [B, L, V]
 *
 * Attention is causal with PAD text tokens masked as keys (patch keys never
 * masked), as the engine: the masked scores get −1e30 before the softmax, so
 * their probabilities are exactly 0 in f32. GELU is the tanh approximation
 * written as primitive operators (Mul, Add, Tanh); LayerNorm ε = 1e-5.
 *
 * Graph inputs and output (names are POLICY_ONNX_IO):
 *   images  float32 [batch, H·W·C]   each image H×W×C row-major (TrainBatch.images)
 *   tokens  int32   [batch, textLen] prompt left-padded with PAD, then the
 *                                    response, PAD elsewhere (TrainBatch.tokens)
 *   logits  float32 [batch, textLen, V]  text row s predicts token s + 1
 * or, with `tokenLogprobs` (the learned PRM, src/prm/onnx.ts), instead of logits:
 *   token_logprobs float32 [batch, textLen]  column s: log p(tokens[s] | images,
 *                                    tokens[<s]) (LogSoftmax, then GatherElements
 *                                    of the next token); column 0 holds 0
 * `batch` and `textLen` are symbolic (dynamic); P + textLen ≤ maxSeqLen.
 */
import {
  numPatches,
  paramLayout,
  patchDim,
  validateConfig,
  type ModelConfig,
} from "../model/config";
import { PAD_ID } from "../tasks/tokenizer";
import { GraphBuilder } from "./builder";

/** Names of the exported graph's inputs and output. */
export const POLICY_ONNX_IO = {
  images: "images",
  tokens: "tokens",
  logits: "logits",
  tokenLogprobs: "token_logprobs",
} as const;

/** The score given to masked attention keys before the softmax (exp underflows to 0 in f32). */
const MASKED_SCORE = -1e30;
/** LayerNorm ε (src/kernels/layernorm/reference.ts; nanoGPT / PyTorch default). */
const LN_EPS = 1e-5;

/** Options of exportPolicyOnnx. */
export interface PolicyOnnxOptions {
  /** The PAD token id, masked as an attention key; default PAD_ID of src/tasks/tokenizer.ts. */
  padId?: number;
  /**
   * Replaces the untied head (head.w [d, V], no bias) with this one, e.g. a
   * learned scorer's head on the same trunk: `weight` [d, outDim] row-major,
   * optional `bias` [outDim]. The output `logits` is then [batch, textLen, outDim].
   */
  head?: { weight: Float32Array; outDim: number; bias?: Float32Array };
  /** Extra metadata_props entries (string → string), e.g. what the head scores. */
  metadata?: Record<string, string>;
  /**
   * Output `token_logprobs` [batch, textLen] (each text column's token's
   * log-probability under the model) instead of `logits`; not with `head`.
   */
  tokenLogprobs?: boolean;
}

function checkFinite(name: string, data: Float32Array): void {
  for (let i = 0; i < data.length; i++)
    if (!Number.isFinite(data[i]))
      throw new Error(`${name} holds a non-finite value (${data[i]} at index ${i})`);
}

/**
 * Writes the tiny VLM with these parameters as an ONNX model (layout above).
 * Metadata props: `reward_lab.config` (the ModelConfig as JSON),
 * `reward_lab.pad_id`, `reward_lab.output` (what `logits` holds), plus opts.metadata.
 * @param params flat f32 parameters [paramLayout(config).totalFloats] (checkpoint or engine order).
 * @returns the serialized ModelProto (opset 17, IR 8).
 * @throws Error on an invalid config, a params length other than the layout's,
 *   a non-finite parameter, a padId outside [0, vocabSize), or a head of the
 *   wrong size; each names the value.
 */
export function exportPolicyOnnx(
  config: ModelConfig,
  params: Float32Array,
  opts: PolicyOnnxOptions = {},
): Uint8Array {
  validateConfig(config);
  const layout = paramLayout(config);
  if (params.length !== layout.totalFloats)
    throw new Error(
      `params has ${params.length} floats, paramLayout(config) needs ${layout.totalFloats}`,
    );
  checkFinite("params", params);
  const padId = opts.padId ?? PAD_ID;
  if (!Number.isInteger(padId) || padId < 0 || padId >= config.vocabSize)
    throw new Error(`padId ${padId} is outside [0, ${config.vocabSize})`);
  const d = config.dModel;
  const head = opts.head;
  if (head && opts.tokenLogprobs)
    throw new Error("tokenLogprobs reads the vocabulary head; it cannot go with a replaced head");
  if (head) {
    if (!Number.isInteger(head.outDim) || head.outDim < 1)
      throw new Error(`head.outDim must be a positive integer, got ${head.outDim}`);
    if (head.weight.length !== d * head.outDim)
      throw new Error(
        `head.weight has ${head.weight.length} floats, expected dModel·outDim = ${d * head.outDim}`,
      );
    checkFinite("head.weight", head.weight);
    if (head.bias) {
      if (head.bias.length !== head.outDim)
        throw new Error(
          `head.bias has ${head.bias.length} floats, expected outDim = ${head.outDim}`,
        );
      checkFinite("head.bias", head.bias);
    }
  }

  const g = new GraphBuilder();
  const io = POLICY_ONNX_IO;
  g.reserve(io.images, io.tokens);
  const w = (name: string): string => {
    const t = layout.byName.get(name);
    if (!t) throw new Error(`no parameter ${name} in the layout`);
    return g.floats(name, t.shape, params.subarray(t.offset, t.offset + t.size));
  };
  const P = numPatches(config);
  const p = config.patchSize;
  const C = config.imageChannels;
  const gh = config.imageHeight / p;
  const gw = config.imageWidth / p;
  const NH = config.nHeads;
  const hs = d / NH;

  // Patch embedding: [B, H·W·C] → [B, gh, p, gw, p, C] → [B, gh, gw, p, p, C] → [B, P, p·p·C].
  const img6 = g.op("Reshape", [io.images, g.ints("img6_shape", [-1, gh, p, gw, p, C])], "img6");
  const imgT = g.op("Transpose", [img6], "imgT", { perm: [0, 1, 3, 2, 4, 5] });
  const patches = g.op(
    "Reshape",
    [imgT, g.ints("patches_shape", [-1, P, patchDim(config)])],
    "patches",
  );
  const pe = g.op(
    "Add",
    [g.op("MatMul", [patches, w("patch.w")], "patch_mm"), w("patch.b")],
    "patch_emb",
  );
  const wpe = w("wpe");
  const zero = g.ints("zero", [0]);
  const wpePatch = g.op("Slice", [wpe, zero, g.ints("P", [P]), zero], "wpe_patch");
  const xPatch = g.op("Add", [pe, wpePatch], "x_patch");

  // Token embedding at positions P .. P + textLen − 1.
  const textLen = g.op("Shape", [io.tokens], "text_len", { start: 1, end: 2 });
  const seqLen = g.op("Add", [textLen, g.ints("P_offset", [P])], "seq_len");
  const wpeText = g.op("Slice", [wpe, g.ints("P_start", [P]), seqLen, zero], "wpe_text");
  const tokEmb = g.op("Gather", [w("wte"), io.tokens], "tok_emb", { axis: 0 });
  const xText = g.op("Add", [tokEmb, wpeText], "x_text");
  let x = g.op("Concat", [xPatch, xText], "x_embed", { axis: 1 });

  // Attention bias [B, 1, T, T]: causal, and PAD text tokens masked as keys.
  const isPad = g.op("Equal", [io.tokens, g.scalarInt32("pad_id", padId)], "is_pad");
  const masked = g.scalar("masked_score", MASKED_SCORE);
  const padBias = g.op("Where", [isPad, masked, g.scalar("zero_f", 0)], "pad_bias");
  const keyBias = g.op("Pad", [padBias, g.ints("key_pads", [0, P, 0, 0])], "key_bias");
  const keyBias4 = g.op("Unsqueeze", [keyBias, g.ints("key_axes", [1, 2])], "key_bias4");
  const S = config.maxSeqLen;
  const causalFull = new Float32Array(S * S);
  for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) causalFull[i * S + j] = MASKED_SCORE;
  const causalEnds = g.op("Concat", [seqLen, seqLen], "causal_ends", { axis: 0 });
  const causal = g.op(
    "Slice",
    [
      g.floats("causal_full", [S, S], causalFull),
      g.ints("zero2", [0, 0]),
      causalEnds,
      g.ints("axes01", [0, 1]),
    ],
    "causal",
  );
  const bias = g.op("Add", [keyBias4, causal], "att_bias");

  const scale = g.scalar("att_scale", 1 / Math.sqrt(hs));
  const headsShape = g.ints("heads_shape", [0, 0, NH, hs]);
  const mergeShape = g.ints("merge_shape", [0, 0, d]);
  const split3 = g.ints("qkv_split", [d, d, d]);
  const half = g.scalar("half", 0.5);
  const one = g.scalar("one", 1);
  const geluA = g.scalar("gelu_a", 0.044715);
  const geluK = g.scalar("gelu_k", Math.sqrt(2 / Math.PI));
  const linear = (inp: string, wName: string, bName: string | null, name: string): string => {
    const mm = g.op("MatMul", [inp, w(wName)], `${name}_mm`);
    return bName ? g.op("Add", [mm, w(bName)], name) : mm;
  };
  const layerNorm = (inp: string, prefix: string, name: string): string =>
    g.op("LayerNormalization", [inp, w(`${prefix}.g`), w(`${prefix}.b`)], name, {
      axis: -1,
      epsilon: LN_EPS,
    });

  for (let l = 0; l < config.nLayers; l++) {
    const h = `h.${l}`;
    const ln1 = layerNorm(x, `${h}.ln1`, `${h}.ln1`);
    const qkv = linear(ln1, `${h}.attn.wqkv`, `${h}.attn.bqkv`, `${h}.qkv`);
    const [q, k, v] = g.opMulti("Split", [qkv, split3], `${h}.qkv_split`, 3, { axis: 2 });
    const heads = (t: string, perm: number[], name: string) =>
      g.op("Transpose", [g.op("Reshape", [t, headsShape], `${name}_4d`)], name, { perm });
    const qh = heads(q, [0, 2, 1, 3], `${h}.q`); // [B, NH, T, hs]
    const kh = heads(k, [0, 2, 3, 1], `${h}.kT`); // [B, NH, hs, T]
    const vh = heads(v, [0, 2, 1, 3], `${h}.v`); // [B, NH, T, hs]
    const scores = g.op("Mul", [g.op("MatMul", [qh, kh], `${h}.qk`), scale], `${h}.scores`);
    const att = g.op("Softmax", [g.op("Add", [scores, bias], `${h}.scores_masked`)], `${h}.att`, {
      axis: -1,
    });
    const yh = g.op("MatMul", [att, vh], `${h}.atty_heads`);
    const y = g.op(
      "Reshape",
      [g.op("Transpose", [yh], `${h}.atty_t`, { perm: [0, 2, 1, 3] }), mergeShape],
      `${h}.atty`,
    );
    x = g.op("Add", [x, linear(y, `${h}.attn.wo`, `${h}.attn.bo`, `${h}.attn_out`)], `${h}.res2`);
    const ln2 = layerNorm(x, `${h}.ln2`, `${h}.ln2`);
    const fc = linear(ln2, `${h}.mlp.wfc`, `${h}.mlp.bfc`, `${h}.fc`);
    // GELU (tanh): 0.5·u·(1 + tanh(√(2/π)(u + 0.044715u³)))
    const u3 = g.op("Mul", [g.op("Mul", [fc, fc], `${h}.fc_sq`), fc], `${h}.fc_cube`);
    const inner = g.op(
      "Mul",
      [g.op("Add", [fc, g.op("Mul", [u3, geluA], `${h}.gelu_cubic`)], `${h}.gelu_sum`), geluK],
      `${h}.gelu_inner`,
    );
    const t1 = g.op("Add", [g.op("Tanh", [inner], `${h}.gelu_tanh`), one], `${h}.gelu_1p`);
    const gelu = g.op("Mul", [g.op("Mul", [fc, half], `${h}.gelu_half`), t1], `${h}.gelu`);
    x = g.op(
      "Add",
      [x, linear(gelu, `${h}.mlp.wproj`, `${h}.mlp.bproj`, `${h}.mlp_out`)],
      `${h}.res3`,
    );
  }

  // Final LayerNorm and head on the text rows only.
  const xt = g.op(
    "Slice",
    [x, g.ints("text_start", [P]), g.ints("text_end", [S]), g.ints("axis1", [1])],
    "x_text_rows",
  );
  const lnf = layerNorm(xt, "lnf", "lnf");
  let outDim = config.vocabSize;
  let meaning = "next-token logits over the vocabulary; text row s predicts token s + 1";
  if (head) {
    outDim = head.outDim;
    meaning = `head of width ${outDim} on the final LayerNorm of each text row`;
    const mm = g.op("MatMul", [lnf, g.floats("head.w", [d, outDim], head.weight)], "head_mm");
    if (head.bias)
      g.op("Add", [mm, g.floats("head.b", [outDim], head.bias)], "head", {}, io.logits);
    else g.op("Identity", [mm], "head", {}, io.logits);
  } else if (opts.tokenLogprobs) {
    // Row s of the log-softmax scores token s + 1: gather it, then shift right by one column.
    const logits = g.op("MatMul", [lnf, w("head.w")], "head");
    const logp = g.op("LogSoftmax", [logits], "logsoftmax", { axis: -1 });
    const one = g.ints("one", [1]);
    const rows = g.op(
      "Slice",
      [logp, g.ints("zero", [0]), g.ints("minus_one", [-1]), one],
      "logp_rows",
    ); // [B, L−1, V]
    const next = g.op(
      "Slice",
      [io.tokens, one, g.ints("int_max", [2 ** 31 - 1]), one],
      "next_tokens",
    ); // [B, L−1]
    const idx = g.op(
      "Unsqueeze",
      [next, g.ints("last_axis", [2])], // int32 indices: GatherElements takes them
      "next_idx",
    ); // [B, L−1, 1]
    const picked = g.op(
      "Squeeze",
      [g.op("GatherElements", [rows, idx], "gather_next", { axis: 2 }), g.ints("axis2", [2])],
      "next_logp",
    ); // [B, L−1]
    const zeros = g.op(
      "Mul",
      [g.op("Slice", [picked, g.ints("c0", [0]), one, one], "first_col"), g.scalar("zero_f", 0)],
      "zero_col",
    ); // [B, 1] (0 · a finite logprob)
    g.op("Concat", [zeros, picked], "token_logprobs", { axis: 1 }, io.tokenLogprobs);
    meaning = "log p(token s | image, tokens before s) of each text column s; column 0 holds 0";
  } else {
    g.op("MatMul", [lnf, w("head.w")], "head", {}, io.logits);
  }
  return g.encode(
    "tiny_vlm",
    [
      {
        name: io.images,
        type: "float32",
        dims: ["batch", config.imageHeight * config.imageWidth * C],
      },
      { name: io.tokens, type: "int32", dims: ["batch", "textLen"] },
    ],
    [
      opts.tokenLogprobs
        ? { name: io.tokenLogprobs, type: "float32", dims: ["batch", "textLen"] }
        : { name: io.logits, type: "float32", dims: ["batch", "textLen", outDim] },
    ],
    {
      "reward_lab.config": JSON.stringify(config),
      "reward_lab.pad_id": String(padId),
      "reward_lab.output": meaning,
      ...opts.metadata,
    },
    { name: "reward-lab", version: "0.1.0" },
  );
}
