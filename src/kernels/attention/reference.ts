/**
 * CPU reference (f64) of the attention kernels (shaders/attention/), llm.c
 * `train_gpt2.c` style: outputs first, then inputs, then sizes; row-major
 * flat arrays. The backward ACCUMULATES (+=) into dqkv, like llm.c. Tests
 * only; the whole-model reference (src/model/reference.ts) composes these.
 * The decode kernels (kv_append + decode_attention) are checked against
 * attentionForward too.
 */

import { physRow, rowSeq, type PrefixLayout } from "../../layout/prefix-layout";

type F64 = Float64Array;

/**
 * Causal attention with key masking. qkv [B, T, 3C] holds q | k | v along the
 * last axis; head h uses channels h·hs … (h+1)·hs − 1 of each (hs = C/NH).
 * Query i may attend key j iff j ≤ i and keyOk[b, j] (false only for PAD text
 * tokens). Scale 1/sqrt(hs). Writes out [B, T, C] and att [B, NH, T, T] (the
 * softmax probabilities; 0 for masked keys).
 * @throws Error if a query row has no allowed key (cannot happen while patch keys exist).
 */
export function attentionForward(
  out: F64,
  att: F64,
  qkv: ArrayLike<number>,
  keyOk: ArrayLike<number>,
  B: number,
  T: number,
  C: number,
  NH: number,
): void {
  const hs = C / NH;
  const scale = 1 / Math.sqrt(hs);
  const C3 = 3 * C;
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < NH; h++) {
      for (let i = 0; i < T; i++) {
        const q = b * T * C3 + i * C3 + h * hs;
        const arow = ((b * NH + h) * T + i) * T;
        let maxv = -Infinity;
        for (let j = 0; j < T; j++) {
          att[arow + j] = 0;
          if (j > i || !keyOk[b * T + j]) continue;
          const k = b * T * C3 + j * C3 + C + h * hs;
          let s = 0;
          for (let e = 0; e < hs; e++) s += qkv[q + e] * qkv[k + e];
          s *= scale;
          att[arow + j] = s;
          if (s > maxv) maxv = s;
        }
        if (maxv === -Infinity)
          throw new Error(`attentionForward: query ${i} of batch row ${b} has no allowed key`);
        let sum = 0;
        for (let j = 0; j <= i; j++) {
          if (!keyOk[b * T + j]) continue;
          const e = Math.exp(att[arow + j] - maxv);
          att[arow + j] = e;
          sum += e;
        }
        for (let j = 0; j <= i; j++) att[arow + j] /= sum;
        const o = b * T * C + i * C + h * hs;
        for (let e = 0; e < hs; e++) {
          let s = 0;
          for (let j = 0; j <= i; j++)
            s += att[arow + j] * qkv[b * T * C3 + j * C3 + 2 * C + h * hs + e];
          out[o + e] = s;
        }
      }
    }
  }
}

/**
 * Backward of attentionForward (llm.c attention_backward): accumulates dqkv
 * [B, T, 3C] from dout [B, T, C] using the stored probabilities att.
 *   datt_ij = dout_i·v_j;  dv_j += att_ij·dout_i;
 *   dpre_ij = att_ij·(datt_ij − Σ_k att_ik·datt_ik);
 *   dq_i += scale·Σ_j dpre_ij·k_j;  dk_j += scale·dpre_ij·q_i.
 */
export function attentionBackward(
  dqkv: F64,
  dout: ArrayLike<number>,
  qkv: ArrayLike<number>,
  att: ArrayLike<number>,
  B: number,
  T: number,
  C: number,
  NH: number,
): void {
  const hs = C / NH;
  const scale = 1 / Math.sqrt(hs);
  const C3 = 3 * C;
  const datt = new Float64Array(T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < NH; h++) {
      for (let i = 0; i < T; i++) {
        const arow = ((b * NH + h) * T + i) * T;
        const o = b * T * C + i * C + h * hs;
        let dot = 0;
        for (let j = 0; j <= i; j++) {
          const v = b * T * C3 + j * C3 + 2 * C + h * hs;
          let s = 0;
          for (let e = 0; e < hs; e++) {
            s += dout[o + e] * qkv[v + e];
            dqkv[v + e] += att[arow + j] * dout[o + e];
          }
          datt[j] = s;
          dot += att[arow + j] * s;
        }
        const q = b * T * C3 + i * C3 + h * hs;
        for (let j = 0; j <= i; j++) {
          const dpre = att[arow + j] * (datt[j] - dot) * scale;
          if (dpre === 0) continue;
          const k = b * T * C3 + j * C3 + C + h * hs;
          for (let e = 0; e < hs; e++) {
            dqkv[q + e] += dpre * qkv[k + e];
            dqkv[k + e] += dpre * qkv[q + e];
          }
        }
      }
    }
  }
}

