/**
 * Specs of the embedding kernels (shaders/embed/): patchify, the training
 * embedding forward (patch embeddings + token embeddings + positions) and
 * backward, and the decode embedding that does patchify, the patch matmul
 * and the lookups in one pass from the flat parameter buffer. Launchers:
 * ./launch.ts; CPU reference: ./reference.ts.
 */
import { defineKernel, type KernelSpec } from "../../gpu/kernel-spec";
import patchifyCode from "../../../shaders/embed/patchify.wgsl?raw";
import forwardCode from "../../../shaders/embed/embed_forward.wgsl?raw";
import backwardCode from "../../../shaders/embed/embed_backward.wgsl?raw";
import decodeCode from "../../../shaders/embed/decode_embed.wgsl?raw";
import prefixCode from "../../../shaders/embed/embed_prefix.wgsl?raw";

/** patches [B·P, ps·ps·Ch] from images [B, H·W·Ch]; one invocation per output value. */
export const patchifySpec = defineKernel({
  name: "patchify",
  source: patchifyCode,
  uniforms: { B: "u32", H: "u32", W: "u32", Ch: "u32", ps: "u32" },
  bindings: {
    images: ["read", "f32"], // [B, H·W·Ch]
    patches: ["read_write", "f32"], // [B·P, ps·ps·Ch]
  },
  workgroupSize: 64,
  grid: {
    kind: "spill",
    threads: (u) => u.B * (u.H / u.ps) * (u.W / u.ps) * u.ps * u.ps * u.Ch,
  },
});

/**
 * out [B, T, C], T = P + L: patch embeddings (k < P) or token embeddings, plus
 * positions; text column s sits at position P + posOff + s.
 */
export const embedForwardSpec = defineKernel({
  name: "embed_forward",
  source: forwardCode,
  uniforms: { B: "u32", P: "u32", L: "u32", C: "u32", posOff: "u32" },
  bindings: {
    patchEmb: ["read", "f32"], // [B·P, C]
    tokens: ["read", "i32"], // [B, L]
    wte: ["read", "f32"], // [V, C]
    wpe: ["read", "f32"], // [maxSeqLen, C]
    out: ["read_write", "f32"], // [B, T, C]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.B * (u.P + u.L) * u.C },
});

/** dwte, dwpe += and dpatchEmb = from dout [B, T, C]; vec4 along C (C % 4 = 0). */
export const embedBackwardSpec = defineKernel({
  name: "embed_backward",
  source: backwardCode,
  uniforms: { B: "u32", P: "u32", L: "u32", C: "u32", V: "u32", posOff: "u32" },
  bindings: {
    dout: ["read", "vec4f"], // [B, T, C/4]
    order: ["read", "i32"], // [B·L] text positions b·L + s, ascending within each token id
    start: ["read", "i32"], // [V + 1] id v's positions are order[start[v] .. start[v+1])
    dwte: ["read_write", "vec4f"], // [V, C/4]
    dwpe: ["read_write", "vec4f"], // [maxSeqLen, C/4]
    dpatchEmb: ["read_write", "vec4f"], // [B·P, C/4]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => (u.V + u.P + u.L + u.B * u.P) * (u.C / 4) },
});

/** x [R, D] = embeddings of R (sequence, position) rows, read from the flat parameter buffer. */
export const decodeEmbedSpec = defineKernel({
  name: "decode_embed",
  source: decodeCode,
  uniforms: {
    R: "u32",
    D: "u32", // dModel (multiple of 4)
    rowsPerSeq: "u32",
    posBase: "u32",
    useState: "u32",
    P: "u32", // patch tokens
    textCap: "u32", // text columns per sequence in `text`
    gridW: "u32", // patches per image row = W / patchSize
    ps: "u32", // patch side in pixels
    C: "u32", // image channels
    imgW: "u32", // image width in pixels
    imgSize: "u32", // H·W·C floats per image
    patchWOff: "u32", // float offsets into the parameter buffer
    patchBOff: "u32",
    wteOff: "u32",
    wpeOff: "u32",
    seqMul: "u32", // text row of image n: n·seqMul (G in a shared-prompt prefill, else 1)
  },
  bindings: {
    image: ["read", "f32"], // [N, H·W·C]
    text: ["read", "i32"], // [N, textCap]
    state: ["read", "u32"], // [step, pad, 0, 0, prefilled tokens per sequence [N]]
    w: ["read", "vec4f"], // flat parameters
    x: ["read_write", "vec4f"], // [R, D/4]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => u.R * (u.D / 4) },
});

/** Sizes of the prefix layout (src/layout/prefix-layout.ts) and the text window's position offset. */
const PREFIX = {
  nG: "u32",
  G: "u32",
  S: "u32",
  Rs: "u32",
  P: "u32",
  L: "u32",
  C: "u32",
  posOff: "u32",
} as const;

/** out [rows, C] on the prefix layout from patchEmb, tokens [B, L], wte, wpe; vec4 along C. */
export const embedPrefixForwardSpec = defineKernel({
  name: "embed_prefix.fwd",
  source: prefixCode,
  blocks: ["FWD"],
  uniforms: PREFIX,
  bindings: {
    patchEmb: ["read", "vec4f"], // [nImg·P, C/4]
    tokens: ["read", "i32"], // [B, L]
    wte: ["read", "vec4f"], // [V, C/4]
    wpe: ["read", "vec4f"], // [maxSeqLen, C/4]
    out: ["read_write", "vec4f"], // [rows, C/4]
  },
  workgroupSize: 64,
  grid: { kind: "spill", threads: (u) => (u.nG * u.S + u.nG * u.G * u.Rs) * (u.C / 4) },
});

/** dwte, dwpe += and dpatchEmb = from dout [rows, C] on the prefix layout; vec4 along C. */
export const embedPrefixBackwardSpec = defineKernel({
  name: "embed_prefix.bwd",
  source: prefixCode,
  blocks: ["BWD"],
  uniforms: { ...PREFIX, V: "u32" },
  bindings: {
    dout: ["read", "vec4f"], // [rows, C/4]
    order: ["read", "i32"], // [≤ B·L] text rows by token id (prefixTokenOrder)
    start: ["read", "i32"], // [V + 1] id v's rows are order[start[v] .. start[v+1])
    dwte: ["read_write", "vec4f"], // [V, C/4]
    dwpe: ["read_write", "vec4f"], // [maxSeqLen, C/4]
    dpatchEmb: ["read_write", "vec4f"], // [nImg·P, C/4]
  },
  workgroupSize: 64,
  grid: {
    kind: "spill",
    threads: (u) => (u.V + u.S + u.Rs + (u.S > 0 ? u.nG : u.nG * u.G) * u.P) * (u.C / 4),
  },
});

/** Every embedding kernel (spec tests). */
export const EMBED_SPECS: KernelSpec[] = [
  patchifySpec,
  embedForwardSpec,
  embedBackwardSpec,
  decodeEmbedSpec,
  embedPrefixForwardSpec,
  embedPrefixBackwardSpec,
];
