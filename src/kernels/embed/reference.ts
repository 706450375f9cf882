/**
 * CPU reference (f64) of the embedding kernels (shaders/embed/), llm.c
 * `train_gpt2.c` style: outputs first, then inputs, then sizes; row-major
 * flat arrays. The backward ACCUMULATES (+=) into its gradient outputs, like
 * llm.c. Tests only; the whole-model reference (src/model/reference.ts)
 * composes these.
 */
import { matmulBackward, matmulForward } from "../matmul/reference";
import { rowSeq, type PrefixLayout } from "../../layout/prefix-layout";

type F64 = Float64Array;

/** Image and patch geometry needed by the embedding (a subset of ModelConfig). */
export interface EmbedDims {
  imageHeight: number;
  imageWidth: number;
  imageChannels: number;
  patchSize: number;
}

/**
 * Cuts images [B, H·W·C] (H×W×C row-major) into patches [B, P, p·p·C]:
 * patch k is row-major over the patch grid; its pixels are flattened in
 * (py, px, c) order.
 */
export function patchify(out: F64, images: ArrayLike<number>, dims: EmbedDims, B: number): void {
  const { imageHeight: H, imageWidth: W, imageChannels: Ch, patchSize: p } = dims;
  const gw = W / p;
  const P = (H / p) * gw;
  const pd = p * p * Ch;
  for (let b = 0; b < B; b++) {
    for (let k = 0; k < P; k++) {
      const y0 = Math.floor(k / gw) * p;
      const x0 = (k % gw) * p;
      for (let py = 0; py < p; py++) {
        for (let px = 0; px < p; px++) {
          for (let c = 0; c < Ch; c++) {
            out[(b * P + k) * pd + (py * p + px) * Ch + c] =
              images[b * H * W * Ch + ((y0 + py) * W + (x0 + px)) * Ch + c];
          }
        }
      }
    }
  }
}

/**
 * out [B, T, C], T = P + L:  rows 0..P−1 = patches·patchW + patchB + wpe[k],
 * rows P+s = wte[tokens[b, s]] + wpe[P + posOff + s].
 * patches [B, P, pd], tokens [B, L], patchW [pd, C], wte [V, C], wpe [≥T + posOff, C].
 */
export function embedForward(
  out: F64,
  patches: F64,
  tokens: ArrayLike<number>,
  patchW: ArrayLike<number>,
  patchB: ArrayLike<number>,
  wte: ArrayLike<number>,
  wpe: ArrayLike<number>,
  B: number,
  P: number,
  L: number,
  pd: number,
  C: number,
  posOff = 0,
): void {
  const T = P + L;
  const tmp = new Float64Array(P * C);
  for (let b = 0; b < B; b++) {
    matmulForward(tmp, patches.subarray(b * P * pd, (b + 1) * P * pd), patchW, patchB, P, pd, C);
    for (let k = 0; k < P; k++)
      for (let c = 0; c < C; c++) out[(b * T + k) * C + c] = tmp[k * C + c] + wpe[k * C + c];
    for (let s = 0; s < L; s++) {
      const id = tokens[b * L + s];
      for (let c = 0; c < C; c++)
        out[(b * T + P + s) * C + c] = wte[id * C + c] + wpe[(P + posOff + s) * C + c];
    }
  }
}

/**
 * Backward of embedForward; accumulates dpatchW [pd, C], dpatchB [C],
 * dwte [V, C], dwpe [≥T + posOff, C] from dout [B, T, C] (posOff as embedForward).
 */
export function embedBackward(
  dpatchW: F64,
  dpatchB: F64,
  dwte: F64,
  dwpe: F64,
  dout: F64,
  patches: F64,
  tokens: ArrayLike<number>,
  B: number,
  P: number,
  L: number,
  pd: number,
  C: number,
  posOff = 0,
): void {
  const T = P + L;
  for (let b = 0; b < B; b++) {
    const drows = dout.subarray(b * T * C, (b * T + P) * C);
    matmulBackward(
      null,
      dpatchW,
      dpatchB,
      drows,
      patches.subarray(b * P * pd, (b + 1) * P * pd),
      [],
      P,
      pd,
      C,
    );
    for (let t = 0; t < T; t++) {
      const row = t < P ? t : t + posOff;
      for (let c = 0; c < C; c++) dwpe[row * C + c] += dout[(b * T + t) * C + c];
    }
    for (let s = 0; s < L; s++) {
      const id = tokens[b * L + s];
      for (let c = 0; c < C; c++) dwte[id * C + c] += dout[(b * T + P + s) * C + c];
    }
  }
}

/**
 * The embedding on the prefix layout of a shared-prefix step
 * (src/layout/prefix-layout.ts; shaders/embed/embed_prefix.wgsl): out [rows, C]
 * from patchEmb [nImg·P, C] (the patches after the patch matmul; nImg = nG
 * images when S > 0, one per group, else B), tokens [B, L], wte [V, C],
 * wpe [≥ T + posOff, C]. Row r holds position t of the sequence b it names:
 * patchEmb[img·P + t] + wpe[t] (t < P), else wte[tokens[b, t − P]] + wpe[t + posOff].
 */
export function embedPrefixForward(
  out: F64,
  patchEmb: ArrayLike<number>,
  tokens: ArrayLike<number>,
  wte: ArrayLike<number>,
  wpe: ArrayLike<number>,
  l: PrefixLayout,
  P: number,
  L: number,
  C: number,
  posOff = 0,
): void {
  for (let r = 0; r < l.rows; r++) {
    const { b, t } = rowSeq(l, r);
    const img = l.S > 0 ? Math.floor(b / l.G) : b;
    for (let c = 0; c < C; c++)
      out[r * C + c] =
        t < P
          ? patchEmb[(img * P + t) * C + c] + wpe[t * C + c]
          : wte[tokens[b * L + t - P] * C + c] + wpe[(t + posOff) * C + c];
  }
}

/**
 * Backward of embedPrefixForward: dwte [V, C] and dwpe [≥ T + posOff, C]
 * accumulate (+=) every row's dout at its token and position; dpatchEmb
 * [nImg·P, C] receives (+=) each patch row's dout.
 */
export function embedPrefixBackward(
  dwte: F64,
  dwpe: F64,
  dpatchEmb: F64,
  dout: ArrayLike<number>,
  tokens: ArrayLike<number>,
  l: PrefixLayout,
  P: number,
  L: number,
  C: number,
  posOff = 0,
): void {
  for (let r = 0; r < l.rows; r++) {
    const { b, t } = rowSeq(l, r);
    const img = l.S > 0 ? Math.floor(b / l.G) : b;
    const pos = t < P ? t : t + posOff;
    for (let c = 0; c < C; c++) {
      const g = dout[r * C + c];
      dwpe[pos * C + c] += g;
      if (t < P) dpatchEmb[(img * P + t) * C + c] += g;
      else dwte[tokens[b * L + t - P] * C + c] += g;
    }
  }
}