/**
 * The rows of every sequence of a prefix layout gathered into the plain
 * layout: x [rows, W] → [B, T, W] (a prefix row copied to each sequence of
 * its group).
 */
function expandRows(x: ArrayLike<number>, l: PrefixLayout, W: number): F64 {
  const y = new Float64Array(l.B * l.T * W);
  for (let b = 0; b < l.B; b++)
    for (let t = 0; t < l.T; t++) {
      const src = physRow(l, b, t) * W;
      for (let w = 0; w < W; w++) y[(b * l.T + t) * W + w] = x[src + w];
    }
  return y;
}

/**
 * attentionForward on the prefix layout of a shared-prefix step
 * (src/layout/prefix-layout.ts): qkv [rows, 3C] and keyOk [B, T] → out
 * [rows, C] and att [rows, NH, T]. Each sequence's positions are gathered
 * from its rows, the plain reference runs on every sequence, and each row
 * takes the values of the sequence it names (a prefix row: its group's
 * first, whose prefix equals the others').
 */
export function attentionPrefixForward(
  out: F64,
  att: F64,
  qkv: ArrayLike<number>,
  keyOk: ArrayLike<number>,
  l: PrefixLayout,
  C: number,
  NH: number,
): void {
  const { B, T } = l;
  const outL = new Float64Array(B * T * C);
  const attL = new Float64Array(B * NH * T * T);
  attentionForward(outL, attL, expandRows(qkv, l, 3 * C), keyOk, B, T, C, NH);
  for (let r = 0; r < l.rows; r++) {
    const { b, t } = rowSeq(l, r);
    for (let c = 0; c < C; c++) out[r * C + c] = outL[(b * T + t) * C + c];
    for (let h = 0; h < NH; h++)
      for (let j = 0; j < T; j++) att[(r * NH + h) * T + j] = attL[((b * NH + h) * T + t) * T + j];
  }
}

/**
 * Backward of attentionPrefixForward: accumulates dqkv [rows, 3C] from dout
 * [rows, C]. The gradient of a row reaches the sequence it names (a prefix
 * row: its group's first sequence only, as it is computed once), the plain
 * backward runs on every sequence, and each row sums the gradients of the
 * positions it holds over every sequence that reads it: a prefix row, over
 * the G sequences of its group (the sum of the G repeats).
 */
export function attentionPrefixBackward(
  dqkv: F64,
  dout: ArrayLike<number>,
  qkv: ArrayLike<number>,
  keyOk: ArrayLike<number>,
  l: PrefixLayout,
  C: number,
  NH: number,
): void {
  const { B, T } = l;
  const qkvL = expandRows(qkv, l, 3 * C);
  const attL = new Float64Array(B * NH * T * T);
  attentionForward(new Float64Array(B * T * C), attL, qkvL, keyOk, B, T, C, NH);
  const doutL = new Float64Array(B * T * C);
  for (let r = 0; r < l.rows; r++) {
    const { b, t } = rowSeq(l, r);
    for (let c = 0; c < C; c++) doutL[(b * T + t) * C + c] = dout[r * C + c];
  }
  const dqkvL = new Float64Array(B * T * 3 * C);
  attentionBackward(dqkvL, doutL, qkvL, attL, B, T, C, NH);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++) {
      const dst = physRow(l, b, t) * 3 * C;
      for (let c = 0; c < 3 * C; c++) dqkv[dst + c] += dqkvL[(b * T + t) * 3 * C + c];
    }
}
